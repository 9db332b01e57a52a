package io.icebergscan.planning.internal.wire;

import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.ContentFile;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;

/**
 * A {@code ScanTasks} answer read straight from Jackson's token stream, without a tree, when it is the common case: a
 * well-formed answer whose every value is of the plain kind (no floats, no numbers past 64 bits). Anything else, and
 * anything {@link ScanTasksParser}'s tree reading would reject, makes it give up ({@code null}), and the body is read
 * again as a tree, which accepts it or names what is wrong with it. So the rejections and their order stay the tree
 * reader's alone; this only has to accept nothing that one rejects, and read alike what both accept, which
 * {@code ScanTasksStreamTest} checks body by body.
 *
 * <p>Fields a kind of file does not read (a data file's {@code equality-ids}) are checked all the same: giving up is
 * always safe, accepting never is.
 */
final class ScanTasksStream {

  /** Unwinds a read that gives up; thrown often enough on odd bodies that it carries no stack. */
  private static final class GiveUp extends RuntimeException {

    private static final long serialVersionUID = 1L;

    GiveUp() {
      super(null, null, false, false);
    }
  }

  private static final GiveUp GIVE_UP = new GiveUp();

  private final ObjectReader reader;
  private final ObjectWriter compactWriter;

  ScanTasksStream(ObjectReader reader, ObjectWriter compactWriter) {
    this.reader = reader;
    this.compactWriter = compactWriter;
  }

  /** The answer, or {@code null} when it is not one this reads: the tree reader decides then. */
  @Nullable ScanTasks read(byte[] body) {
    try (JsonParser in = this.reader.createParser(body)) {
      ScanTasks tasks = root(in);
      // the tree reader fails on trailing tokens
      return in.nextToken() == null ? tasks : null;
    }
    catch (RuntimeException notTheCommonCase) {
      // a GiveUp, a syntax error (JacksonException), or a rule of the model's records: the tree reader names it
      return null;
    }
  }

  /** A task whose delete-file references wait for the answer's delete files, which may come after it. */
  private record PendingTask(DataFile dataFile, int[] references, @Nullable String residual) {
  }

  private ScanTasks root(JsonParser in) {
    expect(in.nextToken(), JsonToken.START_OBJECT);
    List<String> handles = List.of();
    List<PendingTask> pending = List.of();
    List<DeleteFile> deletes = List.of();
    for (JsonToken token = in.nextToken(); token == JsonToken.PROPERTY_NAME; token = in.nextToken()) {
      String name = in.currentName();
      JsonToken value = in.nextToken();
      switch (name) {
        case "plan-tasks" -> handles = list(in, value, ScanTasksStream::nonEmptyString);
        case "file-scan-tasks" -> pending = list(in, value, this::fileScanTask);
        case "delete-files" -> deletes = list(in, value, ScanTasksStream::deleteFile);
        default -> in.skipChildren();
      }
    }
    if (!deletes.isEmpty() && pending.isEmpty()) {
      throw GIVE_UP;
    }
    List<FileScanTask> tasks = new ArrayList<>(pending.size());
    for (PendingTask task : pending) {
      tasks.add(new FileScanTask(task.dataFile(), resolve(task.references(), deletes), task.residual()));
    }
    return new ScanTasks(tasks, handles);
  }

  /** Reads one value, whose first token is {@code token}. */
  @FunctionalInterface
  private interface Value<T> {
    T read(JsonParser in, JsonToken token);
  }

  /** An array, each element read by {@code element}. */
  private static <T> List<T> list(JsonParser in, JsonToken token, Value<T> element) {
    expect(token, JsonToken.START_ARRAY);
    List<T> values = new ArrayList<>();
    for (JsonToken next = in.nextToken(); next != JsonToken.END_ARRAY; next = in.nextToken()) {
      values.add(element.read(in, next));
    }
    return values;
  }

  private static DeleteFile deleteFile(JsonParser in, JsonToken token) {
    if (!(file(in, token) instanceof DeleteFile delete)) {
      throw GIVE_UP;
    }
    return delete;
  }

