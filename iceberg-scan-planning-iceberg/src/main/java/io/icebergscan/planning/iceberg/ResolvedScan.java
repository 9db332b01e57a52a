package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.HistoryEntry;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Partitioning;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.SnapshotRef;
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
 * An {@link IcebergScan} resolved against the table it scans, before anything is sent, with the meaning Apache
 * Iceberg's {@code RESTTableScan} gives the same scan, and the core's {@link ScanRequest} that sends it:
 * <ul>
 *   <li>the snapshot: the one {@code useSnapshot}, {@code useRef} or {@code asOfTime} names, which must be in the
 *       table's metadata; else the current snapshot of the metadata the table was loaded with, sent as
 *       {@code snapshot-id}, so a table loaded earlier plans the snapshot it holds, not one another writer committed
 *       since; an incremental scan's range, up to that current snapshot unless {@code toSnapshot} names one;</li>
 *   <li>the schema the scan reads with, and binds its filter and the residuals to: the snapshot's for a time travel
 *       and a tag, the table's current schema for a branch and otherwise, as Iceberg's scans choose;</li>
 *   <li>the columns each row has ({@code select}, in the schema's order, then the metadata columns it names, in
 *       its order), and the {@code select} sent, which names the data columns only: metadata columns
 *       ({@code _file}, {@code _pos}, {@code _spec_id}, {@code _partition}, {@code _row_id},
 *       {@code _last_updated_sequence_number}) are the reader's to fill;</li>
 *   <li>the table's read restrictions bound to that schema, and how the rows are read under them and the filter
 *       ({@link ReadShape}): the filter sent is the shape's {@link ReadShape#pushed()}, the spec's normalization of
 *       the required row filter and of the scan's conjuncts on unmasked fields, and {@code stats-fields} never names a
 *       masked field.</li>
 * </ul>
 * The filter is bound here, once; its JSON is written once, for the request body.
 */
final class ResolvedScan {

  /** The metadata columns a {@code select} may name, as Iceberg's readers fill them. */
  static final List<String> SELECTABLE_METADATA_COLUMNS = List.of(MetadataColumns.FILE_PATH.name(),
      MetadataColumns.ROW_POSITION.name(), MetadataColumns.SPEC_ID.name(), MetadataColumns.PARTITION_COLUMN_NAME,
      MetadataColumns.ROW_ID.name(), MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER.name());

  private final ScanRequest request;
  private final Schema schema;
  private final ReadShape shape;
  private final boolean caseSensitive;
  private final @Nullable Long snapshotId;
  private final Types.@Nullable StructType partitionType;

  private ResolvedScan(ScanRequest request, Schema schema, ReadShape shape, boolean caseSensitive,
      @Nullable Long snapshotId, Types.@Nullable StructType partitionType) {
    this.request = request;
    this.schema = schema;
    this.shape = shape;
    this.caseSensitive = caseSensitive;
    this.snapshotId = snapshotId;
    this.partitionType = partitionType;
  }

