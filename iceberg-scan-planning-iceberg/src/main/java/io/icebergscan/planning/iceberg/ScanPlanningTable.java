package io.icebergscan.planning.iceberg;

import java.io.Serial;

import org.apache.iceberg.BaseTable;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.TableScanContext;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * A table of a {@link ScanPlanningCatalog}: Iceberg's table as its {@code RESTCatalog} loaded it (metadata, commits,
 * FileIO and metrics reporter are that table's), whose {@link #newScan()} (and so {@code newBatchScan()}, an adapter
 * of it) plans on the catalog's server side with this project's planner. Incremental and changelog scans are Iceberg's
 * own, planned as its {@code RESTCatalog} plans them. It serializes as Iceberg's {@link SerializableTable}, as Iceberg's
 * tables do.
 */
final class ScanPlanningTable extends BaseTable {

  @Serial
  private static final long serialVersionUID = 1L;

  private final transient IcebergScanPlanner planner;
  private final TableIdentifier identifier;

  ScanPlanningTable(BaseTable loaded, TableIdentifier identifier, IcebergScanPlanner planner) {
    super(loaded.operations(), loaded.name(), loaded.reporter());
    this.identifier = identifier;
    this.planner = planner;
  }

  @Override
  public TableScan newScan() {
    return new ScanPlanningScan(this, schema(), TableScanContext.empty(), this.planner, this.identifier);
  }

  /** Not with Iceberg's distributed planning: the catalog plans. */
  @Override
  public boolean allowDistributedPlanning() {
    return false;
  }

  /** As Iceberg's {@code BaseTable}, whose own method this class cannot inherit from another package. */
  @Serial
  Object writeReplace() {
    return SerializableTable.copyOf(this);
  }
}
