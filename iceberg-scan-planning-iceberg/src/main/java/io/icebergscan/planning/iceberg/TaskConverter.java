package io.icebergscan.planning.iceberg;

import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.model.ContentFile;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Turns the planner's tasks into Apache Iceberg's own {@link FileScanTask}s with the meaning Iceberg's REST client
 * gives them: partition data typed by the spec the file names, bounds and key metadata as the binary Iceberg
 * writes in hex, and the residual bound to the schema the scan reads with and simplified per partition by a
 * {@link ResidualEvaluator}. The table's specs are bound to that schema too, so a time travel to a snapshot whose
 * columns were renamed or dropped since binds its residuals by the names it had (Iceberg's REST client binds them to
 * the current schema and fails). A value that does not fit the table fails the whole conversion with a
 * {@link MalformedResponseException} naming the file and the field; nothing is dropped.
 *
 * <p>Thread-safe: one converter serves a plan, whose tasks arrive on the planner's threads.
 */
final class TaskConverter {

  private final TableMetadata metadata;
  private final Schema schema;
  private final boolean caseSensitive;
  private final boolean withhold;
  /** Whether the scan reads with another schema than the current one, which the table's specs are bound to. */
  private final boolean rebind;
  /**
   * Per spec id, when {@link #rebind}: the table's spec bound to the scan's schema, for the task's schema, spec and
   * residual; its files' partition values are typed by the table's spec, as Iceberg's own planning types them.
   */
  private final Map<Integer, PartitionSpec> specs = new ConcurrentHashMap<>();
  /** Per spec: the schema and spec JSON every task of that spec carries, written once rather than per task. */
  private final Map<Integer, SpecStrings> specStrings = new ConcurrentHashMap<>();
  /** Per spec and residual text: most tasks of a plan share one residual. */
  private final Map<ResidualKey, ResidualEvaluator> residuals = new ConcurrentHashMap<>();

  private record SpecStrings(String schema, String spec) {
  }

  private record ResidualKey(int specId, @Nullable String residual) {
  }

  /**
   * @param schema the schema the scan reads with: the table's current one, or a time travel's snapshot schema
   * @param withhold whether failures withhold the files and values they are about (a table whose reads are
   *     restricted: a path or a partition value may hold a masked field's raw value)
   */
  TaskConverter(TableMetadata metadata, Schema schema, boolean caseSensitive, boolean withhold) {
    this.metadata = metadata;
    this.schema = schema;
    this.caseSensitive = caseSensitive;
    this.withhold = withhold;
    this.rebind = !schema.sameSchema(metadata.schema());
  }

  FileScanTask convert(io.icebergscan.planning.model.FileScanTask task) {
    DataFile data = task.dataFile();
    PartitionSpec spec = spec(data, "data-file");
    org.apache.iceberg.DataFile dataFile = dataFile(data, spec);
    org.apache.iceberg.DeleteFile[] deletes = new org.apache.iceberg.DeleteFile[task.deleteFiles().size()];
    for (int i = 0; i < deletes.length; i++) {
      DeleteFile delete = task.deleteFiles().get(i);
      deletes[i] = deleteFile(delete, spec(delete, "delete-files[" + i + "]"), "delete-files[" + i + "]");
    }
    PartitionSpec scanSpec = scanSpec(spec);
    SpecStrings strings = this.specStrings.computeIfAbsent(spec.specId(),
        id -> new SpecStrings(SchemaParser.toJson(scanSpec.schema()), PartitionSpecParser.toJson(scanSpec)));
    return new BaseFileScanTask(dataFile, deletes, strings.schema(), strings.spec(),
        residual(scanSpec, task.residualFilter(), data.filePath()));
  }

  private PartitionSpec spec(ContentFile file, String field) {
    PartitionSpec spec = this.metadata.specsById().get(file.specId());
    if (spec == null) {
      throw malformed(file, field + ".spec-id", "spec-id " + file.specId() + " is not a partition spec of the table "
          + "(its specs: " + this.metadata.specsById().keySet() + ")", null);
    }
    return spec;
  }

  /** The spec as the scan sees it: bound to the scan's schema, which its residuals are bound to. */
  private PartitionSpec scanSpec(PartitionSpec spec) {
    return this.rebind ? this.specs.computeIfAbsent(spec.specId(), id -> rebound(spec)) : spec;
  }

