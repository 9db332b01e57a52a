package io.icebergscan.planning.iceberg;

import java.lang.ref.Cleaner;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

import org.apache.iceberg.DataTableScan;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SnapshotRef;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.TableScanContext;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.types.TypeUtil;
import org.jspecify.annotations.Nullable;

/**
 * A {@link TableScan} of a {@link ScanPlanningCatalog} table, planned on the catalog's server side by an
 * {@link IcebergScanPlanner}: Iceberg's own scan refinements (from {@link DataTableScan}) say what to scan, and
 * {@link #planFiles()} turns them into an {@link IcebergScan}, as Iceberg's {@code RESTTableScan} turns them into its
 * request. {@code planTasks()} is Iceberg's own split planning over those tasks.
 *
 * <p>What Iceberg's refinements mean here:
 * <ul>
 *   <li>{@code filter}, {@code select}/{@code project} (metadata columns among them), {@code caseSensitive},
 *       {@code minRowsRequested}: sent as Iceberg's client sends them;</li>
 *   <li>{@code useSnapshot} and {@code asOfTime} read with the snapshot's schema, {@code useRef} a tag with its
 *       snapshot's and a branch with the table's, as Iceberg's do;</li>
 *   <li>{@code includeColumnStats()} asks for the statistics of every column (Iceberg's client asks for none, so its
 *       aggregate push-down finds no bounds); {@code includeColumnStats(columns)} for those columns;</li>
 *   <li>{@code ignoreResiduals} and the deprecated {@code appendsBetween}/{@code appendsAfter} are refused: this
 *       planner does not honour them, and never silently drops them;</li>
 *   <li>{@code planWith(executor)} is not used: the fan-out runs on the planner's own executor, at its own
 *       concurrency.</li>
 * </ul>
 *
 * <p>The plan's {@link #fileIO() FileIO} (the plan's vended credentials, else the table's) is what an engine ships to
 * its executors; it stays open while this scan is reachable and is closed once it is not, as Iceberg's own scan
 * closes its plan's FileIO.
 */
final class ScanPlanningScan extends DataTableScan {

  /** Closes a plan's FileIO once its scan is unreachable: engines read a scan's files long after planning. */
  private static final Cleaner PLANS = Cleaner.create();

  private final IcebergScanPlanner planner;
  private final TableIdentifier identifier;
  /** The branch or tag {@code useRef} named (not {@code main}), which decides the schema sent. */
  private @Nullable String ref;
  /** The plan's FileIO, once {@link #planFiles()} has planned. */
  private volatile @Nullable FileIO planIo;

  ScanPlanningScan(Table table, Schema schema, TableScanContext context, IcebergScanPlanner planner,
      TableIdentifier identifier) {
    super(table, schema, context);
    this.planner = planner;
    this.identifier = identifier;
  }

  @Override
  protected TableScan newRefinedScan(Table table, Schema schema, TableScanContext context) {
    ScanPlanningScan refined = new ScanPlanningScan(table, schema, context, this.planner, this.identifier);
    refined.ref = this.ref;
    return refined;
  }

  @Override
  public TableScan useRef(String name) {
    ScanPlanningScan refined = (ScanPlanningScan) super.useRef(name);
    refined.ref = SnapshotRef.MAIN_BRANCH.equals(name) ? null : name;
    return refined;
  }

  @Override
  public TableScan useSnapshot(long snapshotId) {
    ScanPlanningScan refined = (ScanPlanningScan) super.useSnapshot(snapshotId);
    refined.ref = null;
    return refined;
  }

  /** Refused: an incremental scan of a catalog table is Iceberg's {@code newIncrementalAppendScan}. */
  @Override
  public TableScan appendsBetween(long fromSnapshotId, long toSnapshotId) {
    throw incrementalRefused("appendsBetween(" + fromSnapshotId + ", " + toSnapshotId + ")");
  }

  /** Refused: an incremental scan of a catalog table is Iceberg's {@code newIncrementalAppendScan}. */
  @Override
  public TableScan appendsAfter(long fromSnapshotId) {
    throw incrementalRefused("appendsAfter(" + fromSnapshotId + ")");
  }

  private UnsupportedOperationException incrementalRefused(String call) {
    return new UnsupportedOperationException(call + " on " + this.identifier + " is not planned by this planner: "
        + "use table.newIncrementalAppendScan(), which Iceberg plans as its own REST client does");
  }

  /**
   * Plans the scan on the catalog's server side: every task, in the order of the serial breadth-first walk.
   *
   * @throws UnsupportedOperationException when the scan asks to ignore residuals
   * @throws IllegalArgumentException when the scan does not fit the table, before any request is made
   * @throws io.icebergscan.planning.exceptions.ScanPlanningException (a subtype) when the plan fails
   */
  @Override
  public CloseableIterable<FileScanTask> planFiles() {
    if (shouldIgnoreResiduals()) {
      throw new UnsupportedOperationException("ignoreResiduals() on " + this.identifier + " is not honoured by "
          + "this planner: the catalog's residuals are what make its tasks' rows right");
    }
    Table table = table();
    IcebergTable planned = IcebergTable.ofCatalogTable(this.identifier,
        ((HasTableOperations) table).operations().current(), table.io());
    IcebergScanPlan plan = this.planner.plan(planned, scan());
    this.planIo = plan.io();
    PLANS.register(this, plan::close);
    return CloseableIterable.withNoopClose(plan.tasks());
  }

  /** The scan in this planner's terms. */
  IcebergScan scan() {
    IcebergScan scan = IcebergScan.all().filter(filter()).caseSensitive(isCaseSensitive());
    if (context().selectedColumns() != null || context().projectedSchema() != null) {
      Schema projected = schema();
      List<String> columns = new ArrayList<>();
      TypeUtil.getProjectedIds(projected).forEach(id -> columns.add(projected.findColumnName(id)));
      scan = scan.select(columns);
    }
    if (this.ref != null) {
      scan = scan.useRef(this.ref);
    }
    else if (snapshotId() != null) {
      scan = scan.useSnapshot(snapshotId());
    }
    if (shouldReturnColumnStats()) {
      Set<Integer> ids = columnsToKeepStats();
      Schema schema = tableSchema();
      List<String> columns = new ArrayList<>();
      (ids == null || ids.isEmpty() ? TypeUtil.getProjectedIds(schema) : ids)
          .forEach(id -> columns.add(schema.findColumnName(id)));
      scan = scan.includeColumnStats(columns);
    }
    Long minRows = context().minRowsRequested();
    if (minRows != null) {
      scan = scan.minRowsRequested(minRows);
    }
    return scan;
  }

  /**
   * The plan's FileIO: made from the credentials it vended, else the table's.
   *
   * @throws IllegalStateException (from the supplier) before {@link #planFiles()} has planned
   */
  @Override
  public Supplier<FileIO> fileIO() {
    return () -> {
      FileIO io = this.planIo;
      if (io == null) {
        throw new IllegalStateException("the FileIO of a scan of " + this.identifier + " is not known before "
            + "planFiles() has planned it");
      }
      return io;
    };
  }
}
