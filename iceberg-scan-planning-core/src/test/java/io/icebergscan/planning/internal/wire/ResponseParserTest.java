package io.icebergscan.planning.internal.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.internal.wire.WireTypes.CatalogConfig;
import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import io.icebergscan.planning.internal.wire.WireTypes.PlanStatus;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.catchThrowable;

/** Every message parser of the wire package: what each accepts, and how it names what it rejects. */
class ResponseParserTest {

  static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static final String HANDLE = "plan-task-7f3a";

  static final String REMOVE = "<remove>";

  private static final String PLACEHOLDER = "@@mutation@@";

  /** A valid FetchScanTasksResult; every rejection test breaks exactly one thing in it. */
  static final String TASKS = """
      {
        "plan-tasks": ["pt-a", "pt-b"],
        "delete-files": [
          {"content": "position-deletes", "file-path": "s3://b/t/data/dv.puffin", "file-format": "puffin",
           "spec-id": 0, "partition": [], "file-size-in-bytes": 1000, "record-count": 3,
           "content-offset": 4, "content-size-in-bytes": 60, "referenced-data-file": "s3://b/t/data/f0.parquet"},
          {"content": "equality-deletes", "file-path": "s3://b/t/data/eq.parquet", "file-format": "parquet",
           "spec-id": 0, "partition": [], "file-size-in-bytes": 500, "record-count": 7, "equality-ids": [1, 2]}
        ],
        "file-scan-tasks": [
          {"data-file": {"content": "data", "file-path": "s3://b/t/data/f0.parquet", "file-format": "parquet",
             "spec-id": 0, "partition": [], "file-size-in-bytes": 4096, "record-count": 100,
             "split-offsets": [4], "column-sizes": {"keys": [1], "values": [10]},
             "lower-bounds": {"keys": [1], "values": [3]}},
           "delete-file-references": [0, 1],
           "residual-filter": {"type": "gt", "term": "id", "value": 5}},
          {"data-file": {"content": "data", "file-path": "s3://b/t/data/f1.parquet", "file-format": "parquet",
             "spec-id": 0, "partition": [], "file-size-in-bytes": 2048, "record-count": 50},
           "delete-file-references": [1]}
        ]
      }
      """;

  private static final String COMPLETED = """
      {
        "status": "completed",
        "plan-id": "plan-1",
        "plan-tasks": ["pt-a"],
        "delete-files": [
          {"content": "position-deletes", "file-path": "s3://b/t/data/d.parquet", "file-format": "parquet",
           "spec-id": 0, "partition": [], "file-size-in-bytes": 10, "record-count": 1}
        ],
        "file-scan-tasks": [
          {"data-file": {"content": "data", "file-path": "s3://b/t/data/f0.parquet", "file-format": "parquet",
             "spec-id": 0, "partition": [], "file-size-in-bytes": 4096, "record-count": 100},
           "delete-file-references": [0]}
        ],
        "storage-credentials": [
          {"prefix": "s3://b/", "config": {"s3.access-key-id": "AK", "s3.secret-access-key": "SK"}},
          {"prefix": "s3://b/t/", "config": {}}
        ]
      }
      """;

  private static final String CONFIG = """
      {
        "defaults": {"clients": "4", "page-size": 100, "ratio": 1.5, "flag": true, "gone": null},
        "overrides": {"prefix": "ws", "namespace-separator": "%1F"},
        "endpoints": [
          "  post   /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan  ",
          42, null, {"method": "GET"}, ["GET", "/v1/x"], "", "   ",
          "Get\\t/v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}",
          "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
          "DELETE", "FETCH /v1/x", "GET v1/no-slash", "GET /v1/a /v1/b"
        ]
      }
      """;

  private final Parsers parser = new Parsers(MAPPER);

  /** The message parsers, as the client builds them from one mapper. */
  private static final class Parsers {

    private final ScanTasksParser tasks;
    private final PlanResultParser plans;
    private final ConfigParser configs;
    private final ErrorBodyParser errors;

    Parsers(JsonMapper mapper) {
      this.tasks = new ScanTasksParser(mapper);
      this.plans = new PlanResultParser(mapper);
      this.configs = new ConfigParser(mapper);
      this.errors = new ErrorBodyParser(mapper);
    }

    ScanTasks scanTasks(byte[] body, String planTask) {
      return this.tasks.parse(body, planTask);
    }

    PlanningResult planResult(byte[] body, boolean fromSubmit) {
      return this.plans.parse(body, fromSubmit);
    }

    CatalogConfig config(byte[] body) {
      return this.configs.parse(body);
    }

    ErrorBody error(byte[] body) {
      return this.errors.parse(body);
    }
  }

