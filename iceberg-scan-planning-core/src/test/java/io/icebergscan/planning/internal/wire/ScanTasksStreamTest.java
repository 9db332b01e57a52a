package io.icebergscan.planning.internal.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.SerializationFeature;

import static io.icebergscan.planning.internal.wire.ResponseParserTest.MAPPER;
import static io.icebergscan.planning.internal.wire.ResponseParserTest.REMOVE;
import static io.icebergscan.planning.internal.wire.ResponseParserTest.TASKS;
import static io.icebergscan.planning.internal.wire.ResponseParserTest.pointers;
import static io.icebergscan.planning.internal.wire.ResponseParserTest.with;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The token-stream reader against the tree reader, body by body: it may give up on any body, but what it accepts the
 * tree reader accepts too, and reads alike. So every rejection, its message and its order stay the tree reader's.
 */
class ScanTasksStreamTest {

  private static final String HANDLE = "h-1";

  private final ObjectReader reader = JsonReader.strictReader(MAPPER);
  private final ScanTasksParser tree = new ScanTasksParser(MAPPER);
  private final ScanTasksStream stream = new ScanTasksStream(this.reader,
      MAPPER.writer().without(SerializationFeature.INDENT_OUTPUT));

  /** A flat plan's answer as Apache Iceberg's server writes it: one task, a residual, stats, and a delete. */
  private static final String ICEBERG_SERVER = """
      {"plan-tasks":[],"delete-files":[{"spec-id":0,"content":"position-deletes","file-path":"s3://b/d-1.parquet",
      "file-format":"parquet","partition":[7,"x",null,true],"file-size-in-bytes":1431,"record-count":2,
      "referenced-data-file":"s3://b/1.parquet"}],
      "file-scan-tasks":[{"data-file":{"spec-id":0,"content":"data","file-path":"s3://b/1.parquet",
      "file-format":"parquet","partition":[7,"x",null,true],"file-size-in-bytes":2214,"record-count":100,
      "column-sizes":{"keys":[1,2],"values":[120,95]},"value-counts":{"keys":[1,2],"values":[100,100]},
      "null-value-counts":{"keys":[1,2],"values":[0,3]},"nan-value-counts":{"keys":[],"values":[]},
      "lower-bounds":{"keys":[1,2],"values":["0100000000000000","61"]},
      "upper-bounds":{"keys":[1,2],"values":["6400000000000000","7a"]},"key-metadata":"00ff",
      "split-offsets":[4],"sort-order-id":0,"first-row-id":9000000000},
      "delete-file-references":[0],"residual-filter":{"type":"and","left":true,"right":
      {"type":"lt","term":"id","value":9000000000}}}]}
      """;

  /** Ten columns of statistics, a residual holding arrays, an empty file of an equality delete. */
  private static final String WIDE = """
      {"delete-files":[{"spec-id":1,"content":"equality-deletes","file-path":"s3://b/eq.parquet",
      "file-format":"parquet","partition":[],"file-size-in-bytes":0,"record-count":0,
      "equality-ids":[1,2,3,4,5,6,7,8,9,10]}],
      "file-scan-tasks":[{"data-file":{"spec-id":1,"content":"data","file-path":"s3://b/w.parquet",
      "file-format":"parquet","partition":[],"file-size-in-bytes":0,"record-count":0,
      "value-counts":{"keys":[1,2,3,4,5,6,7,8,9,10],"values":[0,1,2,3,4,5,6,7,8,9]}},
      "delete-file-references":[0],"residual-filter":{"type":"in","term":"id","values":[1,[2],{"a":[]}]}}]}
      """;

  @Test
  void theCommonAnswersAreReadWithoutATreeAndAlike() {
    for (String body : List.of(TASKS, ICEBERG_SERVER, WIDE, "{}", "{\"plan-tasks\":[\"a\",\"b\"]}",
        "{\"file-scan-tasks\":[],\"unknown\":{\"a\":[1.5,{}]}}")) {
      ScanTasks streamed = this.stream.read(bytes(body));
      assertThat(streamed).as(body).isNotNull().isEqualTo(this.tree.parse(bytes(body), HANDLE));
    }
  }

