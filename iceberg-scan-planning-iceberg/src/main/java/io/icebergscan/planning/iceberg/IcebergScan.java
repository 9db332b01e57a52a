package io.icebergscan.planning.iceberg;

import java.util.Collection;
import java.util.List;
import java.util.Objects;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.jspecify.annotations.Nullable;

/**
 * What to scan, in the terms of Apache Iceberg's {@link org.apache.iceberg.TableScan}: an immutable value whose
 * refinements each return a new scan, as Iceberg's do. {@link IcebergScanPlanner} plans it against an
 * {@link IcebergTable}, resolving it as Iceberg's {@code RESTTableScan} resolves the same scan of the table it
 * loaded:
 *
 * <pre>{@code
 * IcebergScan scan = IcebergScan.all()
 *     .filter(Expressions.greaterThan("amount", 100))
 *     .select("order_id", "amount")
 *     .useSnapshot(snapshotId);
 * try (IcebergScanPlan plan = planner.plan(table, scan)) { ... }
 * }</pre>
 *
 * <ul>
 *   <li>{@link #filter} is Iceberg's {@link Expression}, unbound or bound, ANDed with the filters given before;</li>
 *   <li>one snapshot: {@link #useSnapshot}, {@link #useRef} (a branch or a tag) or {@link #asOfTime}, at most one of
 *       them; without, the current snapshot of the metadata the table was loaded with. A time travel and a tag read
 *       with their snapshot's schema, a branch with the table's, as Iceberg's scans do;</li>
 *   <li>an incremental scan of the appends after {@link #fromSnapshotExclusive} up to {@link #toSnapshot} (the
 *       table's current snapshot when not given), as Iceberg's {@code IncrementalAppendScan} names them.</li>
 * </ul>
 */
public final class IcebergScan {

  private static final IcebergScan ALL = new IcebergScan(Expressions.alwaysTrue(), null, true, null, null, null, null,
      null, null, null, null);

  private final Expression filter;
  private final @Nullable List<String> select;
  private final boolean caseSensitive;
  private final @Nullable Long snapshotId;
  private final @Nullable String ref;
  private final @Nullable Long asOfTime;
  private final @Nullable Long fromSnapshotExclusive;
  private final @Nullable Long toSnapshot;
  private final @Nullable List<String> columnStats;
  private final @Nullable Long minRowsRequested;
  private final @Nullable Integer maxConcurrency;

  private IcebergScan(Expression filter, @Nullable List<String> select, boolean caseSensitive,
      @Nullable Long snapshotId, @Nullable String ref, @Nullable Long asOfTime, @Nullable Long fromSnapshotExclusive,
      @Nullable Long toSnapshot, @Nullable List<String> columnStats, @Nullable Long minRowsRequested,
      @Nullable Integer maxConcurrency) {
    this.filter = filter;
    this.select = select;
    this.caseSensitive = caseSensitive;
    this.snapshotId = snapshotId;
    this.ref = ref;
    this.asOfTime = asOfTime;
    this.fromSnapshotExclusive = fromSnapshotExclusive;
    this.toSnapshot = toSnapshot;
    this.columnStats = columnStats;
    this.minRowsRequested = minRowsRequested;
    this.maxConcurrency = maxConcurrency;
  }

  /** Every row of the table's current snapshot, every column, case-sensitive names. */
  public static IcebergScan all() {
    return ALL;
  }

