package io.icebergscan.planning.internal.wire;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.internal.wire.WireTypes.CatalogConfig;
import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import io.icebergscan.planning.internal.wire.WireTypes.PlanStatus;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Turns catalog response bodies into validated {@link WireTypes} values. A body is either accepted whole or
 * rejected with a {@link MalformedResponseException} naming the JSON path of the first offending field: no
 * other exception type leaves this class, so callers can treat every protocol violation alike.
 *
 * <p>Traversal follows the fixed shape of the spec (never the depth of the document), so a deeply nested body
 * can only exhaust Jackson's own nesting limit, which is reported as malformed too.
 */
public final class ResponseParser {

  private static final int MAX_DETAIL_CHARS = 200;

  /** Stands in for an absent list; never modified. */
  private static final JsonNode EMPTY_ARRAY = JsonNodeFactory.instance.arrayNode();

  private final ObjectReader reader;

  private final ObjectWriter compactWriter;

  public ResponseParser(JsonMapper mapper) {
    // Trailing tokens: explicit, so a shared mapper configured otherwise cannot make "{...} garbage" acceptable.
    // Big decimals: a residual's literal must reach the reader exactly as the catalog wrote it (a double would
    // turn 123456789012345678.91 into another number, and 1e400 into the string "Infinity").
    // Duplicate keys: {"status":"failed","status":"completed"} has no one meaning, so it is malformed.
    this.reader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
    // Residuals travel as text; an application mapper with pretty printing must not change their form.
    this.compactWriter = mapper.writer().without(SerializationFeature.INDENT_OUTPUT);
  }

  /** A {@code FetchScanTasksResult}, the answer of {@code POST …/tasks} for {@code planTask}. */
  public ScanTasks scanTasks(byte[] body, String planTask, @Nullable String defaultResidual) {
    Call call = new Call(planTask, defaultResidual);
    return call.guarded(() -> call.scanTasks(call.root(body)));
  }

  /**
   * A {@code PlanTableScanResult} ({@code fromSubmit}, the answer of {@code POST …/plan}) or a
   * {@code FetchPlanningResult} (the answer of {@code GET …/plan/{id}}).
   */
  public PlanningResult planResult(byte[] body, boolean fromSubmit, @Nullable String defaultResidual) {
    Call call = new Call(null, defaultResidual);
    return call.guarded(() -> call.planResult(call.root(body), fromSubmit));
  }

  /** The answer of {@code GET /v1/config}. */
  public CatalogConfig config(byte[] body) {
    Call call = new Call(null, null);
    return call.guarded(() -> call.config(call.root(body)));
  }

