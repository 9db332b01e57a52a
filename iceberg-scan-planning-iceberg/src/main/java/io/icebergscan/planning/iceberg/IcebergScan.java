package io.icebergscan.planning.iceberg;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

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

  private static final IcebergScan ALL = new IcebergScan(new Options());

  /**
   * The scan's options: copied by each refinement, which changes its copy before the new scan is made, and never
   * changed after; the scan's final field publishes them safely, so a scan may be shared between threads.
   */
  private static final class Options implements Cloneable {

    Expression filter = Expressions.alwaysTrue();
    @Nullable List<String> select;
    boolean caseSensitive = true;
    @Nullable Long snapshotId;
    @Nullable String ref;
    @Nullable Long asOfTime;
    @Nullable Long fromSnapshotExclusive;
    @Nullable Long toSnapshot;
    @Nullable List<String> columnStats;
    @Nullable Long minRowsRequested;
    @Nullable Integer maxConcurrency;

    @Override
    protected Options clone() {
      try {
        return (Options) super.clone();
      }
      catch (CloneNotSupportedException impossible) {
        throw new AssertionError(impossible);
      }
    }
  }

  private final Options options;

  private IcebergScan(Options options) {
    this.options = options;
  }

  /** A new scan with this one's options as {@code change} sets them. */
  private IcebergScan with(Consumer<Options> change) {
    Options next = this.options.clone();
    change.accept(next);
    return new IcebergScan(next);
  }

  /** Every row of the table's current snapshot, every column, case-sensitive names. */
  public static IcebergScan all() {
    return ALL;
  }

  /**
   * A filter given as JSON, in either of the REST spec's forms: the expressions spec's ({@code left}/{@code right},
   * {@code child}, references by {@code name}, {@code apply} of Iceberg's transforms, typed literals) or the legacy
   * one ({@code term}/{@code value}) that Apache Iceberg's {@code ExpressionParser} reads. Columns are named; each
   * literal is converted to its column's type when the scan is planned.
   *
   * @throws IllegalArgumentException when the JSON is not such a filter, naming the member and the rule broken (and
   *     no value)
   */
  public static Expression parseFilter(String json) {
    Objects.requireNonNull(json, "json");
    return ExpressionJson.parse(ExpressionJson.tree(json), null, ExpressionJson.References.NAMES, "filter");
  }

  /** This scan with {@code expression} ANDed to its filter, as {@code TableScan.filter} does. */
  public IcebergScan filter(Expression expression) {
    Objects.requireNonNull(expression, "filter");
    return with(next -> next.filter = next.filter == Expressions.alwaysTrue() ? expression
        : Expressions.and(next.filter, expression));
  }

  /**
   * This scan reading only these columns (full names, nested ones with dots) and the metadata columns named
   * ({@code _file}, {@code _pos}, {@code _spec_id}, {@code _partition}, {@code _row_id},
   * {@code _last_updated_sequence_number}); replaces an earlier {@code select}.
   */
  public IcebergScan select(Collection<String> columns) {
    List<String> copy = List.copyOf(Objects.requireNonNull(columns, "columns"));
    return with(next -> next.select = copy);
  }

  /** See {@link #select(Collection)}. */
  public IcebergScan select(String... columns) {
    return select(List.of(columns));
  }

  /** Whether the names in {@link #select} and {@link #filter} match the schema's case-sensitively (the default). */
  public IcebergScan caseSensitive(boolean caseSensitive) {
    return with(next -> next.caseSensitive = caseSensitive);
  }

  /** This scan of the snapshot with that id (time travel), read with that snapshot's schema. */
  public IcebergScan useSnapshot(long snapshotId) {
    checkNoSnapshotYet("useSnapshot(" + snapshotId + ")");
    return with(next -> next.snapshotId = snapshotId);
  }

  /** This scan of the snapshot a branch or tag names: a tag read with its snapshot's schema, a branch with the table's. */
  public IcebergScan useRef(String name) {
    Objects.requireNonNull(name, "ref");
    checkNoSnapshotYet("useRef(" + name + ")");
    return with(next -> next.ref = name);
  }

  /** This scan of the snapshot that was current at that time (epoch milliseconds), read with its schema. */
  public IcebergScan asOfTime(long timestampMillis) {
    checkNoSnapshotYet("asOfTime(" + timestampMillis + ")");
    return with(next -> next.asOfTime = timestampMillis);
  }

  /** An incremental scan of the data appended after that snapshot, up to {@link #toSnapshot} or the current one. */
  public IcebergScan fromSnapshotExclusive(long snapshotId) {
    checkNoSnapshotChosen("fromSnapshotExclusive(" + snapshotId + ")");
    return with(next -> next.fromSnapshotExclusive = snapshotId);
  }

  /** The inclusive end of an incremental scan; needs {@link #fromSnapshotExclusive}. */
  public IcebergScan toSnapshot(long snapshotId) {
    checkNoSnapshotChosen("toSnapshot(" + snapshotId + ")");
    return with(next -> next.toSnapshot = snapshotId);
  }

  /** The columns whose statistics (counts and bounds) every data file of the plan carries, as Iceberg's client asks. */
  public IcebergScan includeColumnStats(Collection<String> columns) {
    List<String> copy = List.copyOf(Objects.requireNonNull(columns, "columns"));
    return with(next -> next.columnStats = copy);
  }

  /** A hint to the catalog that this many rows are enough. */
  public IcebergScan minRowsRequested(long rows) {
    if (rows < 0) {
      throw new IllegalArgumentException("minRowsRequested must not be negative: " + rows);
    }
    return with(next -> next.minRowsRequested = rows);
  }

  /** The plan-task fetches this plan may have in flight, at most the planner's own limit. */
  public IcebergScan maxConcurrency(int maxConcurrency) {
    if (maxConcurrency < 1) {
      throw new IllegalArgumentException("maxConcurrency must be at least 1: " + maxConcurrency);
    }
    return with(next -> next.maxConcurrency = maxConcurrency);
  }

  /** The filter, {@code alwaysTrue} when none was given. */
  public Expression filter() {
    return this.options.filter;
  }

  /** The columns selected, or {@code null} for all. */
  public @Nullable List<String> selectedColumns() {
    return this.options.select;
  }

  public boolean isCaseSensitive() {
    return this.options.caseSensitive;
  }

  @Nullable Long snapshotId() {
    return this.options.snapshotId;
  }

  @Nullable String ref() {
    return this.options.ref;
  }

  @Nullable Long asOfTime() {
    return this.options.asOfTime;
  }

  @Nullable Long fromSnapshotExclusive() {
    return this.options.fromSnapshotExclusive;
  }

  @Nullable Long toSnapshot() {
    return this.options.toSnapshot;
  }

  @Nullable List<String> columnStats() {
    return this.options.columnStats;
  }

  @Nullable Long minRowsRequested() {
    return this.options.minRowsRequested;
  }

  @Nullable Integer maxConcurrency() {
    return this.options.maxConcurrency;
  }

  private void checkNoSnapshotChosen(String range) {
    if (this.options.snapshotId != null || this.options.ref != null || this.options.asOfTime != null) {
      throw new IllegalArgumentException(range + " cannot follow " + snapshotChoice()
          + ": an incremental scan spans snapshots; choose one");
    }
  }

  private void checkNoSnapshotYet(String choice) {
    if (this.options.snapshotId != null || this.options.ref != null || this.options.asOfTime != null) {
      throw new IllegalArgumentException(choice + " cannot follow " + snapshotChoice() + ": a scan reads one snapshot");
    }
    if (this.options.fromSnapshotExclusive != null || this.options.toSnapshot != null) {
      throw new IllegalArgumentException(choice + " cannot follow an incremental scan's range: choose one");
    }
  }

  private String snapshotChoice() {
    return this.options.snapshotId != null ? "useSnapshot(" + this.options.snapshotId + ")"
        : this.options.ref != null ? "useRef(" + this.options.ref + ")" : "asOfTime(" + this.options.asOfTime + ")";
  }

  @Override
  public String toString() {
    StringBuilder out = new StringBuilder("IcebergScan[filter=").append(this.options.filter);
    if (this.options.select != null) {
      out.append(", select=").append(this.options.select);
    }
    if (!this.options.caseSensitive) {
      out.append(", case-insensitive");
    }
    if (this.options.snapshotId != null || this.options.ref != null || this.options.asOfTime != null) {
      out.append(", ").append(snapshotChoice());
    }
    if (this.options.fromSnapshotExclusive != null || this.options.toSnapshot != null) {
      out.append(", appends after ").append(this.options.fromSnapshotExclusive).append(" up to ")
          .append(this.options.toSnapshot == null ? "the current snapshot" : this.options.toSnapshot);
    }
    return out.append(']').toString();
  }
}
