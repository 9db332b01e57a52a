package io.icebergscan.snippets;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ScanRows;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.springframework.stereotype.Service;

@Service
class OrderRows {

  private final IcebergScanPlanner iceberg;

  OrderRows(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  List<Record> all() {
    IcebergTable table = this.iceberg.loadTable(TableIdentifier.parse("sales.orders"));
    List<Record> read = new ArrayList<>();
    try (IcebergScanPlan plan = this.iceberg.plan(table, IcebergScan.all());
        ScanRows rows = plan.rows()) {              // ScanRows closes without a checked exception
      rows.forEach(read::add);
    }
    return read;
  }
}
