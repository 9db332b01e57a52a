package io.icebergscan.snippets;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ScanRows;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.springframework.stereotype.Service;

@Service
class CustomerRows {

  static final TableIdentifier CUSTOMERS = TableIdentifier.of("crm", "customers");

  private final IcebergScanPlanner iceberg;

  CustomerRows(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  /** What the catalog lets this application see: the rows its row filter keeps, each masked column masked. */
  List<Record> visible() {
    IcebergTable customers = this.iceberg.loadTable(CUSTOMERS);   // its read restrictions come with the load
    List<Record> read = new ArrayList<>();
    try (ScanRows rows = this.iceberg.readRows(customers, IcebergScan.all())) {
      rows.forEach(read::add);
    }
    return read;
  }
}