  /**
   * The spec bound to the scan's schema: partition fields refer to their source columns by id, which a rename keeps.
   * A spec whose source column the scan's schema does not have stays bound to the current schema, as Iceberg's own.
   */
  private PartitionSpec rebound(PartitionSpec spec) {
    try {
      return PartitionSpecParser.fromJson(this.schema, PartitionSpecParser.toJson(spec));
    }
    catch (RuntimeException sourceNotInSchema) {
      return spec;
    }
  }

  private org.apache.iceberg.DataFile dataFile(DataFile file, PartitionSpec spec) {
    DataFiles.Builder builder = DataFiles.builder(spec)
        .withPath(file.filePath())
        .withFormat(format(file))
        .withFileSizeInBytes(file.fileSizeInBytes())
        .withMetrics(new Metrics(file.recordCount(), orNull(file.columnSizes()), orNull(file.valueCounts()),
            orNull(file.nullValueCounts()), orNull(file.nanValueCounts()),
            bounds(file, file.lowerBounds(), "data-file.lower-bounds"),
            bounds(file, file.upperBounds(), "data-file.upper-bounds")))
        .withSplitOffsets(file.splitOffsets().isEmpty() ? null : file.splitOffsets())
        .withFirstRowId(file.firstRowId());
    if (spec.isPartitioned()) {
      builder.withPartition(partition(file, spec, "data-file"));
    }
    ByteBuffer keyMetadata = keyMetadata(file, "data-file");
    if (keyMetadata != null) {
      builder.withEncryptionKeyMetadata(keyMetadata);
    }
    if (file.sortOrderId() != null) {
      builder.withSortOrderId(file.sortOrderId());
    }
    return builder.build();
  }

  private org.apache.iceberg.DeleteFile deleteFile(DeleteFile file, PartitionSpec spec, String field) {
    FileMetadata.Builder builder = FileMetadata.deleteFileBuilder(spec);
    if (file.content() == FileContent.EQUALITY_DELETES) {
      builder.ofEqualityDeletes(file.equalityIds().stream().mapToInt(Integer::intValue).toArray());
    }
    else {
      builder.ofPositionDeletes();
    }
    builder.withPath(file.filePath())
        .withFormat(format(file))
        .withFileSizeInBytes(file.fileSizeInBytes())
        .withRecordCount(file.recordCount())
        .withSplitOffsets(file.splitOffsets().isEmpty() ? null : file.splitOffsets());
    if (spec.isPartitioned()) {
      builder.withPartition(partition(file, spec, field));
    }
    ByteBuffer keyMetadata = keyMetadata(file, field);
    if (keyMetadata != null) {
      builder.withEncryptionKeyMetadata(keyMetadata);
    }
    if (file.sortOrderId() != null) {
      SortOrder order = this.metadata.sortOrdersById().get(file.sortOrderId());
      if (order == null) {
        throw malformed(file, field + ".sort-order-id", "sort-order-id " + file.sortOrderId()
            + " is not a sort order of the table", null);
      }
      builder.withSortOrder(order);
    }
    if (file.referencedDataFile() != null) {
      builder.withReferencedDataFile(file.referencedDataFile());
    }
    if (file.contentOffset() != null && file.contentSizeInBytes() != null) {
      builder.withContentOffset(file.contentOffset()).withContentSizeInBytes(file.contentSizeInBytes());
    }
    return builder.build();
  }

  private static FileFormat format(ContentFile file) {
    return FileFormat.valueOf(file.fileFormat().name());
  }

  /** The spec's partition tuple from the values the catalog sent in its field order, typed as Iceberg reads them. */
  private PartitionData partition(ContentFile file, PartitionSpec spec, String field) {
    Types.StructType type = spec.partitionType();
    List<Types.NestedField> fields = type.fields();
    List<@Nullable Object> values = file.partition();
    if (values.size() != fields.size()) {
      throw malformed(file, field + ".partition", values.size() + " partition values for spec " + spec.specId()
          + ", which has " + fields.size() + " fields", null);
    }
    PartitionData partition = new PartitionData(type);
    for (int i = 0; i < fields.size(); i++) {
      try {
        partition.set(i, SingleValueParser.fromJson(fields.get(i).type(), json(values.get(i))));
      }
      catch (IllegalArgumentException | UnsupportedOperationException wrongType) {
        throw malformed(file, field + ".partition[" + i + "]", shown("the value ", values.get(i)) + " is not a "
            + fields.get(i).type() + " (partition field '" + fields.get(i).name() + "')"
            + shown(": ", wrongType.getMessage()), wrongType);
      }
    }
    return partition;
  }