  /** This scan with {@code expression} ANDed to its filter, as {@code TableScan.filter} does. */
  public IcebergScan filter(Expression expression) {
    Objects.requireNonNull(expression, "filter");
    Expression combined = this.filter == Expressions.alwaysTrue() ? expression : Expressions.and(this.filter,
        expression);
    return new IcebergScan(combined, this.select, this.caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /**
   * This scan reading only these columns (full names, nested ones with dots) and the metadata columns named
   * ({@code _file}, {@code _pos}, {@code _spec_id}, {@code _partition}, {@code _row_id},
   * {@code _last_updated_sequence_number}); replaces an earlier {@code select}.
   */
  public IcebergScan select(Collection<String> columns) {
    List<String> copy = List.copyOf(Objects.requireNonNull(columns, "columns"));
    return new IcebergScan(this.filter, copy, this.caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** See {@link #select(Collection)}. */
  public IcebergScan select(String... columns) {
    return select(List.of(columns));
  }

  /** Whether the names in {@link #select} and {@link #filter} match the schema's case-sensitively (the default). */
  public IcebergScan caseSensitive(boolean caseSensitive) {
    return new IcebergScan(this.filter, this.select, caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** This scan of the snapshot with that id (time travel), read with that snapshot's schema. */
  public IcebergScan useSnapshot(long snapshotId) {
    checkNoSnapshotYet("useSnapshot(" + snapshotId + ")");
    return new IcebergScan(this.filter, this.select, this.caseSensitive, snapshotId, null, null, null, null,
        this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** This scan of the snapshot a branch or tag names: a tag read with its snapshot's schema, a branch with the table's. */
  public IcebergScan useRef(String name) {
    Objects.requireNonNull(name, "ref");
    checkNoSnapshotYet("useRef(" + name + ")");
    return new IcebergScan(this.filter, this.select, this.caseSensitive, null, name, null, null, null,
        this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** This scan of the snapshot that was current at that time (epoch milliseconds), read with its schema. */
  public IcebergScan asOfTime(long timestampMillis) {
    checkNoSnapshotYet("asOfTime(" + timestampMillis + ")");
    return new IcebergScan(this.filter, this.select, this.caseSensitive, null, null, timestampMillis, null, null,
        this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** An incremental scan of the data appended after that snapshot, up to {@link #toSnapshot} or the current one. */
  public IcebergScan fromSnapshotExclusive(long snapshotId) {
    if (this.snapshotId != null || this.ref != null || this.asOfTime != null) {
      throw new IllegalArgumentException("fromSnapshotExclusive(" + snapshotId + ") cannot follow " + snapshotChoice()
          + ": an incremental scan spans snapshots; choose one");
    }
    return new IcebergScan(this.filter, this.select, this.caseSensitive, null, null, null, snapshotId,
        this.toSnapshot, this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** The inclusive end of an incremental scan; needs {@link #fromSnapshotExclusive}. */
  public IcebergScan toSnapshot(long snapshotId) {
    if (this.snapshotId != null || this.ref != null || this.asOfTime != null) {
      throw new IllegalArgumentException("toSnapshot(" + snapshotId + ") cannot follow " + snapshotChoice()
          + ": an incremental scan spans snapshots; choose one");
    }
    return new IcebergScan(this.filter, this.select, this.caseSensitive, null, null, null,
        this.fromSnapshotExclusive, snapshotId, this.columnStats, this.minRowsRequested, this.maxConcurrency);
  }

  /** The columns whose statistics (counts and bounds) every data file of the plan carries, as Iceberg's client asks. */
  public IcebergScan includeColumnStats(Collection<String> columns) {
    List<String> copy = List.copyOf(Objects.requireNonNull(columns, "columns"));
    return new IcebergScan(this.filter, this.select, this.caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, copy, this.minRowsRequested, this.maxConcurrency);
  }

  /** A hint to the catalog that this many rows are enough. */
  public IcebergScan minRowsRequested(long rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("minRowsRequested must not be negative: " + rows);
    }
    return new IcebergScan(this.filter, this.select, this.caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, this.columnStats, rows, this.maxConcurrency);
  }

  /** The plan-task fetches this plan may have in flight, at most the planner's own limit. */
  public IcebergScan maxConcurrency(int maxConcurrency) {
    if (maxConcurrency < 1) {
      throw new IllegalArgumentException("maxConcurrency must be at least 1: " + maxConcurrency);
    }
    return new IcebergScan(this.filter, this.select, this.caseSensitive, this.snapshotId, this.ref, this.asOfTime,
        this.fromSnapshotExclusive, this.toSnapshot, this.columnStats, this.minRowsRequested, maxConcurrency);
  }

  /** The filter, {@code alwaysTrue} when none was given. */
  public Expression filter() {
    return this.filter;
  }

  /** The columns selected, or {@code null} for all. */
  public @Nullable List<String> selectedColumns() {
    return this.select;
  }

  public boolean isCaseSensitive() {
    return this.caseSensitive;
  }

  @Nullable Long snapshotId() {
    return this.snapshotId;
  }

  @Nullable String ref() {
    return this.ref;
  }

  @Nullable Long asOfTime() {
    return this.asOfTime;
  }

  @Nullable Long fromSnapshotExclusive() {
    return this.fromSnapshotExclusive;
  }

  @Nullable Long toSnapshot() {
    return this.toSnapshot;
  }

  @Nullable List<String> columnStats() {
    return this.columnStats;
  }

  @Nullable Long minRowsRequested() {
    return this.minRowsRequested;
  }

  @Nullable Integer maxConcurrency() {
    return this.maxConcurrency;
  }

  private void checkNoSnapshotYet(String choice) {
    if (this.snapshotId != null || this.ref != null || this.asOfTime != null) {
      throw new IllegalArgumentException(choice + " cannot follow " + snapshotChoice() + ": a scan reads one snapshot");
    }
    if (this.fromSnapshotExclusive != null || this.toSnapshot != null) {
      throw new IllegalArgumentException(choice + " cannot follow an incremental scan's range: choose one");
    }
  }

  private String snapshotChoice() {
    return this.snapshotId != null ? "useSnapshot(" + this.snapshotId + ")"
        : this.ref != null ? "useRef(" + this.ref + ")" : "asOfTime(" + this.asOfTime + ")";
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("IcebergScan[filter=").append(this.filter);
    if (this.select != null) {
      out.append(", select=").append(this.select);
    }
    if (!this.caseSensitive) {
      out.append(", case-insensitive");
    }
    if (this.snapshotId != null || this.ref != null || this.asOfTime != null) {
      out.append(", ").append(snapshotChoice());
    }
    if (this.fromSnapshotExclusive != null || this.toSnapshot != null) {
      out.append(", appends after ").append(this.fromSnapshotExclusive).append(" up to ")
          .append(this.toSnapshot == null ? "the current snapshot" : this.toSnapshot);
    }
    return out.append(']').toString();
  }
}