  /**
   * @throws IllegalArgumentException when the scan does not fit the table: a snapshot, ref or time it does not have, a
   *     filter or {@code select} of columns its schema does not have, a value of the wrong type
   * @throws io.icebergscan.planning.exceptions.InvalidReadRestrictionsException when the table's read restrictions
   *     cannot be enforced on the schema read
   * @throws io.icebergscan.planning.exceptions.RestrictedReadException when {@code select} names {@code _file} or
   *     {@code _partition} and a masked field is a partition source, whose raw values they would carry
   */
  static ResolvedScan of(IcebergTable table, IcebergScan scan) {
    TableMetadata metadata = table.tableMetadata();
    boolean caseSensitive = scan.isCaseSensitive();
    Long snapshotId = scan.snapshotId();
    boolean snapshotSchema = snapshotId != null;
    if (scan.ref() != null) {
      SnapshotRef ref = metadata.ref(scan.ref());
      if (ref == null) {
        throw new IllegalArgumentException("useRef(" + scan.ref() + "): " + table.identifier()
            + " as it was loaded has no branch or tag of that name (its refs: " + metadata.refs().keySet() + ")");
      }
      snapshotId = ref.snapshotId();
      snapshotSchema = ref.isTag();
    }
    if (scan.asOfTime() != null) {
      snapshotId = snapshotAsOf(table, scan.asOfTime());
      snapshotSchema = true;
    }
    Long from = scan.fromSnapshotExclusive();
    Long to = scan.toSnapshot();
    if (to != null && from == null) {
      throw new IllegalArgumentException("toSnapshot(" + to + ") needs fromSnapshotExclusive: the catalog plans "
          + "an incremental scan between two snapshots");
    }
    if (from != null && to == null) {
      to = currentSnapshotId(metadata);
      if (to == null) {
        throw new IllegalArgumentException("fromSnapshotExclusive(" + from + "): " + table.identifier()
            + " has no current snapshot to scan up to");
      }
    }
    for (Long named : new Long[] { snapshotId, from, to }) {
      if (named != null && metadata.snapshot(named) == null) {
        throw new IllegalArgumentException("snapshot " + named + " is not a snapshot of " + table.identifier()
            + " as it was loaded (" + metadata.snapshots().size() + " snapshots, the current "
            + currentSnapshotId(metadata) + "): load the table again to scan a snapshot committed since");
      }
    }
    boolean named = snapshotId != null;
    if (snapshotId == null && from == null) {
      snapshotId = currentSnapshotId(metadata);
    }
    Schema schema = snapshotId != null && snapshotSchema ? table.schemaOf(snapshotId) : table.currentSchema();
    Expression filter = bind(table, scan.filter(), schema, caseSensitive);
    String tableName = table.identifier().toString();
    ReadRestrictions.Bound restrictions = table.readRestrictions().bind(tableName, schema);

    List<String> dataColumns = null;
    List<Types.NestedField> metadataColumns = new ArrayList<>();
    Types.StructType partitionType = null;
    Schema projection = schema;
    if (scan.selectedColumns() != null) {
      dataColumns = new ArrayList<>();
      for (String name : scan.selectedColumns()) {
        String metadataName = caseSensitive ? name : name.toLowerCase(Locale.ROOT);
        if (MetadataColumns.isMetadataColumn(metadataName)) {
          Types.NestedField column = metadataColumn(table, metadataName);
          refuseRawPartitions(table, column, restrictions);
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
    boolean restricted = !table.readRestrictions().isEmpty();
    ReadShape shape = ReadShape.of(tableName, schema, projection, filter, caseSensitive, restrictions, restricted);
    // sent as Iceberg's RESTTableScan sends it: the snapshot schema flag with a named snapshot and a range
    Boolean useSnapshotSchema = from != null ? Boolean.TRUE : named ? Boolean.valueOf(snapshotSchema) : null;
    Expression pushed = shape.pushed();
    ScanRequest sent = new ScanRequest(from != null ? null : snapshotId,
        dataColumns == null || dataColumns.isEmpty() ? null : dataColumns,
        pushed.op() == Expression.Operation.TRUE ? null : RowFilter.ofJson(ExpressionParser.toJson(pushed)),
        caseSensitive ? null : Boolean.FALSE, useSnapshotSchema, from, to,
        statsFields(scan.columnStats(), schema, caseSensitive, restrictions.maskedIds()), scan.minRowsRequested(),
        scan.maxConcurrency(), restricted);
    return new ResolvedScan(sent, schema, shape, caseSensitive, from != null ? null : snapshotId, partitionType);
  }

  /**
   * The columns whose statistics are asked for, less the masked ones: a masked field's bounds and counts describe its
   * raw values, and some catalogs refuse the request outright.
   */
  private static @Nullable List<String> statsFields(@Nullable List<String> columns, Schema schema,
      boolean caseSensitive, java.util.Set<Integer> masked) {
    if (columns == null || masked.isEmpty()) {
      return columns;
    }
    return columns.stream().filter(column -> {
      Types.NestedField field = caseSensitive ? schema.findField(column) : schema.caseInsensitiveFindField(column);
      return field == null || !masked.contains(field.fieldId());
    }).toList();
  }

  /**
   * Refuses {@code _file} and {@code _partition} when a masked field is the source of a partition field: the
   * partition values, and the paths written from them, hold its raw values (in full for identity, in part for the
   * other transforms).
   */
  private static void refuseRawPartitions(IcebergTable table, Types.NestedField column,
      ReadRestrictions.Bound restrictions) {
    if (column.fieldId() != MetadataColumns.PARTITION_COLUMN_ID
        && column.fieldId() != MetadataColumns.FILE_PATH.fieldId()) {
      return;
    }
    for (PartitionSpec spec : table.tableMetadata().specs()) {
      for (PartitionField field : spec.fields()) {
        if (restrictions.maskedIds().contains(field.sourceId())) {
          throw new RestrictedReadException(table.identifier().toString(), "select(" + column.name() + ")",
              "field " + field.sourceId() + " is masked and the source of partition field '" + field.name()
                  + "', whose values and paths hold it raw");
        }
      }
    }
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
    return this.shape.output();
  }

  /** How the rows are read: columns, checks, masks. */
  ReadShape shape() {
    return this.shape;
  }

  boolean caseSensitive() {
    return this.caseSensitive;
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

  /** The snapshot current at that time, as Iceberg's {@code asOfTime} finds it in the table's snapshot log. */
  private static long snapshotAsOf(IcebergTable table, long timestampMillis) {
    Long found = null;
    for (HistoryEntry entry : table.tableMetadata().snapshotLog()) {
      if (entry.timestampMillis() <= timestampMillis) {
        found = entry.snapshotId();
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("asOfTime(" + timestampMillis + "): " + table.identifier()
          + " had no snapshot yet at that time");
    }
    return found;
  }

  /**
   * The filter checked against the schema the scan reads with, as it is evaluated on the rows. A bound expression
   * (bound to a schema of its own) goes through Iceberg's JSON form, as the catalog receives it, to be bound here.
   */
  private static Expression bind(IcebergTable table, Expression given, Schema schema, boolean caseSensitive) {
    Expression filter = isBound(given) ? ExpressionParser.fromJson(ExpressionParser.toJson(given)) : given;
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

  /** Whether any predicate is bound: Iceberg's own check, which calls a partly bound expression an error. */
  private static boolean isBound(Expression expression) {
    if (expression.op() == Expression.Operation.TRUE || expression.op() == Expression.Operation.FALSE) {
      return false;
    }
    try {
      return Binder.isBound(expression);
    }
    catch (ValidationException partlyBound) {
      return true;
    }
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
    return MetadataColumns.metadataColumn(new BaseTable(new StaticTableOperations(table.tableMetadata(), null),
        table.identifier().toString()), name);
  }
}