  private PendingTask fileScanTask(JsonParser in, JsonToken token) {
    expect(token, JsonToken.START_OBJECT);
    DataFile dataFile = null;
    int[] references = new int[0];
    String residual = null;
    for (JsonToken field = in.nextToken(); field == JsonToken.PROPERTY_NAME; field = in.nextToken()) {
      String name = in.currentName();
      JsonToken value = in.nextToken();
      switch (name) {
        case "data-file" -> {
          if (!(file(in, value) instanceof DataFile data)) {
            throw GIVE_UP;
          }
          dataFile = data;
        }
        case "delete-file-references" -> references = value == JsonToken.VALUE_NULL ? new int[0] : ints(in, value);
        case "residual-filter" -> residual = value == JsonToken.VALUE_NULL ? null : compact(in);
        default -> in.skipChildren();
      }
    }
    if (dataFile == null) {
      throw GIVE_UP;
    }
    return new PendingTask(dataFile, references, residual);
  }

  /** References index the answer's own delete files, each at most once per task. */
  private static List<DeleteFile> resolve(int[] references, List<DeleteFile> deletes) {
    List<DeleteFile> applied = new ArrayList<>(references.length);
    for (int i = 0; i < references.length; i++) {
      int index = references[i];
      if (index < 0 || index >= deletes.size()) {
        throw GIVE_UP;
      }
      for (int j = 0; j < i; j++) {
        if (references[j] == index) {
          throw GIVE_UP;
        }
      }
      applied.add(deletes.get(index));
    }
    return applied;
  }

  /**
   * A residual as the tree reader writes it back: compact, through the same writer. Floats give up, since the tree
   * keeps them as big decimals and the token stream as doubles.
   */
  private String compact(JsonParser in) {
    StringWriter text = new StringWriter();
    try (JsonGenerator out = this.compactWriter.createGenerator(text)) {
      int depth = 0;
      JsonToken token = in.currentToken();
      while (true) {
        switch (token) {
          case START_OBJECT -> {
            out.writeStartObject();
            depth++;
          }
          case START_ARRAY -> {
            out.writeStartArray();
            depth++;
          }
          case END_OBJECT -> {
            out.writeEndObject();
            depth--;
          }
          case END_ARRAY -> {
            out.writeEndArray();
            depth--;
          }
          case PROPERTY_NAME -> out.writeName(in.currentName());
          case VALUE_STRING -> out.writeString(in.getString());
          case VALUE_NUMBER_INT -> {
            switch (in.getNumberType()) {
              case INT -> out.writeNumber(in.getIntValue());
              case LONG -> out.writeNumber(in.getLongValue());
              default -> out.writeNumber(in.getBigIntegerValue());
            }
          }
          case VALUE_TRUE -> out.writeBoolean(true);
          case VALUE_FALSE -> out.writeBoolean(false);
          case VALUE_NULL -> out.writeNull();
          default -> throw GIVE_UP;
        }
        if (depth == 0) {
          break;
        }
        token = in.nextToken();
      }
    }
    return text.toString();
  }