  /** Bounds are binary in Iceberg, sent as hex strings: the single-value form of a map of int to binary. */
  private @Nullable Map<Integer, ByteBuffer> bounds(ContentFile file, Map<Integer, Object> bounds,
      String field) {
    if (bounds.isEmpty()) {
      return null;
    }
    Map<Integer, ByteBuffer> binary = new HashMap<>(bounds.size() * 2);
    bounds.forEach((id, value) -> binary.put(id, binary(file, value, field + "[" + id + "]")));
    return binary;
  }

  private @Nullable ByteBuffer keyMetadata(ContentFile file, String field) {
    return file.keyMetadata() == null ? null : binary(file, file.keyMetadata(), field + ".key-metadata");
  }

  private ByteBuffer binary(ContentFile file, Object hex, String field) {
    try {
      return (ByteBuffer) SingleValueParser.fromJson(Types.BinaryType.get(), json(hex));
    }
    catch (IllegalArgumentException notHex) {
      throw malformed(file, field, "expected binary as a hex string" + shown(" but got ", hex), notHex);
    }
  }

  private ResidualEvaluator residual(PartitionSpec spec, @Nullable String residualJson, String filePath) {
    return this.residuals.computeIfAbsent(new ResidualKey(spec.specId(), residualJson), key -> {
      Expression residual;
      try {
        // either JSON form, typed by the scan's schema: a newer catalog may send the expressions spec's
        residual = residualJson == null ? Expressions.alwaysTrue() : ExpressionJson.parse(
            ExpressionJson.tree(residualJson), spec.schema(), ExpressionJson.References.ANY, "residual-filter");
        // bound once here only to check it, so a residual naming no column of the table fails now rather than in
        // a reader; the task keeps it unbound, as Iceberg's own tasks do
        Binder.bind(spec.schema().asStruct(), residual, this.caseSensitive);
        return ResidualEvaluator.of(spec, residual, this.caseSensitive);
      }
      catch (RuntimeException invalid) {
        throw new MalformedResponseException("the residual filter" + shown(" of ", filePath) + " is not an Iceberg "
            + "expression of the table's schema" + shown(": ", invalid.getMessage()), "residual-filter", null,
            this.withhold ? null : invalid);
      }
    });
  }

  /**
   * A value of the core's model as JSON text, for Iceberg's {@code SingleValueParser}: text, not Jackson 2's
   * {@code JsonNode}, which Iceberg's runtime jars (Spark's, Flink's) relocate, so this module links against every
   * distribution of Iceberg.
   */
  static String json(@Nullable Object value) {
    if (value == null || value instanceof Long || value instanceof Boolean || value instanceof Double) {
      return String.valueOf(value);
    }
    if (value instanceof String text) {
      StringBuilder quoted = new StringBuilder(text.length() + 2).append('"');
      for (int i = 0; i < text.length(); i++) {
        char c = text.charAt(i);
        if (c == '"' || c == '\\') {
          quoted.append('\\').append(c);
        }
        else if (c < 0x20) {
          quoted.append(String.format("\\u%04x", (int) c));
        }
        else {
          quoted.append(c);
        }
      }
      return quoted.append('"').toString();
    }
    throw new IllegalArgumentException("unexpected value " + value + " (" + value.getClass().getName() + ")");
  }

  private static <V> @Nullable Map<Integer, V> orNull(Map<Integer, V> stats) {
    return stats.isEmpty() ? null : stats;
  }

  private MalformedResponseException malformed(ContentFile file, String field, String message,
      @Nullable Throwable cause) {
    return this.withhold ? new MalformedResponseException(message + " (the file is withheld: the table's reads are "
        + "restricted)", field, null)
        : new MalformedResponseException(message + " (file " + file.filePath() + ")", field, null, cause);
  }

  /** What a message says of a path or a value: nothing when failures withhold them. */
  private String shown(String lead, @Nullable Object value) {
    return this.withhold ? "" : lead + value;
  }
}
