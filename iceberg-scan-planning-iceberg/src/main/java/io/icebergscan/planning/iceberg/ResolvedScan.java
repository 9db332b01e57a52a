package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.icebergscan.planning.ScanRequest;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.StaticTableOperations;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * A {@link ScanRequest} resolved against the table it scans, before anything is sent, with the meaning Apache
 * Iceberg's {@code RESTTableScan} gives the same scan:
 * <ul>
 *   <li>the snapshot: the one the request names, which must be in the table's metadata; else the current snapshot
 *       of the metadata the table was loaded with, sent as {@code snapshot-id}, so a table loaded earlier plans
 *       the snapshot it holds, not one another writer committed since;</li>
 *   <li>the schema the scan reads with, and binds its filter and the residuals to: a time travel's snapshot schema
 *       (its default, as Iceberg's {@code useSnapshot} does; {@code useSnapshotSchema(false)} keeps the current
 *       one), the table's current schema otherwise;</li>
 *   <li>the columns each row has ({@code select}, in the schema's order, then the metadata columns it names, in
 *       its order), and the {@code select} sent, which names the data columns only: metadata columns
 *       ({@code _file}, {@code _pos}, {@code _spec_id}, {@code _partition}, {@code _row_id},
 *       {@code _last_updated_sequence_number}) are the reader's to fill.</li>
 * </ul>
 * The filter is parsed once, here.
 */
final class ResolvedScan {

  /** The metadata columns a {@code select} may name, as Iceberg's readers fill them. */
  static final List<String> SELECTABLE_METADATA_COLUMNS = List.of(MetadataColumns.FILE_PATH.name(),
      MetadataColumns.ROW_POSITION.name(), MetadataColumns.SPEC_ID.name(), MetadataColumns.PARTITION_COLUMN_NAME,
      MetadataColumns.ROW_ID.name(), MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name());

  private final ScanRequest request;
  private final Schema schema;
  private final Schema projection;
  private final boolean caseSensitive;
  private final Expression filter;
  private final @Nullable Long snapshotId;
  private final Types.@Nullable StructType partitionType;

  private ResolvedScan(ScanRequest request, Schema schema, Schema projection, boolean caseSensitive,
      Expression filter, @Nullable Long snapshotId, Types.@Nullable StructType partitionType) {
    this.request = request;
    this.schema = schema;
    this.projection = projection;
    this.caseSensitive = caseSensitive;
    this.filter = filter;
    this.snapshotId = snapshotId;
    this.partitionType = partitionType;
  }

  /**
   * @throws IllegalArgumentException when the request does not fit the table: a snapshot it does not have, a
   *     filter or {@code select} of columns its schema does not have, a value of the wrong type
   */
  static ResolvedScan of(IcebergTable table, ScanRequest request) {
    TableMetadata metadata = table.metadata();
    boolean caseSensitive = !Boolean.FALSE.equals(request.caseSensitive());
    Long snapshotId = request.snapshotId();
    Boolean useSnapshotSchema = request.useSnapshotSchema();
    boolean incremental = request.startSnapshotId() != null;
    for (Long named : new Long[] { snapshotId, request.startSnapshotId(), request.endSnapshotId() }) {
      if (named != null && metadata.snapshot(named) == null) {
        throw new IllegalArgumentException("snapshot " + named + " is not a snapshot of " + table.identifier()
            + " as it was loaded (" + metadata.snapshots().size() + " snapshots, the current "
            + currentSnapshotId(metadata) + "): load the table again to scan a snapshot committed since");
      }
    }
    if (snapshotId != null) {
      if (useSnapshotSchema == null) {
        useSnapshotSchema = true;
      }
    }
    else if (!incremental) {
      snapshotId = currentSnapshotId(metadata);
    }
    Schema schema = snapshotId != null && Boolean.TRUE.equals(useSnapshotSchema) ? table.schemaOf(snapshotId)
        : table.schema();
    Expression filter = filter(table, request.filter() != null ? request.filter().toJson() : null, schema,
        caseSensitive);

    List<String> dataColumns = null;
    List<Types.NestedField> metadataColumns = new ArrayList<>();
    Types.StructType partitionType = null;
    Schema projection = schema;
    if (request.select() != null) {
      dataColumns = new ArrayList<>();
      for (String name : request.select()) {
        String metadataName = caseSensitive ? name : name.toLowerCase(Locale.ROOT);
        if (MetadataColumns.isMetadataColumn(metadataName)) {
          Types.NestedField column = metadataColumn(table, metadataName);
          if (column.fieldId() == MetadataColumns.PARTITION_COLUMN_ID) {
            partitionType = column.type().asStructType();
          }
          metadataColumns.add(column);
        }
        else {
          dataColumns.add(name);
        }
      }
      projection = TypeUtil.join(select(table, schema, dataColumns, caseSensitive), new Schema(metadataColumns));
    }
    ScanRequest sent = new ScanRequest(snapshotId, dataColumns == null || dataColumns.isEmpty() ? null : dataColumns,
        request.filter(), request.caseSensitive(), request.snapshotId() != null ? useSnapshotSchema
            : request.useSnapshotSchema(), request.startSnapshotId(), request.endSnapshotId(), request.statsFields(),
        request.minRowsRequested(), request.maxConcurrency());
    return new ResolvedScan(sent, schema, projection, caseSensitive, filter, snapshotId, partitionType);
  }