  /** The fields of one content file, read in whatever order they come, then built as the tree reader builds it. */
  private static ContentFile file(JsonParser in, JsonToken token) {
    expect(token, JsonToken.START_OBJECT);
    FileContent content = null;
    Integer specId = null;
    List<@Nullable Object> partition = null;
    String filePath = null;
    FileFormat format = null;
    long size = -1;
    long records = -1;
    String keyMetadata = null;
    List<Long> splitOffsets = List.of();
    Integer sortOrderId = null;
    Long firstRowId = null;
    Map<Integer, Long> columnSizes = Map.of();
    Map<Integer, Long> valueCounts = Map.of();
    Map<Integer, Long> nullValueCounts = Map.of();
    Map<Integer, Long> nanValueCounts = Map.of();
    Map<Integer, Object> lowerBounds = Map.of();
    Map<Integer, Object> upperBounds = Map.of();
    List<Integer> equalityIds = null;
    String referencedDataFile = null;
    Long contentOffset = null;
    Long contentSize = null;
    for (JsonToken field = in.nextToken(); field == JsonToken.PROPERTY_NAME; field = in.nextToken()) {
      String name = in.currentName();
      JsonToken value = in.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        // an optional field sent as null is absent; a required one is missing, which the tree reader reports
        switch (name) {
          case "content", "spec-id", "partition", "file-path", "file-format", "file-size-in-bytes", "record-count" ->
            throw GIVE_UP;
          default -> {
            continue;
          }
        }
      }
      switch (name) {
        case "content" -> content = content(in, value);
        case "spec-id" -> specId = intValue(in, value);
        case "partition" -> partition = partition(in, value);
        case "file-path" -> filePath = nonEmptyString(in, value);
        case "file-format" -> format = fileFormat(in, value);
        case "file-size-in-bytes" -> size = nonNegativeLong(in, value);
        case "record-count" -> records = nonNegativeLong(in, value);
        case "key-metadata" -> keyMetadata = hex(in, value);
        case "split-offsets" -> splitOffsets = list(in, value, ScanTasksStream::nonNegativeLong);
        case "sort-order-id" -> sortOrderId = intValue(in, value);
        case "first-row-id" -> firstRowId = nonNegativeLong(in, value);
        case "column-sizes" -> columnSizes = statsMap(in, value, true);
        case "value-counts" -> valueCounts = statsMap(in, value, true);
        case "null-value-counts" -> nullValueCounts = statsMap(in, value, true);
        case "nan-value-counts" -> nanValueCounts = statsMap(in, value, true);
        case "lower-bounds" -> lowerBounds = statsMap(in, value, false);
        case "upper-bounds" -> upperBounds = statsMap(in, value, false);
        case "equality-ids" -> equalityIds = list(in, value, ScanTasksStream::intValue);
        case "referenced-data-file" -> referencedDataFile = string(in, value);
        case "content-offset" -> contentOffset = nonNegativeLong(in, value);
        case "content-size-in-bytes" -> contentSize = nonNegativeLong(in, value);
        default -> in.skipChildren();
      }
    }
    if (content == null || specId == null || partition == null || filePath == null || format == null || size < 0
        || records < 0) {
      throw GIVE_UP;
    }
    if (content == FileContent.DATA) {
      return new DataFile(filePath, format, specId, partition, size, records, keyMetadata, splitOffsets, sortOrderId,
          firstRowId, columnSizes, valueCounts, nullValueCounts, nanValueCounts, lowerBounds, upperBounds);
    }
    List<Integer> ids = List.of();
    if (content == FileContent.EQUALITY_DELETES) {
      if (equalityIds == null || equalityIds.isEmpty()) {
        throw GIVE_UP;
      }
      ids = equalityIds;
    }
    if (contentOffset != null && contentSize == null) {
      throw GIVE_UP;
    }
    return new DeleteFile(content, filePath, format, specId, partition, size, records, keyMetadata, splitOffsets,
        sortOrderId, ids, referencedDataFile,
        contentOffset, contentSize);
  }

  private static FileContent content(JsonParser in, JsonToken token) {
    return known(ContentFileParser.contentNamed(string(in, token)));
  }

  private static FileFormat fileFormat(JsonParser in, JsonToken token) {
    return known(ContentFileParser.formatNamed(string(in, token)));
  }

  private static String hex(JsonParser in, JsonToken token) {
    String text = string(in, token);
    if (text.length() % 2 != 0 || !ContentFileParser.hexDigits(text)) {
      throw GIVE_UP;
    }
    return text.toUpperCase(Locale.ROOT);
  }

  private static <T> T known(@Nullable T value) {
    if (value == null) {
      throw GIVE_UP;
    }
    return value;
  }

  /** A partition value: null is a value here (the row's field was null); floats give up. */
  private static List<@Nullable Object> partition(JsonParser in, JsonToken token) {
    expect(token, JsonToken.START_ARRAY);
    List<@Nullable Object> values = new ArrayList<>();
    for (JsonToken element = in.nextToken(); element != JsonToken.END_ARRAY; element = in.nextToken()) {
      values.add(element == JsonToken.VALUE_NULL ? null : primitive(in, element));
    }
    return values;
  }

  /**
   * A {@code CountMap} ({@code counts}) or {@code ValueMap}: keys in increasing order (the tree reader takes any
   * order without duplicates; catalogs write them in order), as many values as keys.
   */
  private static <V> Map<Integer, V> statsMap(JsonParser in, JsonToken token, boolean counts) {
    expect(token, JsonToken.START_OBJECT);
    int[] keys = new int[0];
    Object[] values = new Object[0];
    for (JsonToken field = in.nextToken(); field == JsonToken.PROPERTY_NAME; field = in.nextToken()) {
      String name = in.currentName();
      JsonToken value = in.nextToken();
      if (value == JsonToken.VALUE_NULL) {
        continue;
      }
      switch (name) {
        case "keys" -> keys = increasingInts(in, value);
        case "values" -> values = list(in, value, counts ? ScanTasksStream::nonNegativeLong : ScanTasksStream::primitive)
            .toArray();
        default -> in.skipChildren();
      }
    }
    if (keys.length != values.length) {
      throw GIVE_UP;
    }
    @SuppressWarnings("unchecked")
    Map.Entry<Integer, V>[] entries = new Map.Entry[keys.length];
    for (int i = 0; i < keys.length; i++) {
      @SuppressWarnings("unchecked")
      V value = (V) values[i];
      entries[i] = Map.entry(keys[i], value);
    }
    return Map.ofEntries(entries);
  }

  private static int[] increasingInts(JsonParser in, JsonToken token) {
    int[] keys = ints(in, token);
    for (int i = 1; i < keys.length; i++) {
      if (keys[i] <= keys[i - 1]) {
        throw GIVE_UP;
      }
    }
    return keys;
  }

  /** A string, a 64-bit integer or a boolean, as the tree reader reads them; anything else gives up. */
  private static Object primitive(JsonParser in, JsonToken token) {
    return switch (token) {
      case VALUE_STRING -> in.getString();
      case VALUE_NUMBER_INT -> nonBigLong(in);
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      default -> throw GIVE_UP;
    };
  }

  private static int[] ints(JsonParser in, JsonToken token) {
    expect(token, JsonToken.START_ARRAY);
    int[] values = new int[8];
    int count = 0;
    for (JsonToken element = in.nextToken(); element != JsonToken.END_ARRAY; element = in.nextToken()) {
      if (count == values.length) {
        values = Arrays.copyOf(values, count * 2);
      }
      values[count++] = intValue(in, element);
    }
    return Arrays.copyOf(values, count);
  }


  private static int intValue(JsonParser in, JsonToken token) {
    expect(token, JsonToken.VALUE_NUMBER_INT);
    if (in.getNumberType() != JsonParser.NumberType.INT) {
      throw GIVE_UP;
    }
    return in.getIntValue();
  }

  private static long nonBigLong(JsonParser in) {
    JsonParser.NumberType type = in.getNumberType();
    if (type != JsonParser.NumberType.INT && type != JsonParser.NumberType.LONG) {
      throw GIVE_UP;
    }
    return in.getLongValue();
  }

  private static long nonNegativeLong(JsonParser in, JsonToken token) {
    expect(token, JsonToken.VALUE_NUMBER_INT);
    long value = nonBigLong(in);
    if (value < 0) {
      throw GIVE_UP;
    }
    return value;
  }

  private static String string(JsonParser in, JsonToken token) {
    expect(token, JsonToken.VALUE_STRING);
    return in.getString();
  }

  private static String nonEmptyString(JsonParser in, JsonToken token) {
    String text = string(in, token);
    if (text.isEmpty()) {
      throw GIVE_UP;
    }
    return text;
  }

  private static void expect(@Nullable JsonToken token, JsonToken expected) {
    if (token != expected) {
      throw GIVE_UP;
    }
  }
}