  @Test
  void deleteFilesAfterTheTasksThatReferenceThemAreResolvedAlike() {
    String deletesLast = "{\"file-scan-tasks\":[{\"data-file\":{\"content\":\"data\",\"file-path\":\"s3://b/a\","
        + "\"file-format\":\"parquet\",\"spec-id\":0,\"partition\":[],\"file-size-in-bytes\":1,\"record-count\":1},"
        + "\"delete-file-references\":[0]}],\"delete-files\":[{\"content\":\"position-deletes\","
        + "\"file-path\":\"s3://b/d\",\"file-format\":\"parquet\",\"spec-id\":0,\"partition\":[],"
        + "\"file-size-in-bytes\":1,\"record-count\":1}]}";

    ScanTasks streamed = this.stream.read(bytes(deletesLast));

    assertThat(streamed).isNotNull().isEqualTo(this.tree.parse(bytes(deletesLast), HANDLE));
    assertThat(streamed.fileScanTasks().get(0).deleteFiles()).hasSize(1);
  }

  @Test
  void itGivesUpOnWhatOnlyTheTreeReaderCanNameOrRead() {
    for (String body : List.of("", "[]", "{} {}", "{\"plan-tasks\":[],\"plan-tasks\":[]}", "{\"plan-tasks\":null}",
        "{\"plan-tasks\":[\"\"]}", "{\"delete-files\":[]", ICEBERG_SERVER.replace("9000000000}}}", "1.5}}}"))) {
      assertThat(this.stream.read(bytes(body))).as(body).isNull();
    }
  }

  /** Every node of the valid documents replaced, in turn, with values of every JSON kind. */
  @Test
  void whateverItAcceptsUnderAnyMutationTheTreeReaderAcceptsAlike() {
    List<String> replacements = List.of(REMOVE, "null", "\"\"", "\"x\"", "\"DATA\"", "\"Position_Deletes\"",
        "\"ORC\"", "\"0a\"", "\"0g\"", "-1", "0", "1", "3", "2147483648", "9223372036854775808", "1.5", "1e400",
        "true", "[]", "{}", "[null]", "[0]", "[1, 0]", "[0, 0]", "[3, 1]", "[1, 1]", "[\"\"]", "[1.5]",
        "{\"keys\": [1], \"values\": [{}]}", "{\"keys\": [2, 1], \"values\": [5, 6]}",
        "{\"keys\": [1, 1], \"values\": [5, 6]}", "{\"keys\": [1], \"values\": []}", "{\"keys\": [1]}",
        "{\"keys\": [1], \"values\": [null]}", "{\"keys\": [1], \"values\": [-5]}");
    int attempts = 0;
    int streamed = 0;
    List<String> problems = new ArrayList<>();
    for (String document : List.of(TASKS, ICEBERG_SERVER)) {
      for (String pointer : pointers(MAPPER.readTree(document), "")) {
        for (String replacement : replacements) {
          attempts++;
          String body = with(document, pointer, replacement);
          String problem = disagreement(body);
          if (problem != null) {
            problems.add(pointer + " := " + replacement + ": " + problem);
          }
          streamed += this.stream.read(bytes(body)) != null ? 1 : 0;
        }
      }
    }

    assertThat(problems).isEmpty();
    assertThat(attempts).isGreaterThan(5000);
    assertThat(streamed).as("mutations read from the token stream").isGreaterThan(attempts / 10);
  }

  /** Bytes dropped, doubled and changed at random: syntax the two read alike or the stream reader gives up on. */
  @Test
  void whateverItAcceptsUnderRandomDamageTheTreeReaderAcceptsAlike() {
    Random random = new Random(23);
    List<String> problems = new ArrayList<>();
    String alphabet = "{}[],:\" \\0123456789.eE-+abtrunlfx";
    for (int attempt = 0; attempt < 20_000; attempt++) {
      StringBuilder body = new StringBuilder(attempt % 2 == 0 ? TASKS : ICEBERG_SERVER);
      for (int damage = 1 + random.nextInt(3); damage > 0; damage--) {
        int at = random.nextInt(body.length());
        switch (random.nextInt(3)) {
          case 0 -> body.deleteCharAt(at);
          case 1 -> body.insert(at, body.charAt(at));
          default -> body.setCharAt(at, alphabet.charAt(random.nextInt(alphabet.length())));
        }
      }
      String problem = disagreement(body.toString());
      if (problem != null) {
        problems.add(body + ": " + problem);
      }
    }

    assertThat(problems).isEmpty();
  }

  /** Why the two readers disagree on a body, or {@code null} if they do not. */
  private @Nullable String disagreement(String body) {
    ScanTasks streamed = this.stream.read(bytes(body));
    if (streamed == null) {
      return null;
    }
    JsonReader in = JsonReader.quoting(HANDLE);
    try {
      ScanTasks read = in.guarded(() -> this.tree.read(in, in.root(this.reader, bytes(body))));
      return read.equals(streamed) ? null : "read otherwise: " + streamed + " against " + read;
    }
    catch (RuntimeException rejected) {
      return "accepted what the tree reader rejects: " + rejected.getMessage();
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