  /** The request as it is sent: with the snapshot planned, and without metadata columns in its {@code select}. */
  ScanRequest request() {
    return this.request;
  }

  /** The schema the scan reads with, and binds its filter and residuals to. */
  Schema schema() {
    return this.schema;
  }

  /** The columns of every row. */
  Schema projection() {
    return this.projection;
  }

  boolean caseSensitive() {
    return this.caseSensitive;
  }

  /** The request's filter, {@code alwaysTrue} without one. */
  Expression filter() {
    return this.filter;
  }

  /** The snapshot planned, or {@code null} for an incremental scan or a table without snapshots. */
  @Nullable Long snapshotId() {
    return this.snapshotId;
  }

  /** The table's partition type when {@code _partition} is selected, else {@code null}. */
  Types.@Nullable StructType partitionType() {
    return this.partitionType;
  }

  private static @Nullable Long currentSnapshotId(TableMetadata metadata) {
    Snapshot current = metadata.currentSnapshot();
    return current == null ? null : current.snapshotId();
  }

  private static Expression filter(IcebergTable table, @Nullable String json, Schema schema, boolean caseSensitive) {
    if (json == null) {
      return Expressions.alwaysTrue();
    }
    Expression filter;
    try {
      filter = ExpressionParser.fromJson(json);
    }
    catch (RuntimeException invalid) {
      throw new IllegalArgumentException("the filter is not an Iceberg expression: " + invalid.getMessage(), invalid);
    }
    try {
      Binder.bind(schema.asStruct(), filter, caseSensitive);
    }
    catch (RuntimeException invalid) {
      // a ValidationException names an unknown column; a literal of the wrong type fails in its parser, which
      // names only the literal: say which column it was compared with
      throw new IllegalArgumentException("the filter does not fit the schema of " + table.identifier() + ": "
          + (invalid instanceof ValidationException ? "" : "a value for column '"
              + FilterTerms.failing(filter, schema, caseSensitive) + "' has the wrong type: ")
          + invalid.getMessage(), invalid);
    }
    return filter;
  }

  private static Schema select(IcebergTable table, Schema schema, List<String> columns, boolean caseSensitive) {
    List<String> missing = columns.stream().filter(name -> caseSensitive
        ? schema.findField(name) == null : schema.caseInsensitiveFindField(name) == null).toList();
    if (!missing.isEmpty()) {
      throw new IllegalArgumentException("select names no column of " + table.identifier() + ": " + missing
          + " (the metadata columns are " + SELECTABLE_METADATA_COLUMNS + ")");
    }
    try {
      return caseSensitive ? schema.select(columns) : schema.caseInsensitiveSelect(columns);
    }
    catch (IllegalArgumentException | ValidationException invalid) {
      throw new IllegalArgumentException("select " + columns + " does not fit the schema of " + table.identifier()
          + ": " + invalid.getMessage(), invalid);
    }
  }

  /** The metadata column of that name, {@code _partition} typed as the table's partitions. */
  private static Types.NestedField metadataColumn(IcebergTable table, String name) {
    if (name.equals(MetadataColumns.IS_DELETED.name())) {
      throw new IllegalArgumentException("select names " + name + ", which marks deleted rows rather than leaving "
          + "them out: rows are read with deletes applied, so every row would say false");
    }
    // Iceberg's own lookup, which types _partition from all of the table's specs, needs a Table
    return MetadataColumns.metadataColumn(new BaseTable(new StaticTableOperations(table.metadata(), null),
        table.identifier().toString()), name);
  }
}