  // ---- whole-body rules ---------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", " \n\t\r\n ", "<html><body><h1>500 Internal Server Error</h1></body></html>",
      "{\"plan-tasks\": [\"a\"]", "{\"plan-tasks\": []} trailing", "{} {}", "plan-tasks", "\u0000\u0001"})
  void rejectsEmptyBlankAndNonJsonBodies(String body) {
    MalformedResponseException ex = rejectTasks(body, null);
    assertThat(ex.getMessage()).containsAnyOf("empty body", "not valid JSON");
  }

  @Test
  void rejectsDuplicateKeysWhichHaveNoOneMeaning() {
    MalformedResponseException tasks = rejectTasks("{\"plan-tasks\": [\"a\"], \"plan-tasks\": []}", "plan-tasks");
    assertThat(tasks.getMessage()).contains("a duplicate member", "Duplicate");
    MalformedResponseException plan = malformed(() -> this.parser.planResult(
        bytes("{\"status\": \"failed\", \"status\": \"completed\", \"plan-id\": \"p\"}"), true));
    assertThat(plan.field()).isEqualTo("status");
  }

  @Test
  void rejectsTrailingContentEvenWhenTheSharedMapperAllowsIt() {
    JsonMapper lenient = JsonMapper.builder().disable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS).build();
    Parsers parser = new Parsers(lenient);

    for (String body : List.of("{} {}", "{\"plan-tasks\": []} []", "{}\n{\"plan-tasks\": [\"x\"]}")) {
      MalformedResponseException ex = malformed(() -> parser.scanTasks(bytes(body), HANDLE));
      assertThat(ex.field()).isNull();
      assertThat(ex.planTask()).isEqualTo(HANDLE);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"[]", "null", "42", "\"text\"", "true", "[{\"plan-tasks\": []}]"})
  void rejectsTopLevelThatIsNotAnObject(String body) {
    MalformedResponseException ex = rejectTasks(body, null);
    assertThat(ex.getMessage()).contains("expected a JSON object");
  }

  @Test
  void rejectsBodyDeeperThanTheParserAllows() {
    String deep = "[".repeat(100_000) + "]".repeat(100_000);
    rejectTasks(with(TASKS, "/file-scan-tasks/0/residual-filter", deep), null);
  }

  @Test
  void rejectsBodyIssuesForPlanAndConfigWithoutAPlanTask() {
    for (ThrowingCallable call : List.<ThrowingCallable>of(
        () -> this.parser.planResult(new byte[0], true),
        () -> this.parser.planResult(bytes("<html/>"), false),
        () -> this.parser.config(bytes("   ")),
        () -> this.parser.config(bytes("[]")))) {
      MalformedResponseException ex = malformed(call);
      assertThat(ex.field()).isNull();
      assertThat(ex.planTask()).isNull();
      assertThat(ex.getMessage()).doesNotContain("plan task");
    }
  }

  // ---- the valid payload and what it resolves to ----------------------------------------------------

  @Test
  void parsesValidPayload() {
    ScanTasks tasks = this.parser.scanTasks(bytes(TASKS), HANDLE);

    assertThat(tasks.planTasks()).containsExactly("pt-a", "pt-b");
    assertThat(tasks.fileScanTasks()).hasSize(2);
    FileScanTask first = tasks.fileScanTasks().get(0);
    FileScanTask second = tasks.fileScanTasks().get(1);
    assertThat(first.dataFile().filePath()).isEqualTo("s3://b/t/data/f0.parquet");
    assertThat(first.deleteFiles()).extracting(DeleteFile::filePath)
        .containsExactly("s3://b/t/data/dv.puffin", "s3://b/t/data/eq.parquet");
    assertThat(second.deleteFiles()).extracting(DeleteFile::filePath).containsExactly("s3://b/t/data/eq.parquet");
    assertThat(first.residualFilter()).isEqualTo("{\"type\":\"gt\",\"term\":\"id\",\"value\":5}");
    assertThat(second.residualFilter()).as("left for the plan to fill in with the request's filter").isNull();
  }

  @Test
  void tasksSharingAReferenceShareTheDeleteFileInstance() {
    ScanTasks tasks = this.parser.scanTasks(bytes(TASKS), HANDLE);

    DeleteFile fromFirst = tasks.fileScanTasks().get(0).deleteFiles().get(1);
    DeleteFile fromSecond = tasks.fileScanTasks().get(1).deleteFiles().get(0);
    assertThat(fromFirst).isSameAs(fromSecond);
  }

  @Test
  void deleteReferencesKeepReferenceOrder() {
    ScanTasks tasks = this.parser.scanTasks(
        bytes(with(TASKS, "/file-scan-tasks/0/delete-file-references", "[1, 0]")), HANDLE);

    assertThat(tasks.fileScanTasks().get(0).deleteFiles()).extracting(DeleteFile::content)
        .containsExactly(FileContent.EQUALITY_DELETES, FileContent.POSITION_DELETES);
  }

  @Test
  void deleteReferencesResolveWithinTheirOwnPayload() {
    String onlyEquality = with(TASKS, "/delete-files/0", REMOVE);
    onlyEquality = with(onlyEquality, "/file-scan-tasks/0/delete-file-references", "[0]");
    onlyEquality = with(onlyEquality, "/file-scan-tasks/1/delete-file-references", "[0]");

    ScanTasks full = this.parser.scanTasks(bytes(TASKS), HANDLE);
    ScanTasks reduced = this.parser.scanTasks(bytes(onlyEquality), "other-handle");

    // Index 0 means the first delete file of each payload, whatever an earlier payload held at 0.
    assertThat(full.fileScanTasks().get(0).deleteFiles().get(0).filePath()).isEqualTo("s3://b/t/data/dv.puffin");
    assertThat(reduced.fileScanTasks().get(0).deleteFiles().get(0).filePath()).isEqualTo("s3://b/t/data/eq.parquet");
    // ... and an index valid in an earlier, larger payload is still out of range in a smaller one.
    String outOfRange = with(onlyEquality, "/file-scan-tasks/1/delete-file-references", "[1]");
    rejectTasks(outOfRange, "file-scan-tasks[1].delete-file-references[0]");
  }

  @Test
  void absentFieldsGiveEmptyOrDefaultValues() {
    ScanTasks empty = this.parser.scanTasks(bytes("{}"), HANDLE);
    assertThat(empty.fileScanTasks()).isEmpty();
    assertThat(empty.planTasks()).isEmpty();

    String minimal = """
        {"file-scan-tasks": [{"data-file": {"content": "data", "file-path": "s3://b/f", "file-format": "orc",
          "spec-id": 3, "partition": [], "file-size-in-bytes": 0, "record-count": 0}}]}
        """;
    FileScanTask task = this.parser.scanTasks(bytes(minimal), HANDLE).fileScanTasks().get(0);
    assertThat(task.deleteFiles()).isEmpty();
    assertThat(task.residualFilter()).isNull();
    DataFile file = task.dataFile();
    assertThat(file.keyMetadata()).isNull();
    assertThat(file.splitOffsets()).isEmpty();
    assertThat(file.sortOrderId()).isNull();
    assertThat(file.firstRowId()).isNull();
    assertThat(file.columnSizes()).isEmpty();
    assertThat(file.lowerBounds()).isEmpty();
  }

  @Test
  void parsesDataFileWithEveryField() {
    String file = """
        {"file-scan-tasks": [{"data-file": {
          "content": "data", "file-path": "s3://b/t/data/p=1/f.parquet", "file-format": "parquet", "spec-id": 2,
          "partition": ["a", 7, 9223372036854775807, 2.5, true, null, 3.0],
          "file-size-in-bytes": 9007199254740993, "record-count": 1234,
          "key-metadata": "0a1bFf", "split-offsets": [4, 1048576], "sort-order-id": 1, "first-row-id": 5000,
          "column-sizes": {"keys": [1, 2], "values": [100, 200]},
          "value-counts": {"keys": [1, 2], "values": [10, 20]},
          "null-value-counts": {"keys": [1, 2], "values": [0, 1]},
          "nan-value-counts": {"keys": [2], "values": [3]},
          "lower-bounds": {"keys": [1, 2, 3, 4, 5], "values": [-5, "abc", 0.5, false, 1.0]},
          "upper-bounds": {"keys": [1, 2], "values": [99, "xyz"]}
        }}]}
        """;
    DataFile dataFile = this.parser.scanTasks(bytes(file), HANDLE).fileScanTasks().get(0).dataFile();

    assertThat(dataFile).isEqualTo(new DataFile("s3://b/t/data/p=1/f.parquet", FileFormat.PARQUET, 2,
        Arrays.asList("a", 7L, Long.MAX_VALUE, 2.5, true, null, 3.0), 9007199254740993L, 1234L, "0A1BFF",
        List.of(4L, 1048576L), 1, 5000L, Map.of(1, 100L, 2, 200L), Map.of(1, 10L, 2, 20L), Map.of(1, 0L, 2, 1L),
        Map.of(2, 3L), Map.of(1, -5L, 2, "abc", 3, 0.5, 4, false, 5, 1.0), Map.of(1, 99L, 2, "xyz")));
    assertThat(dataFile.partition().get(1)).isInstanceOf(Long.class);
    assertThat(dataFile.partition().get(3)).isInstanceOf(Double.class);
    assertThat(dataFile.partition().get(6)).as("a whole decimal stays a decimal").isInstanceOf(Double.class);
    assertThat(dataFile.lowerBounds().get(5)).isInstanceOf(Double.class);
    assertThat(dataFile.content()).isEqualTo(FileContent.DATA);
  }

  @Test
  void statsMapsAreUnmodifiableAndKeysNeedNoOrder() {
    String stats = with(TASKS, "/file-scan-tasks/0/data-file/column-sizes", """
        {"keys": [9, 2, 5], "values": [90, 20, 50]}""");
    DataFile file = this.parser.scanTasks(bytes(stats), HANDLE).fileScanTasks().get(0).dataFile();

    assertThat(file.columnSizes()).isEqualTo(Map.of(2, 20L, 5, 50L, 9, 90L));
    assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(() -> file.columnSizes().put(1, 1L));
    // The record copies a caller's map once and keeps a map that is already an unmodifiable copy.
    Map<Integer, Long> mutable = new HashMap<>(Map.of(1, 10L));
    DataFile copied = withColumnSizes(file, mutable);
    mutable.put(2, 20L);
    assertThat(copied.columnSizes()).isEqualTo(Map.of(1, 10L));
    assertThat(withColumnSizes(file, file.columnSizes()).columnSizes()).isSameAs(file.columnSizes());
  }

  private static DataFile withColumnSizes(DataFile file, Map<Integer, Long> columnSizes) {
    return new DataFile(file.filePath(), file.fileFormat(), file.specId(), file.partition(), file.fileSizeInBytes(),
        file.recordCount(), file.keyMetadata(), file.splitOffsets(), file.sortOrderId(), file.firstRowId(),
        columnSizes, file.valueCounts(), file.nullValueCounts(), file.nanValueCounts(), file.lowerBounds(),
        file.upperBounds());
  }

  @Test
  void parsesV2PositionDeleteFile() {
    String body = with(TASKS, "/delete-files/0", """
        {"content": "position-deletes", "file-path": "s3://b/t/data/pos.parquet", "file-format": "parquet",
         "spec-id": 1, "partition": [4], "file-size-in-bytes": 800, "record-count": 12, "sort-order-id": 0,
         "split-offsets": [4], "key-metadata": "ab", "referenced-data-file": "s3://b/t/data/f0.parquet"}
        """);
    DeleteFile delete = this.parser.scanTasks(bytes(body), HANDLE).fileScanTasks().get(0).deleteFiles().get(0);

    assertThat(delete).isEqualTo(new DeleteFile(FileContent.POSITION_DELETES, "s3://b/t/data/pos.parquet",
        FileFormat.PARQUET, 1, List.of(4L), 800, 12, "AB", List.of(4L), 0, List.of(), "s3://b/t/data/f0.parquet",
        null, null));
    assertThat(delete.isDeletionVector()).isFalse();
  }

  @Test
  void parsesEqualityDeleteFile() {
    DeleteFile delete = this.parser.scanTasks(bytes(TASKS), HANDLE).fileScanTasks().get(1).deleteFiles().get(0);

    assertThat(delete).isEqualTo(new DeleteFile(FileContent.EQUALITY_DELETES, "s3://b/t/data/eq.parquet",
        FileFormat.PARQUET, 0, List.of(), 500, 7, null, List.of(), null, List.of(1, 2), null, null, null));
  }

  @Test
  void twoDeletionVectorsInOnePuffinFileStayDistinct() {
    String body = with(TASKS, "/delete-files/1", """
        {"content": "position-deletes", "file-path": "s3://b/t/data/dv.puffin", "file-format": "puffin",
         "spec-id": 0, "partition": [], "file-size-in-bytes": 1000, "record-count": 5,
         "content-offset": 64, "content-size-in-bytes": 50, "referenced-data-file": "s3://b/t/data/f1.parquet"}
        """);
    body = with(body, "/file-scan-tasks/0/delete-file-references", "[0]");
    body = with(body, "/file-scan-tasks/1/delete-file-references", "[1]");
    ScanTasks tasks = this.parser.scanTasks(bytes(body), HANDLE);

    DeleteFile first = tasks.fileScanTasks().get(0).deleteFiles().get(0);
    DeleteFile second = tasks.fileScanTasks().get(1).deleteFiles().get(0);
    assertThat(first.filePath()).isEqualTo(second.filePath());
    assertThat(first.isDeletionVector()).isTrue();
    assertThat(second.isDeletionVector()).isTrue();
    assertThat(first.contentOffset()).isEqualTo(4L);
    assertThat(first.contentSizeInBytes()).isEqualTo(60L);
    assertThat(second.contentOffset()).isEqualTo(64L);
    assertThat(second.contentSizeInBytes()).isEqualTo(50L);
    assertThat(first).isNotEqualTo(second);
    assertThat(Set.of(first, second)).hasSize(2);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      data             | /file-scan-tasks/0/data-file/content | DATA
      DATA             | /file-scan-tasks/0/data-file/content | DATA
      Data             | /file-scan-tasks/0/data-file/content | DATA
      position-deletes | /delete-files/0/content              | POSITION_DELETES
      POSITION_DELETES | /delete-files/0/content              | POSITION_DELETES
      Position_Deletes | /delete-files/0/content              | POSITION_DELETES
      position_deletes | /delete-files/0/content              | POSITION_DELETES
      equality-deletes | /delete-files/1/content              | EQUALITY_DELETES
      EQUALITY_DELETES | /delete-files/1/content              | EQUALITY_DELETES
      EQUALITY-DELETES | /delete-files/1/content              | EQUALITY_DELETES
      """)
  void acceptsKebabAndUpperCaseContent(String sent, String pointer, FileContent expected) {
    ScanTasks tasks = this.parser.scanTasks(bytes(with(TASKS, pointer, quoted(sent))), HANDLE);

    FileScanTask task = tasks.fileScanTasks().get(0);
    FileContent parsed = pointer.startsWith("/file-scan-tasks")
        ? task.dataFile().content()
        : task.deleteFiles().get(Integer.parseInt(pointer.split("/")[2])).content();
    assertThat(parsed).isEqualTo(expected);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      parquet | PARQUET
      PARQUET | PARQUET
      Parquet | PARQUET
      avro    | AVRO
      AvRo    | AVRO
      orc     | ORC
      ORC     | ORC
      puffin  | PUFFIN
      PUFFIN  | PUFFIN
      """)
  void acceptsFileFormatsInAnyCase(String sent, FileFormat expected) {
    ScanTasks dataTasks = this.parser.scanTasks(
        bytes(with(TASKS, "/file-scan-tasks/0/data-file/file-format", quoted(sent))), HANDLE);
    ScanTasks deleteTasks = this.parser.scanTasks(
        bytes(with(TASKS, "/delete-files/1/file-format", quoted(sent))), HANDLE);

    assertThat(dataTasks.fileScanTasks().get(0).dataFile().fileFormat()).isEqualTo(expected);
    assertThat(deleteTasks.fileScanTasks().get(1).deleteFiles().get(0).fileFormat()).isEqualTo(expected);
  }

  @Test
  void toleratesUnknownFieldsEverywhere() {
    String body = with(TASKS, "/x-top", "{\"nested\": [1, {\"deep\": null}]}");
    body = with(body, "/file-scan-tasks/0/x-task", "\"t\"");
    body = with(body, "/file-scan-tasks/0/data-file/x-file", "[[1]]");
    body = with(body, "/file-scan-tasks/0/data-file/column-sizes/x-map", "true");
    body = with(body, "/delete-files/0/x-delete", "null");
    // Fields that belong to another kind of file are ignored too, not validated.
    body = with(body, "/delete-files/0/equality-ids", "\"not ids\"");
    body = with(body, "/file-scan-tasks/0/data-file/x-equality-ids", "5");

    ScanTasks strict = this.parser.scanTasks(bytes(TASKS), HANDLE);
    ScanTasks tolerant = this.parser.scanTasks(bytes(body), HANDLE);

    assertThat(tolerant).isEqualTo(strict);
  }

  @Test
  void keepsPlanTasksInOrderWithDuplicates() {
    ScanTasks tasks = this.parser.scanTasks(bytes("{\"plan-tasks\": [\"z\", \"a\", \"z\", \"m\"]}"), HANDLE);

    assertThat(tasks.planTasks()).containsExactly("z", "a", "z", "m");
  }

  // ---- residual filters ---------------------------------------------------------------------------

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "<none>", textBlock = """
      <remove>                                              | <none>
      null                                                  | <none>
      true                                                  | true
      false                                                 | false
      { "type" : "lt" , "term" : "id" , "value" : 10 }      | {"type":"lt","term":"id","value":10}
      {"type": "lt", "term": "d", "value": 123456789012345678.91} | {"type":"lt","term":"d","value":123456789012345678.91}
      {"type": "in", "term": "x", "values": [1e400, 0.10]}  | {"type":"in","term":"x","values":[1E+400,0.10]}
      {"type": "and", "left": true, "right": {"type": "not-null", "term": "a"}} | {"type":"and","left":true,"right":{"type":"not-null","term":"a"}}
      """)
  void keepsResidualAsCompactJsonOrLeavesItUnset(String sent, @Nullable String expected) {
    String body = with(TASKS, "/file-scan-tasks/0/residual-filter", sent);

    ScanTasks tasks = this.parser.scanTasks(bytes(body), HANDLE);

    assertThat(tasks.fileScanTasks().get(0).residualFilter()).isEqualTo(expected);
  }

  @Test
  void residualStaysCompactWithAPrettyPrintingMapper() {
    JsonMapper pretty = JsonMapper.builder().enable(SerializationFeature.INDENT_OUTPUT).build();

    ScanTasks tasks = new Parsers(pretty).scanTasks(bytes(TASKS), HANDLE);

    assertThat(tasks.fileScanTasks().get(0).residualFilter()).isEqualTo("{\"type\":\"gt\",\"term\":\"id\",\"value\":5}");
  }

  @Test
  void acceptsResidualNestedWithinTheParserLimit() {
    String nested = "{\"type\":\"not\",\"child\":".repeat(200) + "true" + "}".repeat(200);

    ScanTasks tasks = this.parser.scanTasks(bytes(with(TASKS, "/file-scan-tasks/0/residual-filter", nested)),
        HANDLE);

    assertThat(tasks.fileScanTasks().get(0).residualFilter()).isEqualTo(nested);
  }

  // ---- task lists ---------------------------------------------------------------------------------

  @ParameterizedTest
  @ValueSource(strings = {"plan-tasks", "file-scan-tasks", "delete-files"})
  void rejectsExplicitNullTaskList(String name) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/" + name, "null"), name);
    assertThat(ex.getMessage()).contains("explicit null for a task list");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      plan-tasks      | "pt-a"
      plan-tasks      | {}
      file-scan-tasks | {"data-file": {}}
      file-scan-tasks | 3
      delete-files    | true
      delete-files    | {"0": {}}
      """)
  void rejectsTaskListOfWrongType(String name, String value) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/" + name, value), name);
    assertThat(ex.getMessage()).contains("expected an array");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      5    | plan-tasks[1]
      ""   | plan-tasks[1]
      null | plan-tasks[1]
      []   | plan-tasks[1]
      """)
  void rejectsPlanTaskThatIsNotANonEmptyString(String value, String field) {
    rejectTasks(with(TASKS, "/plan-tasks/1", value), field);
  }

  @ParameterizedTest
  @ValueSource(strings = {REMOVE, "[]"})
  void rejectsDeleteFilesWithoutFileScanTasks(String fileScanTasks) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/file-scan-tasks", fileScanTasks), "delete-files");
    assertThat(ex.getMessage()).contains("delete files without file scan tasks");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      /file-scan-tasks/1 | 5    | file-scan-tasks[1]
      /file-scan-tasks/1 | null | file-scan-tasks[1]
      /delete-files/0    | "x"  | delete-files[0]
      /delete-files/1    | []   | delete-files[1]
      """)
  void rejectsListEntryThatIsNotAnObject(String pointer, String value, String field) {
    rejectTasks(with(TASKS, pointer, value), field);
  }

  @ParameterizedTest
  @ValueSource(strings = {REMOVE, "null", "\"s3://b/f.parquet\"", "[]", "7"})
  void rejectsTaskWithoutADataFile(String value) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/file-scan-tasks/1/data-file", value),
        "file-scan-tasks[1].data-file");
    assertThat(ex.getMessage()).contains("task without a data file");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      [2]       | file-scan-tasks[0].delete-file-references[0] | out of range
      [0, -1]   | file-scan-tasks[0].delete-file-references[1] | out of range
      [0, 1, 0] | file-scan-tasks[0].delete-file-references[2] | twice
      [1, 1]    | file-scan-tasks[0].delete-file-references[1] | twice
      [0.0]     | file-scan-tasks[0].delete-file-references[0] | expected an integer
      ["0"]     | file-scan-tasks[0].delete-file-references[0] | expected an integer
      [null]    | file-scan-tasks[0].delete-file-references[0] | expected an integer
      [4294967296] | file-scan-tasks[0].delete-file-references[0] | 32 bits
      0         | file-scan-tasks[0].delete-file-references    | expected an array
      """)
  void rejectsBadDeleteFileReferences(String references, String field, String message) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/file-scan-tasks/0/delete-file-references", references),
        field);
    assertThat(ex.getMessage()).contains(message);
  }

  // ---- content files ------------------------------------------------------------------------------

  static Stream<Arguments> requiredContentFileFields() {
    List<Arguments> arguments = new ArrayList<>();
    for (String name : List.of("spec-id", "partition", "content", "file-path", "file-format", "file-size-in-bytes",
        "record-count")) {
      arguments.add(Arguments.of("/file-scan-tasks/0/data-file/" + name, "file-scan-tasks[0].data-file." + name));
      arguments.add(Arguments.of("/delete-files/0/" + name, "delete-files[0]." + name));
      arguments.add(Arguments.of("/delete-files/1/" + name, "delete-files[1]." + name));
    }
    return arguments.stream();
  }

  @ParameterizedTest
  @MethodSource("requiredContentFileFields")
  void rejectsMissingRequiredContentFileField(String pointer, String field) {
    rejectTasks(with(TASKS, pointer, REMOVE), field);
    rejectTasks(with(TASKS, pointer, "null"), field);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      /file-scan-tasks/0/data-file/spec-id            | 1.5                  | spec-id
      /file-scan-tasks/0/data-file/spec-id            | 1.0                  | spec-id
      /file-scan-tasks/0/data-file/spec-id            | 1e2                  | spec-id
      /file-scan-tasks/0/data-file/spec-id            | "12"                 | spec-id
      /file-scan-tasks/0/data-file/spec-id            | true                 | spec-id
      /file-scan-tasks/0/data-file/spec-id            | 2147483648           | spec-id
      /file-scan-tasks/0/data-file/spec-id            | -2147483649          | spec-id
      /file-scan-tasks/0/data-file/record-count       | 1.5                  | record-count
      /file-scan-tasks/0/data-file/record-count       | "12"                 | record-count
      /file-scan-tasks/0/data-file/record-count       | false                | record-count
      /file-scan-tasks/0/data-file/record-count       | 9223372036854775808  | record-count
      /file-scan-tasks/0/data-file/record-count       | -1                   | record-count
      /file-scan-tasks/0/data-file/record-count       | []                   | record-count
      /file-scan-tasks/0/data-file/file-size-in-bytes | -1                   | file-size-in-bytes
      /file-scan-tasks/0/data-file/file-size-in-bytes | 4096.0               | file-size-in-bytes
      /file-scan-tasks/0/data-file/file-size-in-bytes | 18446744073709551616 | file-size-in-bytes
      /file-scan-tasks/0/data-file/sort-order-id      | 2147483648           | sort-order-id
      /file-scan-tasks/0/data-file/sort-order-id      | "1"                  | sort-order-id
      /file-scan-tasks/0/data-file/sort-order-id      | 0.5                  | sort-order-id
      /file-scan-tasks/0/data-file/first-row-id       | -1                   | first-row-id
      /file-scan-tasks/0/data-file/first-row-id       | 1.5                  | first-row-id
      /file-scan-tasks/0/data-file/first-row-id       | "5"                  | first-row-id
      /file-scan-tasks/0/data-file/first-row-id       | 9223372036854775808  | first-row-id
      /file-scan-tasks/0/data-file/split-offsets      | "4"                  | split-offsets
      /file-scan-tasks/0/data-file/split-offsets      | {}                   | split-offsets
      /file-scan-tasks/0/data-file/split-offsets/0    | -4                   | split-offsets[0]
      /file-scan-tasks/0/data-file/split-offsets/0    | 4.5                  | split-offsets[0]
      /file-scan-tasks/0/data-file/split-offsets/0    | null                 | split-offsets[0]
      """)
  void rejectsDataFileNumbersThatAreNotIntegersInRange(String pointer, String value, String field) {
    rejectTasks(with(TASKS, pointer, value), "file-scan-tasks[0].data-file." + field);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      /delete-files/0/content-offset        | -1          | delete-files[0].content-offset
      /delete-files/0/content-offset        | 4.0         | delete-files[0].content-offset
      /delete-files/0/content-size-in-bytes | -1          | delete-files[0].content-size-in-bytes
      /delete-files/0/content-size-in-bytes | "60"        | delete-files[0].content-size-in-bytes
      /delete-files/0/spec-id               | 2147483648  | delete-files[0].spec-id
      /delete-files/0/record-count          | -3          | delete-files[0].record-count
      /delete-files/1/equality-ids          | [1, 1.5]    | delete-files[1].equality-ids[1]
      /delete-files/1/equality-ids          | [2147483648] | delete-files[1].equality-ids[0]
      /delete-files/1/equality-ids          | [1, 2.0]    | delete-files[1].equality-ids[1]
      /delete-files/1/equality-ids          | [null]      | delete-files[1].equality-ids[0]
      /delete-files/1/equality-ids          | "1,2"       | delete-files[1].equality-ids
      """)
  void rejectsDeleteFileNumbersThatAreNotIntegersInRange(String pointer, String value, String field) {
    rejectTasks(with(TASKS, pointer, value), field);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      [[1]]                  | partition[0]
      ["a", {"v": 1}]        | partition[1]
      [18446744073709551616] | partition[0]
      [1e400]                | partition[0]
      "p=1"                  | partition
      {}                     | partition
      """)
  void rejectsPartitionValuesThatAreNotPrimitives(String value, String field) {
    rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/partition", value), "file-scan-tasks[0].data-file." + field);
    rejectTasks(with(TASKS, "/delete-files/1/partition", value), "delete-files[1]." + field);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      file-path    | ""
      file-path    | 5
      file-path    | ["s3://b/f"]
      file-format  | "csv"
      file-format  | ""
      file-format  | 1
      content      | "deletes"
      content      | "position deletes"
      content      | ""
      content      | 0
      key-metadata | "abc"
      key-metadata | "zz"
      key-metadata | "0x1f"
      key-metadata | 12
      """)
  void rejectsBadContentFileStrings(String name, String value) {
    rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/" + name, value), "file-scan-tasks[0].data-file." + name);
    rejectTasks(with(TASKS, "/delete-files/0/" + name, value), "delete-files[0]." + name);
  }

  @Test
  void normalisesKeyMetadataToUpperCase() {
    ScanTasks tasks = this.parser.scanTasks(
        bytes(with(TASKS, "/file-scan-tasks/0/data-file/key-metadata", "\"00aBcDeF\"")), HANDLE);

    assertThat(tasks.fileScanTasks().get(0).dataFile().keyMetadata()).isEqualTo("00ABCDEF");
  }

  @ParameterizedTest
  @ValueSource(strings = {"position-deletes", "equality-deletes", "POSITION_DELETES"})
  void rejectsDataFileWhoseContentIsNotData(String content) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/content", quoted(content)),
        "file-scan-tasks[0].data-file.content");
    assertThat(ex.getMessage()).contains("must have content 'data'");
  }

  @ParameterizedTest
  @ValueSource(strings = {"data", "DATA"})
  void rejectsDeleteFileWhoseContentIsData(String content) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/delete-files/0/content", quoted(content)),
        "delete-files[0].content");
    assertThat(ex.getMessage()).contains("cannot have content 'data'");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      column-sizes      | {"keys": [1, 2], "values": [10]}           | column-sizes             | 2 keys but 1 values
      column-sizes      | {"keys": [1]}                              | column-sizes             | 1 keys but 0 values
      column-sizes      | {"values": [1]}                            | column-sizes             | 0 keys but 1 values
      column-sizes      | {"keys": [1, 1], "values": [10, 20]}       | column-sizes.keys[1]     | duplicate key
      column-sizes      | {"keys": [5, 2, 7, 2], "values": [1, 2, 3, 4]} | column-sizes.keys[3] | duplicate key 2
      column-sizes      | {"keys": [3, 4, 9, 4], "values": [1, 2, 3, 4]} | column-sizes.keys[3] | duplicate key 4
      column-sizes      | {"keys": [null], "values": [10]}           | column-sizes.keys[0]     | expected an integer
      column-sizes      | {"keys": ["1"], "values": [10]}            | column-sizes.keys[0]     | expected an integer
      column-sizes      | {"keys": [1.0], "values": [10]}            | column-sizes.keys[0]     | expected an integer
      column-sizes      | {"keys": [1], "values": [10.0]}            | column-sizes.values[0]   | expected an integer
      column-sizes      | {"keys": [1], "values": [null]}            | column-sizes.values[0]   | expected an integer
      column-sizes      | {"keys": [1], "values": [-1]}              | column-sizes.values[0]   | negative
      column-sizes      | {"keys": 1, "values": [1]}                 | column-sizes.keys        | expected an array
      column-sizes      | [1, 10]                                    | column-sizes             | expected an object
      value-counts      | {"keys": [1, 2], "values": [5, -2]}        | value-counts.values[1]   | negative
      null-value-counts | {"keys": [1], "values": [-9]}              | null-value-counts.values[0] | negative
      nan-value-counts  | {"keys": [3], "values": [1.5]}             | nan-value-counts.values[0]  | expected an integer
      nan-value-counts  | {"keys": [3, 3], "values": [1, 1]}         | nan-value-counts.keys[1]    | duplicate key
      lower-bounds      | {"keys": [1], "values": [[1]]}             | lower-bounds.values[0]   | primitive
      lower-bounds      | {"keys": [1], "values": [null]}            | lower-bounds.values[0]   | null value
      lower-bounds      | {"keys": [1, 1], "values": ["a", "b"]}     | lower-bounds.keys[1]     | duplicate key
      lower-bounds      | {"keys": [1, 2], "values": ["a"]}          | lower-bounds             | 2 keys but 1 values
      upper-bounds      | {"keys": [1], "values": [{"v": 1}]}        | upper-bounds.values[0]   | primitive
      upper-bounds      | {"keys": [null], "values": [1]}            | upper-bounds.keys[0]     | expected an integer
      """)
  void rejectsMalformedStatsMaps(String name, String value, String field, String message) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/" + name, value),
        "file-scan-tasks[0].data-file." + field);
    assertThat(ex.getMessage()).contains(message);
  }

  @Test
  void rejectsContentOffsetWithoutContentSize() {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/delete-files/0/content-size-in-bytes", REMOVE),
        "delete-files[0].content-size-in-bytes");
    assertThat(ex.getMessage()).contains("required with content-offset");
  }

  @Test
  void acceptsContentSizeWithoutContentOffset() {
    ScanTasks tasks = this.parser.scanTasks(bytes(with(TASKS, "/delete-files/0/content-offset", REMOVE)), HANDLE);

    DeleteFile delete = tasks.fileScanTasks().get(0).deleteFiles().get(0);
    assertThat(delete.contentOffset()).isNull();
    assertThat(delete.contentSizeInBytes()).isEqualTo(60L);
  }

  @ParameterizedTest
  @ValueSource(strings = {"5", "[]", "{}", "false"})
  void rejectsReferencedDataFileThatIsNotAString(String value) {
    rejectTasks(with(TASKS, "/delete-files/0/referenced-data-file", value), "delete-files[0].referenced-data-file");
  }

  @ParameterizedTest
  @ValueSource(strings = {REMOVE, "null", "[]"})
  void rejectsEqualityDeleteWithoutEqualityIds(String value) {
    MalformedResponseException ex = rejectTasks(with(TASKS, "/delete-files/1/equality-ids", value),
        "delete-files[1].equality-ids");
    assertThat(ex.getMessage()).contains("equality");
  }

  // ---- plan results -------------------------------------------------------------------------------

  @Test
  void parsesCompletedPlanWithTasksAndCredentials() {
    PlanningResult result = this.parser.planResult(bytes(COMPLETED), true);

    assertThat(result.status()).isEqualTo(PlanStatus.COMPLETED);
    assertThat(result.planId()).isEqualTo("plan-1");
    assertThat(result.error()).isNull();
    assertThat(result.tasks().planTasks()).containsExactly("pt-a");
    assertThat(result.tasks().fileScanTasks()).singleElement().satisfies(task -> {
      assertThat(task.deleteFiles()).extracting(DeleteFile::filePath).containsExactly("s3://b/t/data/d.parquet");
      assertThat(task.residualFilter()).isNull();
    });
    assertThat(result.storageCredentials()).containsExactly(
        new StorageCredential("s3://b/", Map.of("s3.access-key-id", "AK", "s3.secret-access-key", "SK")),
        new StorageCredential("s3://b/t/", Map.of()));
  }

  @Test
  void acceptsCompletedSubmissionWithoutPlanId() {
    PlanningResult result = this.parser.planResult(bytes(with(COMPLETED, "/plan-id", REMOVE)), true);

    assertThat(result.status()).isEqualTo(PlanStatus.COMPLETED);
    assertThat(result.planId()).isNull();
  }

  @Test
  void completedPlanWithoutCredentialsHasNone() {
    PlanningResult absent = this.parser.planResult(bytes(with(COMPLETED, "/storage-credentials", REMOVE)), false);
    PlanningResult explicitNull = this.parser.planResult(
        bytes(with(COMPLETED, "/storage-credentials", "null")), false);

    assertThat(absent.storageCredentials()).isEmpty();
    assertThat(explicitNull.storageCredentials()).isEmpty();
  }

  @Test
  void tasksOfACompletedPlanAreCheckedWithoutAPlanTask() {
    MalformedResponseException ex = malformed(() -> this.parser.planResult(
        bytes(with(COMPLETED, "/file-scan-tasks/0/data-file/record-count", "-5")), true));

    assertThat(ex.field()).isEqualTo("file-scan-tasks[0].data-file.record-count");
    assertThat(ex.planTask()).isNull();
    assertThat(ex.getMessage()).doesNotContain("plan task");
    assertThat(rejectPlan(with(COMPLETED, "/delete-files", "null"), false, "delete-files").getMessage())
        .contains("explicit null for a task list");
    assertThat(rejectPlan(with(COMPLETED, "/file-scan-tasks", REMOVE), false, "delete-files").getMessage())
        .contains("delete files without file scan tasks");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      {"status": "completed", "plan-id": "p"} | true  | COMPLETED
      {"status": "COMPLETED"}                 | false | COMPLETED
      {"status": "submitted", "plan-id": "p"} | true  | SUBMITTED
      {"status": "Submitted", "plan-id": "p"} | false | SUBMITTED
      {"status": "cancelled"}                 | false | CANCELLED
      {"status": "CANCELLED", "plan-id": "p"} | false | CANCELLED
      {"status": "failed"}                    | true  | FAILED
      {"status": "FAILED", "plan-id": "p"}    | false | FAILED
      """)
  void acceptsEveryStatusInAnyCase(String body, boolean fromSubmit, PlanStatus expected) {
    PlanningResult result = this.parser.planResult(bytes(body), fromSubmit);

    assertThat(result.status()).isEqualTo(expected);
    assertThat(result.tasks()).isEqualTo(ScanTasks.EMPTY);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      {"plan-id": "p"}
      {"status": null, "plan-id": "p"}
      {"status": "done", "plan-id": "p"}
      {"status": "", "plan-id": "p"}
      {"status": 1, "plan-id": "p"}
      {"status": ["completed"], "plan-id": "p"}
      """)
  void rejectsMissingOrUnknownStatus(String body) {
    rejectPlan(body, true, "status");
    rejectPlan(body, false, "status");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      {"status": "submitted"}                  | true
      {"status": "submitted", "plan-id": null} | true
      {"status": "submitted", "plan-id": ""}   | false
      {"status": "submitted", "plan-id": 12}   | true
      {"status": "completed", "plan-id": ""}   | true
      {"status": "failed", "plan-id": []}      | false
      """)
  void rejectsMissingOrInvalidPlanId(String body, boolean fromSubmit) {
    rejectPlan(body, fromSubmit, "plan-id");
  }

  @ParameterizedTest
  @ValueSource(strings = { "..", ".", "../../namespaces/other", "a/b", "a\\b", "a%2Fb", "a%2fb", "%2E%2E", "a\nb" })
  void rejectsPlanIdsThatCouldChangeTheRequestPath(String planId) {
    String body = "{\"status\": \"submitted\", \"plan-id\": " + JsonMapper.builder().build().writeValueAsString(planId)
        + "}";
    rejectPlan(body, true, "plan-id");
    rejectPlan(body, false, "plan-id");
  }

  @Test
  void aPollsSubmittedAnswerNeedsNoPlanId() {
    assertThat(this.parser.planResult(bytes("{\"status\": \"submitted\"}"), false).planId()).isNull();
  }

  @Test
  void rejectsCancelledAsAnswerToSubmission() {
    MalformedResponseException ex = rejectPlan("{\"status\": \"cancelled\", \"plan-id\": \"p\"}", true, "status");
    assertThat(ex.getMessage()).contains("cancelled");

    assertThat(this.parser.planResult(bytes("{\"status\": \"cancelled\", \"plan-id\": \"p\"}"), false).planId())
        .isEqualTo("p");
  }

  static Stream<Arguments> taskFieldsOnUnfinishedPlans() {
    List<Arguments> arguments = new ArrayList<>();
    for (String status : List.of("submitted", "cancelled", "failed")) {
      for (String field : List.of("plan-tasks", "file-scan-tasks", "delete-files")) {
        for (String value : List.of("[]", "[\"x\"]")) {
          arguments.add(Arguments.of(status, field, value));
        }
      }
    }
    return arguments.stream();
  }

  @ParameterizedTest
  @MethodSource("taskFieldsOnUnfinishedPlans")
  void rejectsTaskFieldsUnlessCompleted(String status, String field, String value) {
    String body = "{\"status\": \"" + status + "\", \"plan-id\": \"p\", \"" + field + "\": " + value + "}";

    MalformedResponseException ex = rejectPlan(body, false, field);
    assertThat(ex.getMessage()).contains(status);
    if (!status.equals("cancelled")) {
      rejectPlan(body, true, field);
    }
  }

  @Test
  void parsesErrorOfFailedPlanLeniently() {
    PlanningResult withError = this.parser.planResult(bytes("""
        {"status": "failed", "error": {"message": "boom", "type": "ValidationException", "code": 400,
         "stack": ["a", "b"], "x-extra": 1}}
        """), true);
    PlanningResult withoutError = this.parser.planResult(bytes("{\"status\": \"failed\"}"), false);
    PlanningResult oddError = this.parser.planResult(bytes("{\"status\": \"failed\", \"error\": \"boom\"}"), false);
    PlanningResult oddFields = this.parser.planResult(
        bytes("{\"status\": \"failed\", \"error\": {\"message\": 5, \"type\": null, \"code\": 4.5}}"), false);

    assertThat(withError.error()).isEqualTo(new ErrorBody("boom", "ValidationException", 400));
    assertThat(withError.tasks()).isEqualTo(ScanTasks.EMPTY);
    assertThat(withoutError.error()).isNull();
    assertThat(oddError.error()).isNull();
    assertThat(oddFields.error()).isEqualTo(new ErrorBody(null, null, null));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      {}                                                    | storage-credentials
      "s3://b/"                                             | storage-credentials
      [5]                                                   | storage-credentials[0]
      [null]                                                | storage-credentials[0]
      [{"config": {}}]                                      | storage-credentials[0].prefix
      [{"prefix": 5, "config": {}}]                         | storage-credentials[0].prefix
      [{"prefix": "s3://b/"}]                               | storage-credentials[0].config
      [{"prefix": "s3://b/", "config": []}]                 | storage-credentials[0].config
      [{"prefix": "s3://b/", "config": {"k": 5}}]           | storage-credentials[0].config.k
      [{"prefix": "s3://b/", "config": {"k": null}}]        | storage-credentials[0].config.k
      """)
  void rejectsMisshapenStorageCredentials(String value, String field) {
    rejectPlan(with(COMPLETED, "/storage-credentials", value), true, field);
  }

  // ---- config -------------------------------------------------------------------------------------

  @Test
  void parsesConfigAndToleratesOddEndpointEntries() {
    CatalogConfig config = this.parser.config(bytes(CONFIG));

    assertThat(config.defaults()).isEqualTo(Map.of("clients", "4", "page-size", "100", "ratio", "1.5", "flag", "true"));
    assertThat(config.overrides()).isEqualTo(Map.of("prefix", "ws", "namespace-separator", "%1F"));
    assertThat(config.endpoints()).as("what is not a method and a path is no endpoint this client calls")
        .containsExactlyInAnyOrder(Endpoint.SUBMIT_PLAN, Endpoint.FETCH_PLAN, Endpoint.FETCH_PLAN_TASKS);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "none", textBlock = """
      "PT30M"  | PT30M
      " PT24H" | PT24H
      "30m"    | none
      "PT0S"   | none
      "-PT1M"  | none
      30       | none
      null     | none
      """)
  void anIdempotencyKeyLifetimeIsReadLeniently(String value, @Nullable String expected) {
    CatalogConfig config = this.parser.config(bytes("{\"idempotency-key-lifetime\": " + value + "}"));

    // anything but a positive duration means no idempotency support, the spec's reading of an absent lifetime
    assertThat(config.idempotencyKeyLifetime()).isEqualTo(expected == null ? null : java.time.Duration.parse(expected));
  }

  @Test
  void configWithoutFieldsHasEmptyMapsAndNoEndpoints() {
    CatalogConfig config = this.parser.config(bytes("{\"x-unknown\": {\"a\": 1}}"));

    assertThat(config.defaults()).isEmpty();
    assertThat(config.overrides()).isEmpty();
    assertThat(config.endpoints()).isNull();
    assertThat(config.idempotencyKeyLifetime()).isNull();
    assertThat(this.parser.config(bytes("{\"endpoints\": null}")).endpoints()).isNull();
    assertThat(this.parser.config(bytes("{\"endpoints\": []}")).endpoints()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      defaults  | []                | defaults
      defaults  | "a=b"             | defaults
      defaults  | null              | defaults
      overrides | 5                 | overrides
      overrides | {"a": {"b": "c"}} | overrides.a
      overrides | {"a": ["b"]}      | overrides.a
      endpoints | "GET /v1/config"  | endpoints
      endpoints | {"GET": "/v1/x"}  | endpoints
      """)
  void rejectsMisshapenConfig(String name, String value, String field) {
    MalformedResponseException ex = malformed(() -> this.parser.config(bytes(with(CONFIG, "/" + name, value))));

    assertThat(ex.field()).isEqualTo(field);
    assertThat(ex.planTask()).isNull();
  }

  // ---- error bodies -------------------------------------------------------------------------------

  @Test
  void parsesErrorBody() {
    ErrorBody error = this.parser.error(bytes("""
        {"error": {"message": "Table does not exist: ns.t", "type": "NoSuchTableException", "code": 404,
         "stack": ["org.apache.iceberg..."]}}
        """));

    assertThat(error).isEqualTo(new ErrorBody("Table does not exist: ns.t", "NoSuchTableException", 404));
  }

  @Test
  void parsesPartialErrorBody() {
    assertThat(this.parser.error(bytes("{\"error\": {\"type\": \"NoSuchPlanIdException\"}}")))
        .isEqualTo(new ErrorBody(null, "NoSuchPlanIdException", null));
    assertThat(this.parser.error(bytes("{\"error\": {\"code\": \"503\", \"message\": [\"x\"]}}")))
        .isEqualTo(new ErrorBody(null, null, 503));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "<html><head><title>500</title></head><body>Internal Server Error</body></html>",
      "{\"error\": {\"type\": \"X\"}", "[]", "null", "\"error\"", "{\"message\": \"x\", \"type\": \"Y\", \"code\": 500}",
      "{\"error\": \"boom\"}", "{\"error\": null}", "{\"error\": [{\"type\": \"X\"}]}"})
  void errorBodyOfAnotherShapeIsNull(String body) {
    assertThat(this.parser.error(bytes(body))).isNull();
  }

  @Test
  void errorBodyNeverThrowsOnDeepNesting() {
    String deep = "{\"error\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}";

    assertThat(this.parser.error(bytes(deep))).isNull();
  }

  // ---- robustness ---------------------------------------------------------------------------------

  @Test
  void parsesLargePayload() {
    int count = 20_000;
    StringBuilder body = new StringBuilder("{\"delete-files\": [");
    body.append("{\"content\": \"position-deletes\", \"file-path\": \"s3://b/d\", \"file-format\": \"parquet\",")
        .append(" \"spec-id\": 0, \"partition\": [], \"file-size-in-bytes\": 1, \"record-count\": 1}],")
        .append(" \"file-scan-tasks\": [");
    for (int i = 0; i < count; i++) {
      body.append(i == 0 ? "" : ",").append("{\"data-file\": {\"content\": \"data\", \"file-path\": \"s3://b/f")
          .append(i).append("\", \"file-format\": \"parquet\", \"spec-id\": 0, \"partition\": [")
          .append(i).append("], \"file-size-in-bytes\": 10, \"record-count\": 1}, \"delete-file-references\": [0]}");
    }
    body.append("]}");

    ScanTasks tasks = this.parser.scanTasks(bytes(body.toString()), HANDLE);

    assertThat(tasks.fileScanTasks()).hasSize(count);
    assertThat(tasks.fileScanTasks().get(count - 1).dataFile().partition()).containsExactly((long) (count - 1));
    assertThat(tasks.fileScanTasks().get(count - 1).deleteFiles().get(0))
        .isSameAs(tasks.fileScanTasks().get(0).deleteFiles().get(0));
  }

  /**
   * Replaces every node of each valid document, in turn, with values of every JSON kind: whatever is sent,
   * the parser answers a value or a MalformedResponseException naming the field, never another exception.
   */
  @Test
  void anyMutationIsParsedOrRejectedWithAField() {
    List<String> replacements = List.of(REMOVE, "null", "\"\"", "\"x\"", "-1", "0", "1.5", "1e400",
        "99999999999999999999", "true", "[]", "{}", "[null]", "[[]]", "[{}]", "[-1]", "[\"\"]",
        "{\"keys\": [1], \"values\": [{}]}");
    List<String> problems = new ArrayList<>();
    Map<String, ThrowingParse> documents = Map.of(
        TASKS, body -> this.parser.scanTasks(body, HANDLE),
        COMPLETED, body -> this.parser.planResult(body, true),
        CONFIG, body -> this.parser.config(body));
    int attempts = 0;
    for (Map.Entry<String, ThrowingParse> document : documents.entrySet()) {
      for (String pointer : pointers(MAPPER.readTree(document.getKey()), "")) {
        for (String replacement : replacements) {
          attempts++;
          String body = with(document.getKey(), pointer, replacement);
          Throwable thrown = catchThrowable(() -> document.getValue().parse(bytes(body)));
          if (thrown == null) {
            continue;
          }
          if (!(thrown instanceof MalformedResponseException malformed)) {
            problems.add(pointer + " := " + replacement + " threw " + thrown);
          }
          else if (malformed.field() == null) {
            problems.add(pointer + " := " + replacement + " rejected without a field: " + malformed.getMessage());
          }
        }
      }
    }

    assertThat(attempts).isGreaterThan(1000);
    assertThat(problems).isEmpty();
  }

  // ---- answers that may carry secrets ----------------------------------------------------------------

  private static final String SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRET";

  /**
   * Jackson's message quotes the text where the JSON broke, which in these answers may be a secret: the rejection
   * says in words of its own what broke, at which line and column, and inside which member, and has no cause,
   * whose message would quote the text all the same.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenAnswersThatMayCarrySecrets")
  void aBrokenAnswerThatMayCarrySecretsSaysWhatBrokeAndWhereButQuotesNothing(String answer, ThrowingParse parse,
      String body, @Nullable String field, String problem) {
    MalformedResponseException ex = malformed(() -> parse.parse(bytes(body)));

    assertThat(ex.getMessage()).doesNotContain(SECRET).endsWith("body is not valid JSON (" + problem);
    assertThat(ex.field()).isEqualTo(field);
    assertThat(ex.getCause()).isNull();
  }

  static Stream<Arguments> brokenAnswersThatMayCarrySecrets() {
    ConfigParser config = new ConfigParser(MAPPER);
    LoadTableParser tables = new LoadTableParser(MAPPER);
    PlanResultParser plans = new PlanResultParser(MAPPER);
    String credentials = "\"storage-credentials\": [{\"prefix\": \"s3://b/\", \"config\": {\"s3.secret-access-key\": "
        + SECRET + "}}]";
    return Stream.of(
        Arguments.of("config", (ThrowingParse) config::parse, "{\"defaults\": {\"token\": " + SECRET + "}}",
            "defaults", "an unrecognized token) at line 1, column 24"),
        Arguments.of("config, a secret where a name goes", (ThrowingParse) config::parse,
            "{\"overrides\": {\"" + SECRET + "\"}}", "overrides", "an unexpected character) at line 1, column 52"),
        Arguments.of("table, over lines", (ThrowingParse) tables::table,
            "{\n  \"metadata\": {},\n  \"config\": {\n    \"s3.secret-access-key\": " + SECRET + "\n  }\n}",
            "config", "an unrecognized token) at line 4, column 29"),
        Arguments.of("table, its credentials", (ThrowingParse) tables::table, "{\"metadata\": {}, " + credentials + "}",
            "storage-credentials[0].config", "an unrecognized token) at line 1, column 99"),
        Arguments.of("credentials", (ThrowingParse) tables::credentials, "{" + credentials + "}",
            "storage-credentials[0].config", "an unrecognized token) at line 1, column 83"),
        Arguments.of("credentials, cut short", (ThrowingParse) tables::credentials,
            "{\"storage-credentials\": [{\"prefix\": \"s3://b/\", \"config\": {\"k\": \"" + SECRET,
            "storage-credentials[0].config", "the body ends inside a value) at line 1, column 99"),
        // a break Jackson has no phrase listed for: described as "malformed", its text quoted no more
        Arguments.of("credentials, a bracket closing an object", (ThrowingParse) tables::credentials,
            "{\"storage-credentials\": [{\"prefix\": \"s3://b/\", \"config\": {\"k\": \"" + SECRET + "\"]}]}",
            "storage-credentials[0].config", "malformed) at line 1, column 100"),
        Arguments.of("plan", (ThrowingParse) body -> plans.parse(body, false),
            "{\"status\": \"completed\", \"plan-id\": \"p\", " + credentials + "}",
            "storage-credentials[0].config", "an unrecognized token) at line 1, column 122"));
  }

  /** The answer of a plan of a restricted read is rejected as strictly, naming the handle, and quoting nothing. */
  @Test
  void aTasksAnswerOfARestrictedReadIsRejectedWithoutQuotingIt() {
    String body = "{\"plan-tasks\": [\"pt-a\", " + SECRET + "]}";
    MalformedResponseException quoted = malformed(() -> new ScanTasksParser(MAPPER).parse(bytes(body), "h1", true));
    assertThat(quoted).hasMessageContaining("h1").hasMessageContaining(SECRET);
    MalformedResponseException withheld = malformed(() -> new ScanTasksParser(MAPPER).parse(bytes(body), "h1",
        false));
    assertThat(withheld).hasMessageContaining("h1").hasMessageNotContaining(SECRET)
        .hasMessageContaining("plan-tasks");
    assertThat(withheld.getCause()).isNull();
    assertThat(withheld.planTask()).isEqualTo("h1");
  }

  /**
   * A table's {@code read-restrictions} are handed on as the catalog wrote them, for the reader that knows the schema;
   * absent or null, none. Anything but an object is malformed, and quoted no more than the answer's secrets are.
   */
  @Test
  void readRestrictionsAreHandedOnAsTheirJsonText() {
    LoadTableParser tables = new LoadTableParser(MAPPER);
    String restrictions = "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"mask-alphanum\"}],"
        + "\"required-row-filter\":{\"type\":\"eq\",\"left\":{\"type\":\"reference\",\"id\":4},"
        + "\"right\":{\"type\":\"literal\",\"value\":12.50}}}";
    assertThat(tables.table(bytes("{\"metadata\": {}, \"read-restrictions\": " + restrictions + "}"))
        .readRestrictions()).isEqualTo(restrictions);
    assertThat(tables.table(bytes("{\"metadata\": {}}")).readRestrictions()).isNull();
    assertThat(tables.table(bytes("{\"metadata\": {}, \"read-restrictions\": null}")).readRestrictions()).isNull();
    assertThat(malformed(() -> tables.table(bytes("{\"metadata\": {}, \"read-restrictions\": [\"" + SECRET
        + "\"]}")))).hasMessageEndingWith("expected an object but got an array").hasMessageNotContaining(SECRET)
        .satisfies(ex -> assertThat(((MalformedResponseException) ex).field()).isEqualTo("read-restrictions"));
  }

  /** A number where a container belongs may be a secret too: its kind is named, its digits are not. */
  @Test
  void aRejectionOfAnAnswerThatMayCarrySecretsNamesAValuesKindButNotItsDigits() {
    String digits = "31415926535897932384626433832795";
    assertThat(malformed(() -> new ConfigParser(MAPPER).parse(bytes("{\"defaults\": " + digits + "}"))))
        .hasMessageEndingWith("expected an object but got a number").hasMessageNotContaining(digits);
    LoadTableParser tables = new LoadTableParser(MAPPER);
    assertThat(malformed(() -> tables.table(bytes("{\"metadata\": {}, \"config\": " + digits + "}"))))
        .hasMessageEndingWith("expected an object but got a number").hasMessageNotContaining(digits);
    assertThat(malformed(() -> tables.credentials(bytes("{\"storage-credentials\": [" + digits + "]}"))))
        .hasMessageEndingWith("expected an object but got a number").hasMessageNotContaining(digits);
    assertThat(rejectPlan(with(COMPLETED, "/storage-credentials/0", digits), false, "storage-credentials[0]"))
        .hasMessageEndingWith("expected an object but got a number").hasMessageNotContaining(digits);
    assertThat(rejectPlan(with(COMPLETED, "/status", quoted(SECRET)), false, "status"))
        .hasMessageEndingWith("unknown plan status").hasMessageNotContaining(SECRET);
  }

  /**
   * A plan-task's answer holds no secrets: its rejection adds Jackson's own detail, and keeps Jackson's exception as
   * its cause, beside what every rejection says.
   */
  @Test
  void aBrokenTasksAnswerAlsoQuotesJacksonsOwnDetail() {
    MalformedResponseException ex = rejectTasks("{\"plan-tasks\": [\"pt-a\", pt-b]}", "plan-tasks[1]");
    assertThat(ex.getMessage()).contains("not valid JSON (an unrecognized token) at line 1, column 25",
        "Unrecognized token 'pt'");
    assertThat(ex.getCause()).isInstanceOf(JacksonException.class);
  }

  // ---- helpers ------------------------------------------------------------------------------------

  @FunctionalInterface
  private interface ThrowingParse {
    void parse(byte[] body);
  }

  // ---- what mutation testing found unpinned ---------------------------------------------------------

  /**
   * A rejection says what the value was instead: each JSON kind by its name, a number by its text (but in an answer
   * that may carry secrets, as a plan's, only as a number).
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "[]|an array|an array", "\"x\"|a string|a string", "true|a boolean|a boolean",
      "1.5|the number 1.5|a number", "null|null|null" })
  void aRejectionNamesTheKindOfValueItGot(String value, String kind, String kindInAPlan) {
    assertThat(rejectTasks(with(TASKS, "/file-scan-tasks/0", value), "file-scan-tasks[0]").getMessage())
        .contains("expected an object but got " + kind + " [plan task");
    assertThat(rejectPlan(with(COMPLETED, "/storage-credentials/0", value), false, "storage-credentials[0]")
        .getMessage()).endsWith("expected an object but got " + kindInAPlan);
    assertThat(rejectPlan(with(COMPLETED, "/storage-credentials/0/prefix", "{}"), false,
        "storage-credentials[0].prefix").getMessage()).endsWith("expected a string but got an object");
  }

  /** Texts quoted in a rejection are cut at 200 characters, and one of exactly 200 is quoted whole. */
  @Test
  void aQuotedTextIsCutAfterTwoHundredCharacters() {
    String exactly = "s".repeat(200);
    String format = "/file-scan-tasks/0/data-file/file-format";
    assertThat(rejectTasks(with(TASKS, format, quoted(exactly)), "file-scan-tasks[0].data-file.file-format")
        .getMessage()).contains("'" + exactly + "'");
    assertThat(rejectTasks(with(TASKS, format, quoted(exactly + "t")), "file-scan-tasks[0].data-file.file-format")
        .getMessage()).contains("'" + exactly + "…'");
  }

  @Test
  void integersInListsMustBeIntegers() {
    rejectTasks(with(TASKS, "/delete-files/1/equality-ids/0", "\"1\""), "delete-files[1].equality-ids[0]");
    rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/column-sizes/keys/0", "1.5"),
        "file-scan-tasks[0].data-file.column-sizes.keys[0]");
  }

  @Test
  void countsInListsMustNotBeNegative() {
    assertThat(rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/split-offsets/0", "-1"),
        "file-scan-tasks[0].data-file.split-offsets[0]").getMessage()).contains("must not be negative: -1");
    rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/column-sizes/values/0", "-2"),
        "file-scan-tasks[0].data-file.column-sizes.values[0]");
    assertThat(this.parser.scanTasks(bytes(with(TASKS, "/file-scan-tasks/0/data-file/split-offsets/0", "0")), HANDLE).fileScanTasks().get(0).dataFile().splitOffsets()).containsExactly(0L);
  }

  /** Bounds and partition values that are not integers keep their kind: a decimal stays a decimal. */
  @Test
  void decimalBoundsAndPartitionValuesStayDecimals() {
    String body = with(with(TASKS, "/file-scan-tasks/0/data-file/lower-bounds/values/0", "1.5"),
        "/file-scan-tasks/0/data-file/partition", "[2.5, true]");
    DataFile file = this.parser.scanTasks(bytes(body), HANDLE).fileScanTasks().get(0).dataFile();
    assertThat(file.lowerBounds()).containsEntry(1, 1.5);
    assertThat(file.partition()).containsExactly(2.5, true);
  }

  /** Key metadata is hexadecimal: the characters on either side of 0-9, a-f and A-F are not. */
  @ParameterizedTest
  @ValueSource(strings = { "0/", "0:", "0`", "0g", "0@", "0G" })
  void keyMetadataOutsideTheHexDigitsIsRejected(String keyMetadata) {
    rejectTasks(with(TASKS, "/file-scan-tasks/0/data-file/key-metadata", quoted(keyMetadata)),
        "file-scan-tasks[0].data-file.key-metadata");
  }

  @Test
  void everyHexDigitIsKeyMetadata() {
    DataFile file = this.parser.scanTasks(bytes(with(TASKS, "/file-scan-tasks/0/data-file/key-metadata",
        quoted("0123456789abcdefABCDEF"))), HANDLE).fileScanTasks().get(0).dataFile();
    assertThat(file.keyMetadata()).isEqualTo("0123456789ABCDEFABCDEF");
  }

  /** Keys in order, the fast path, still catch a key written twice in a row. */
  @Test
  void aStatsKeyRepeatedRightAfterItselfIsADuplicate() {
    String body = with(with(TASKS, "/file-scan-tasks/0/data-file/column-sizes/keys", "[3, 3]"),
        "/file-scan-tasks/0/data-file/column-sizes/values", "[1, 2]");
    assertThat(rejectTasks(body, "file-scan-tasks[0].data-file.column-sizes.keys[1]").getMessage())
        .contains("duplicate key 3");
  }

  /** Distinct keys out of order are fine, a key of 0 among them too. */
  @Test
  void distinctStatsKeysOutOfOrderAreAccepted() {
    String body = with(with(TASKS, "/file-scan-tasks/0/data-file/column-sizes/keys", "[5, 1, 0]"),
        "/file-scan-tasks/0/data-file/column-sizes/values", "[1, 2, 3]");
    assertThat(this.parser.scanTasks(bytes(body), HANDLE).fileScanTasks().get(0).dataFile().columnSizes())
        .containsOnly(Map.entry(5, 1L), Map.entry(1, 2L), Map.entry(0, 3L));
  }

  /** A plan id that would start a path elsewhere is refused from its first character on. */
  @ParameterizedTest
  @ValueSource(strings = { "/plan", "\\\\plan" })
  void aPlanIdStartingWithASlashOrBackslashIsRefused(String planId) {
    rejectPlan(with(COMPLETED, "/plan-id", quoted(planId)), true, "plan-id");
  }

  @Test
  void anErrorCodeOfAnotherKindReadsAsNone() {
    assertThat(this.parser.error(bytes("{\"error\": {\"code\": true, \"type\": \"T\"}}")))
        .isEqualTo(new ErrorBody(null, "T", null));
    assertThat(this.parser.error(bytes("{\"error\": {\"code\": \"teapot\", \"type\": \"T\"}}")))
        .isEqualTo(new ErrorBody(null, "T", null));
  }

  private MalformedResponseException rejectTasks(String body, @Nullable String field) {
    MalformedResponseException ex = malformed(() -> this.parser.scanTasks(bytes(body), HANDLE));
    assertThat(ex.field()).as("field of: %s", ex.getMessage()).isEqualTo(field);
    assertThat(ex.planTask()).isEqualTo(HANDLE);
    assertThat(ex.getMessage()).contains("plan task '" + HANDLE + "'");
    return ex;
  }

  private MalformedResponseException rejectPlan(String body, boolean fromSubmit, String field) {
    MalformedResponseException ex = malformed(() -> this.parser.planResult(bytes(body), fromSubmit));
    assertThat(ex.field()).as("field of: %s", ex.getMessage()).isEqualTo(field);
    assertThat(ex.planTask()).isNull();
    return ex;
  }

  private static MalformedResponseException malformed(ThrowingCallable call) {
    Throwable thrown = catchThrowable(call);
    assertThat(thrown).isInstanceOf(MalformedResponseException.class);
    return (MalformedResponseException) thrown;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static String quoted(String text) {
    return "\"" + text + "\"";
  }

  /**
   * The document with the value at a JSON pointer replaced by raw JSON text (or removed). The raw text is
   * spliced in after serialisation, so values Jackson would not round-trip (1e400, 1.0) arrive as written.
   */
  static String with(String json, String pointer, String rawValue) {
    JsonNode root = MAPPER.readTree(json);
    String[] segments = pointer.substring(1).split("/");
    JsonNode parent = root;
    for (int i = 0; i < segments.length - 1; i++) {
      parent = parent.isArray() ? parent.get(Integer.parseInt(segments[i])) : parent.get(segments[i]);
    }
    String last = segments[segments.length - 1];
    if (parent instanceof ArrayNode array) {
      int index = Integer.parseInt(last);
      if (rawValue.equals(REMOVE)) {
        array.remove(index);
      }
      else {
        array.set(index, StringNode.valueOf(PLACEHOLDER));
      }
    }
    else {
      ObjectNode object = (ObjectNode) parent;
      if (rawValue.equals(REMOVE)) {
        object.remove(last);
      }
      else {
        object.set(last, StringNode.valueOf(PLACEHOLDER));
      }
    }
    return MAPPER.writeValueAsString(root).replace("\"" + PLACEHOLDER + "\"", rawValue);
  }

  static List<String> pointers(JsonNode node, String prefix) {
    List<String> pointers = new ArrayList<>();
    if (node.isObject()) {
      for (Map.Entry<String, JsonNode> entry : node.properties()) {
        String pointer = prefix + "/" + entry.getKey();
        pointers.add(pointer);
        pointers.addAll(pointers(entry.getValue(), pointer));
      }
    }
    else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        String pointer = prefix + "/" + i;
        pointers.add(pointer);
        pointers.addAll(pointers(node.get(i), pointer));
      }
    }
    return pointers;
  }
}