  /**
   * The {@code error} object of an error response, or {@code null} when the body does not have that shape
   * (empty, not JSON, an HTML error page). Never throws: an error body only adds detail to a failure the
   * caller already knows about from the status code.
   */
  public @Nullable ErrorBody error(byte[] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      JsonNode root = this.reader.readTree(body);
      return root != null && root.isObject() ? lenientError(root.get("error")) : null;
    }
    catch (RuntimeException ex) {
      return null;
    }
  }

  private static @Nullable ErrorBody lenientError(@Nullable JsonNode error) {
    if (error == null || !error.isObject()) {
      return null;
    }
    return new ErrorBody(lenientString(error.get("message")), lenientString(error.get("type")),
        lenientCode(error.get("code")));
  }

  private static @Nullable String lenientString(@Nullable JsonNode node) {
    return node != null && node.isString() ? node.stringValue() : null;
  }

  private static @Nullable Integer lenientCode(@Nullable JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isIntegralNumber() && node.canConvertToInt()) {
      return node.intValue();
    }
    if (node.isString()) {
      try {
        return Integer.valueOf(node.stringValue().trim());
      }
      catch (NumberFormatException ex) {
        return null;
      }
    }
    return null;
  }

  /**
   * Where a value sits in a body, such as {@code file-scan-tasks[3].data-file.record-count}. A task has dozens
   * of fields, so their paths are rendered only when a rejection names one.
   */
  private record Path(@Nullable Path parent, @Nullable String name, int index) {

    static Path of(String name) {
      return new Path(null, name, -1);
    }

    Path field(String child) {
      return new Path(this, child, -1);
    }

    Path element(int position) {
      return new Path(this, null, position);
    }

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder();
      appendTo(text);
      return text.toString();
    }

    private void appendTo(StringBuilder text) {
      if (this.parent != null) {
        this.parent.appendTo(text);
      }
      if (this.name == null) {
        text.append('[').append(this.index).append(']');
      }
      else {
        text.append(this.parent != null ? "." : "").append(this.name);
      }
    }
  }

  private static String brief(@Nullable String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= MAX_DETAIL_CHARS ? text : text.substring(0, MAX_DETAIL_CHARS) + "…";
  }

  /** The fields every content file has, before they are split into a data or a delete file. */
  private record Common(FileContent content, String filePath, FileFormat fileFormat, int specId,
      List<@Nullable Object> partition, long fileSizeInBytes, long recordCount, @Nullable String keyMetadata,
      List<Long> splitOffsets, @Nullable Integer sortOrderId) {
  }

  /** The state of one parse: the handle to name in every rejection and the residual to fall back to. */
  private final class Call {

    private final @Nullable String planTask;

    private final @Nullable String defaultResidual;

    Call(@Nullable String planTask, @Nullable String defaultResidual) {
      this.planTask = planTask;
      this.defaultResidual = defaultResidual;
    }

    <T> T guarded(Supplier<T> parse) {
      try {
        return parse.get();
      }
      catch (MalformedResponseException ex) {
        throw ex;
      }
      catch (RuntimeException ex) {
        // Every check above should have fired first; this keeps the single-exception contract if one did not.
        throw fail("unexpected content (" + ex.getClass().getSimpleName() + ": " + brief(ex.getMessage()) + ")",
            null, ex);
      }
    }

    MalformedResponseException fail(String message, @Nullable Path field) {
      return fail(message, field, null);
    }

    MalformedResponseException fail(String message, @Nullable Path field, @Nullable Throwable cause) {
      return new MalformedResponseException(message, field == null ? null : field.toString(), this.planTask, cause);
    }

    JsonNode root(byte @Nullable [] body) {
      if (body == null || body.length == 0) {
        throw fail("empty body", null);
      }
      JsonNode root;
      try {
        root = ResponseParser.this.reader.readTree(body);
      }
      catch (JacksonException ex) {
        throw fail("body is not valid JSON or exceeds the parser's limits: " + brief(ex.getOriginalMessage()), null,
            ex);
      }
      if (root == null || root.isMissingNode()) {
        throw fail("empty body", null);
      }
      if (!root.isObject()) {
        throw fail("expected a JSON object but got " + kind(root), null);
      }
      return root;
    }

    // ---- plan results -------------------------------------------------------------------------------

    PlanningResult planResult(JsonNode root, boolean fromSubmit) {
      PlanStatus status = status(root);
      String planId = planId(root);
      if (status == PlanStatus.CANCELLED && fromSubmit) {
        throw fail("status 'cancelled' is not a valid answer to a plan submission", Path.of("status"));
      }
      // only the submission must name the plan to poll; a poll's `submitted` (EmptyPlanningResult) has no id
      if (status == PlanStatus.SUBMITTED && fromSubmit && planId == null) {
        throw fail("a submitted plan needs a plan-id to poll", Path.of("plan-id"));
      }
      if (status != PlanStatus.COMPLETED) {
        for (String name : List.of("plan-tasks", "file-scan-tasks", "delete-files")) {
          if (root.has(name)) {
            throw fail("task field on a plan with status '" + status.name().toLowerCase(Locale.ROOT) + "'",
                Path.of(name));
          }
        }
      }
      return switch (status) {
        case COMPLETED -> new PlanningResult(status, planId, scanTasks(root), null, storageCredentials(root));
        case FAILED -> new PlanningResult(status, planId, ScanTasks.EMPTY, lenientError(root.get("error")), List.of());
        case SUBMITTED, CANCELLED -> new PlanningResult(status, planId, ScanTasks.EMPTY, null, List.of());
      };
    }

    private PlanStatus status(JsonNode root) {
      JsonNode node = root.get("status");
      if (node == null || node.isNull()) {
        throw fail("missing plan status", Path.of("status"));
      }
      if (!node.isString()) {
        throw fail("expected a string but got " + kind(node), Path.of("status"));
      }
      return switch (node.stringValue().toLowerCase(Locale.ROOT)) {
        case "completed" -> PlanStatus.COMPLETED;
        case "submitted" -> PlanStatus.SUBMITTED;
        case "cancelled" -> PlanStatus.CANCELLED;
        case "failed" -> PlanStatus.FAILED;
        default -> throw fail("unknown plan status '" + brief(node.stringValue()) + "'", Path.of("status"));
      };
    }

    private @Nullable String planId(JsonNode root) {
      JsonNode node = optional(root, "plan-id");
      if (node == null) {
        return null;
      }
      String planId = nonEmptyString(node, Path.of("plan-id"));
      // The id goes into request paths (poll, DELETE): one that could climb or split the path is refused.
      String lower = planId.toLowerCase(Locale.ROOT);
      if (planId.equals(".") || planId.equals("..") || planId.indexOf('/') >= 0 || planId.indexOf('\\') >= 0
          || lower.contains("%2f") || lower.contains("%5c") || lower.contains("%2e%2e")
          || planId.chars().anyMatch(Character::isISOControl)) {
        throw fail("a plan-id must not be able to change the request path", Path.of("plan-id"));
      }
      return planId;
    }

    private List<StorageCredential> storageCredentials(JsonNode root) {
      JsonNode node = optional(root, "storage-credentials");
      if (node == null) {
        return List.of();
      }
      JsonNode array = array(node, Path.of("storage-credentials"));
      List<StorageCredential> credentials = new ArrayList<>(array.size());
      for (int i = 0; i < array.size(); i++) {
        Path path = Path.of("storage-credentials").element(i);
        JsonNode credential = object(array.get(i), path);
        String prefix = string(required(credential, path, "prefix"), path.field("prefix"));
        Path configPath = path.field("config");
        JsonNode config = object(required(credential, path, "config"), configPath);
        Map<String, String> values = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> entry : config.properties()) {
          JsonNode value = entry.getValue();
          if (!value.isString()) {
            // No kind(value) here: it would quote a number, and this object holds secrets.
            throw fail("expected a string value", configPath.field(entry.getKey()));
          }
          values.put(entry.getKey(), value.stringValue());
        }
        credentials.add(new StorageCredential(prefix, values));
      }
      return credentials;
    }

    // ---- config -------------------------------------------------------------------------------------

    CatalogConfig config(JsonNode root) {
      return new CatalogConfig(properties(root, "defaults"), properties(root, "overrides"), endpoints(root),
          idempotencyKeyLifetime(root));
    }

    /**
     * Lenient: a lifetime that is not a positive ISO-8601 duration reads as absent, which only makes the
     * client more careful (a plan submission is then not sent again after a failure that may have reached it).
     */
    private @Nullable Duration idempotencyKeyLifetime(JsonNode root) {
      JsonNode node = optional(root, "idempotency-key-lifetime");
      if (node == null || !node.isString()) {
        return null;
      }
      try {
        Duration lifetime = Duration.parse(node.stringValue().trim());
        return lifetime.isNegative() || lifetime.isZero() ? null : lifetime;
      }
      catch (DateTimeParseException notADuration) {
        return null;
      }
    }

    private Map<String, String> properties(JsonNode root, String name) {
      JsonNode node = root.get(name);
      if (node == null) {
        return Map.of();
      }
      JsonNode object = object(node, Path.of(name));
      Map<String, String> values = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> entry : object.properties()) {
        JsonNode value = entry.getValue();
        if (value.isNull()) {
          continue;
        }
        if (!value.isString() && !value.isNumber() && !value.isBoolean()) {
          throw fail("expected a string value but got " + kind(value), Path.of(name).field(entry.getKey()));
        }
        // Some catalogs send numbers and booleans bare; their text is what a string-typed client would see.
        values.put(entry.getKey(), value.asString());
      }
      return values;
    }

    private @Nullable Set<String> endpoints(JsonNode root) {
      JsonNode node = optional(root, "endpoints");
      if (node == null) {
        return null;
      }
      JsonNode array = array(node, Path.of("endpoints"));
      Set<String> endpoints = new LinkedHashSet<>();
      for (JsonNode entry : array) {
        if (!entry.isString()) {
          continue;
        }
        String normalised = entry.stringValue().trim().replaceAll("\\s+", " ");
        if (normalised.isEmpty()) {
          continue;
        }
        int space = normalised.indexOf(' ');
        endpoints.add(space < 0
            ? normalised.toUpperCase(Locale.ROOT)
            : normalised.substring(0, space).toUpperCase(Locale.ROOT) + normalised.substring(space));
      }
      return endpoints;
    }

    // ---- scan tasks ---------------------------------------------------------------------------------

    ScanTasks scanTasks(JsonNode root) {
      JsonNode planTasks = taskList(root, "plan-tasks");
      JsonNode fileScanTasks = taskList(root, "file-scan-tasks");
      JsonNode deleteFiles = taskList(root, "delete-files");
      if (!deleteFiles.isEmpty() && fileScanTasks.isEmpty()) {
        throw fail("delete files without file scan tasks", Path.of("delete-files"));
      }
      List<DeleteFile> deletes = new ArrayList<>(deleteFiles.size());
      for (int i = 0; i < deleteFiles.size(); i++) {
        deletes.add(deleteFile(deleteFiles.get(i), Path.of("delete-files").element(i)));
      }
      List<FileScanTask> tasks = new ArrayList<>(fileScanTasks.size());
      for (int i = 0; i < fileScanTasks.size(); i++) {
        tasks.add(fileScanTask(fileScanTasks.get(i), Path.of("file-scan-tasks").element(i), deletes));
      }
      List<String> handles = new ArrayList<>(planTasks.size());
      for (int i = 0; i < planTasks.size(); i++) {
        handles.add(nonEmptyString(planTasks.get(i), Path.of("plan-tasks").element(i)));
      }
      return new ScanTasks(tasks, handles);
    }

    /** A task list: absent means none, but an explicit null is a broken server, not an empty answer. */
    private JsonNode taskList(JsonNode root, String name) {
      JsonNode node = root.get(name);
      if (node == null) {
        return EMPTY_ARRAY;
      }
      if (node.isNull()) {
        throw fail("explicit null for a task list", Path.of(name));
      }
      return array(node, Path.of(name));
    }

    private FileScanTask fileScanTask(JsonNode node, Path path, List<DeleteFile> deletes) {
      JsonNode task = object(node, path);
      JsonNode dataNode = task.get("data-file");
      Path dataPath = path.field("data-file");
      if (dataNode == null || !dataNode.isObject()) {
        throw fail("task without a data file", dataPath);
      }
      DataFile dataFile = dataFile(dataNode, dataPath);
      List<DeleteFile> applied = deleteReferences(task, path.field("delete-file-references"), deletes);
      return new FileScanTask(dataFile, applied, residual(task, path.field("residual-filter")));
    }

    /** References index this payload's own delete-files: resolving them anywhere else misattributes deletes. */
    private List<DeleteFile> deleteReferences(JsonNode task, Path path, List<DeleteFile> deletes) {
      JsonNode node = optional(task, "delete-file-references");
      if (node == null) {
        return List.of();
      }
      JsonNode array = array(node, path);
      List<DeleteFile> applied = new ArrayList<>(array.size());
      Set<Integer> seen = new HashSet<>();
      for (int i = 0; i < array.size(); i++) {
        Path refPath = path.element(i);
        int index = intValue(array.get(i), refPath);
        if (index < 0 || index >= deletes.size()) {
          throw fail("delete file reference " + index + " is out of range: this response has " + deletes.size()
              + " delete files", refPath);
        }
        if (!seen.add(index)) {
          throw fail("delete file reference " + index + " appears twice in one task", refPath);
        }
        applied.add(deletes.get(index));
      }
      return applied;
    }

    private @Nullable String residual(JsonNode task, Path path) {
      JsonNode node = optional(task, "residual-filter");
      if (node == null) {
        return this.defaultResidual;
      }
      try {
        return ResponseParser.this.compactWriter.writeValueAsString(node);
      }
      catch (JacksonException ex) {
        throw fail("residual filter cannot be serialised: " + brief(ex.getOriginalMessage()), path);
      }
    }

    // ---- content files ------------------------------------------------------------------------------

    private DataFile dataFile(JsonNode file, Path path) {
      Common common = common(file, path);
      if (common.content() != FileContent.DATA) {
        throw fail("a data file must have content 'data', not '" + common.content().name() + "'",
            path.field("content"));
      }
      Long firstRowId = optionalNonNegativeLong(file, path, "first-row-id");
      Map<Integer, Long> columnSizes = countMap(file, path, "column-sizes");
      Map<Integer, Long> valueCounts = countMap(file, path, "value-counts");
      Map<Integer, Long> nullValueCounts = countMap(file, path, "null-value-counts");
      Map<Integer, Long> nanValueCounts = countMap(file, path, "nan-value-counts");
      Map<Integer, Object> lowerBounds = valueMap(file, path, "lower-bounds");
      Map<Integer, Object> upperBounds = valueMap(file, path, "upper-bounds");
      try {
        return new DataFile(common.filePath(), common.fileFormat(), common.specId(), common.partition(),
            common.fileSizeInBytes(), common.recordCount(), common.keyMetadata(), common.splitOffsets(),
            common.sortOrderId(), firstRowId, columnSizes, valueCounts, nullValueCounts, nanValueCounts,
            lowerBounds, upperBounds);
      }
      catch (IllegalArgumentException | NullPointerException ex) {
        throw fail("invalid data file: " + brief(ex.getMessage()), path);
      }
    }

    private DeleteFile deleteFile(JsonNode node, Path path) {
      JsonNode file = object(node, path);
      Common common = common(file, path);
      if (common.content() == FileContent.DATA) {
        throw fail("a delete file cannot have content 'data'", path.field("content"));
      }
      List<Integer> equalityIds = List.of();
      if (common.content() == FileContent.EQUALITY_DELETES) {
        Path idsPath = path.field("equality-ids");
        JsonNode ids = optional(file, "equality-ids");
        if (ids == null) {
          throw fail("an equality delete file needs equality-ids", idsPath);
        }
        equalityIds = intList(ids, idsPath);
        if (equalityIds.isEmpty()) {
          throw fail("an equality delete file needs at least one equality id", idsPath);
        }
      }
      JsonNode referenced = optional(file, "referenced-data-file");
      String referencedDataFile = referenced == null ? null : string(referenced, path.field("referenced-data-file"));
      Long contentOffset = optionalNonNegativeLong(file, path, "content-offset");
      Long contentSize = optionalNonNegativeLong(file, path, "content-size-in-bytes");
      if (contentOffset != null && contentSize == null) {
        throw fail("content-size-in-bytes is required with content-offset", path.field("content-size-in-bytes"));
      }
      try {
        return new DeleteFile(common.content(), common.filePath(), common.fileFormat(), common.specId(),
            common.partition(), common.fileSizeInBytes(), common.recordCount(), common.keyMetadata(),
            common.splitOffsets(), common.sortOrderId(), equalityIds, referencedDataFile, contentOffset,
            contentSize);
      }
      catch (IllegalArgumentException | NullPointerException ex) {
        throw fail("invalid delete file: " + brief(ex.getMessage()), path);
      }
    }

    private Common common(JsonNode file, Path path) {
      FileContent content = content(required(file, path, "content"), path.field("content"));
      int specId = intValue(required(file, path, "spec-id"), path.field("spec-id"));
      List<@Nullable Object> partition = partition(required(file, path, "partition"), path.field("partition"));
      String filePath = nonEmptyString(required(file, path, "file-path"), path.field("file-path"));
      FileFormat format = fileFormat(required(file, path, "file-format"), path.field("file-format"));
      long size = nonNegativeLong(required(file, path, "file-size-in-bytes"), path.field("file-size-in-bytes"));
      long records = nonNegativeLong(required(file, path, "record-count"), path.field("record-count"));
      JsonNode keyNode = optional(file, "key-metadata");
      String keyMetadata = keyNode == null ? null : hex(keyNode, path.field("key-metadata"));
      JsonNode splitsNode = optional(file, "split-offsets");
      List<Long> splitOffsets = splitsNode == null
          ? List.of()
          : nonNegativeLongList(splitsNode, path.field("split-offsets"));
      JsonNode sortNode = optional(file, "sort-order-id");
      Integer sortOrderId = sortNode == null ? null : intValue(sortNode, path.field("sort-order-id"));
      return new Common(content, filePath, format, specId, partition, size, records, keyMetadata, splitOffsets,
          sortOrderId);
    }

    /** Kebab case is the spec's; older writers send the enum names, so case and separator are ignored. */
    private FileContent content(JsonNode node, Path path) {
      String text = string(node, path);
      String name = text.toUpperCase(Locale.ROOT).replace('-', '_');
      for (FileContent content : FileContent.values()) {
        if (content.name().equals(name)) {
          return content;
        }
      }
      throw fail("unknown content '" + brief(text) + "'", path);
    }

    private FileFormat fileFormat(JsonNode node, Path path) {
      String text = string(node, path);
      for (FileFormat format : FileFormat.values()) {
        if (format.name().equalsIgnoreCase(text)) {
          return format;
        }
      }
      throw fail("unknown file format '" + brief(text) + "'", path);
    }

    private List<@Nullable Object> partition(JsonNode node, Path path) {
      JsonNode array = array(node, path);
      List<@Nullable Object> values = new ArrayList<>(array.size());
      for (int i = 0; i < array.size(); i++) {
        JsonNode value = array.get(i);
        // A null partition value is a real value (the row's partition field was null), unlike a null bound.
        values.add(value.isNull() ? null : primitiveAt(value, path, i));
      }
      return values;
    }

    private String hex(JsonNode node, Path path) {
      String text = string(node, path);
      if (text.length() % 2 != 0) {
        throw fail("hexadecimal binary value has an odd number of digits", path);
      }
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
          throw fail("not a hexadecimal binary value", path);
        }
      }
      return text.toUpperCase(Locale.ROOT);
    }

    private Map<Integer, Long> countMap(JsonNode file, Path parent, String name) {
      return statsMap(file, parent, name, this::nonNegativeLongAt);
    }

    private Map<Integer, Object> valueMap(JsonNode file, Path parent, String name) {
      return statsMap(file, parent, name, this::primitiveAt);
    }

    /** Reads element {@code index} of the array at {@code parent}; the element's path is built only to fail. */
    @FunctionalInterface
    private interface ElementReader<V> {
      V read(JsonNode element, Path parent, int index);
    }

    /** A spec {@code CountMap} or {@code ValueMap}: parallel {@code keys} and {@code values} arrays. */
    private <V> Map<Integer, V> statsMap(JsonNode file, Path parent, String name, ElementReader<V> value) {
      JsonNode node = optional(file, name);
      if (node == null) {
        return Map.of();
      }
      Path path = parent.field(name);
      JsonNode map = object(node, path);
      int[] keys = mapKeys(map, path);
      Path valuesPath = path.field("values");
      JsonNode values = mapValues(map, path, valuesPath, keys.length);
      @SuppressWarnings("unchecked")
      Map.Entry<Integer, V>[] entries = new Map.Entry[keys.length];
      for (int i = 0; i < keys.length; i++) {
        entries[i] = Map.entry(keys[i], value.read(values.get(i), valuesPath, i));
      }
      // Compact and unmodifiable already, so the file record keeps this map instead of copying it.
      return Map.ofEntries(entries);
    }

    private int[] mapKeys(JsonNode map, Path path) {
      JsonNode node = optional(map, "keys");
      if (node == null) {
        return new int[0];
      }
      Path keysPath = path.field("keys");
      JsonNode array = array(node, keysPath);
      int[] keys = new int[array.size()];
      // Catalogs write keys in column id order; a set to find duplicates is built only for keys out of order.
      Set<Integer> seen = null;
      for (int i = 0; i < keys.length; i++) {
        int key = intAt(array.get(i), keysPath, i);
        if (seen == null && i > 0 && key <= keys[i - 1]) {
          seen = new HashSet<>();
          for (int j = 0; j < i; j++) {
            seen.add(keys[j]);
          }
        }
        if (seen != null && !seen.add(key)) {
          throw fail("duplicate key " + key, keysPath.element(i));
        }
        keys[i] = key;
      }
      return keys;
    }

    private JsonNode mapValues(JsonNode map, Path path, Path valuesPath, int keyCount) {
      JsonNode node = optional(map, "values");
      JsonNode values = node == null ? EMPTY_ARRAY : array(node, valuesPath);
      if (values.size() != keyCount) {
        throw fail(keyCount + " keys but " + values.size() + " values", path);
      }
      return values;
    }

    // ---- scalars ------------------------------------------------------------------------------------

    /** A present, non-null member; optional members sent as JSON null mean the same as absent. */
    private @Nullable JsonNode optional(JsonNode object, String name) {
      JsonNode node = object.get(name);
      return node == null || node.isNull() ? null : node;
    }

    private JsonNode required(JsonNode object, Path parent, String name) {
      JsonNode node = object.get(name);
      if (node == null || node.isNull()) {
        throw fail("missing required field", parent.field(name));
      }
      return node;
    }

    private JsonNode object(@Nullable JsonNode node, Path path) {
      if (node == null || !node.isObject()) {
        throw fail("expected an object but got " + kind(node), path);
      }
      return node;
    }

    private JsonNode array(@Nullable JsonNode node, Path path) {
      if (node == null || !node.isArray()) {
        throw fail("expected an array but got " + kind(node), path);
      }
      return node;
    }

    private String string(@Nullable JsonNode node, Path path) {
      if (node == null || !node.isString()) {
        throw fail("expected a string but got " + kind(node), path);
      }
      return node.stringValue();
    }

    private String nonEmptyString(@Nullable JsonNode node, Path path) {
      String text = string(node, path);
      if (text.isEmpty()) {
        throw fail("empty string", path);
      }
      return text;
    }

    /** Integral JSON numbers only: "12", 12.0 and 1e1 are rejected rather than coerced. */
    private int intValue(@Nullable JsonNode node, Path path) {
      if (node == null || !node.isIntegralNumber()) {
        throw fail("expected an integer but got " + kind(node), path);
      }
      if (!node.canConvertToInt()) {
        throw fail("integer " + brief(node.asString()) + " does not fit in 32 bits", path);
      }
      return node.intValue();
    }

    private long longValue(@Nullable JsonNode node, Path path) {
      if (node == null || !node.isIntegralNumber()) {
        throw fail("expected an integer but got " + kind(node), path);
      }
      if (!node.canConvertToLong()) {
        throw fail("integer " + brief(node.asString()) + " does not fit in 64 bits", path);
      }
      return node.longValue();
    }

    private long nonNegativeLong(@Nullable JsonNode node, Path path) {
      long value = longValue(node, path);
      if (value < 0) {
        throw fail("must not be negative: " + value, path);
      }
      return value;
    }

    private @Nullable Long optionalNonNegativeLong(JsonNode object, Path parent, String name) {
      JsonNode node = optional(object, name);
      return node == null ? null : nonNegativeLong(node, parent.field(name));
    }

    private List<Integer> intList(JsonNode node, Path path) {
      JsonNode array = array(node, path);
      List<Integer> values = new ArrayList<>(array.size());
      for (int i = 0; i < array.size(); i++) {
        values.add(intAt(array.get(i), path, i));
      }
      return values;
    }

    private List<Long> nonNegativeLongList(JsonNode node, Path path) {
      JsonNode array = array(node, path);
      List<Long> values = new ArrayList<>(array.size());
      for (int i = 0; i < array.size(); i++) {
        values.add(nonNegativeLongAt(array.get(i), path, i));
      }
      return values;
    }

    // Array elements are many (every stats value): their readers check the common valid case first and
    // build the element's path only for the failure, which the general reader then reports.

    private int intAt(JsonNode element, Path parent, int index) {
      return element.isIntegralNumber() && element.canConvertToInt() ? element.intValue()
          : intValue(element, parent.element(index));
    }

    private long nonNegativeLongAt(JsonNode element, Path parent, int index) {
      if (element.isIntegralNumber() && element.canConvertToLong()) {
        long value = element.longValue();
        if (value >= 0) {
          return value;
        }
      }
      return nonNegativeLong(element, parent.element(index));
    }

    private Object primitiveAt(JsonNode element, Path parent, int index) {
      if (element.isString()) {
        return element.stringValue();
      }
      if (element.isIntegralNumber() && element.canConvertToLong()) {
        return element.longValue();
      }
      return primitive(element, parent.element(index));
    }

    /** A spec primitive as the plainest Java value; containers are never primitives. */
    private Object primitive(@Nullable JsonNode node, Path path) {
      if (node == null || node.isNull()) {
        throw fail("null value", path);
      }
      if (node.isString()) {
        return node.stringValue();
      }
      if (node.isBoolean()) {
        return node.booleanValue();
      }
      if (node.isIntegralNumber()) {
        return longValue(node, path);
      }
      if (node.isNumber()) {
        // numberValue() never throws, unlike doubleValue() on a huge decimal; overflow shows as infinity.
        double value = node.numberValue().doubleValue();
        if (!Double.isFinite(value)) {
          throw fail("number " + brief(node.asString()) + " is out of range", path);
        }
        return value;
      }
      throw fail("expected a primitive value but got " + kind(node), path);
    }

    private String kind(@Nullable JsonNode node) {
      if (node == null || node.isMissingNode()) {
        return "nothing";
      }
      if (node.isNull()) {
        return "null";
      }
      if (node.isObject()) {
        return "an object";
      }
      if (node.isArray()) {
        return "an array";
      }
      if (node.isString()) {
        return "a string";
      }
      if (node.isBoolean()) {
        return "a boolean";
      }
      if (node.isNumber()) {
        return "the number " + brief(node.asString());
      }
      return node.getNodeType().name().toLowerCase(Locale.ROOT);
    }
  }
}
