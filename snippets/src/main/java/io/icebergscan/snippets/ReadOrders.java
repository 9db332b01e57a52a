package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ScanRows;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import reactor.core.publisher.Flux;

class ReadOrders {

  static Flux<Record> read(ScanPlanner planner) {
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build();
    IcebergTable table = iceberg.loadTable(TableIdentifier.parse("sales.orders"));

    IcebergScan scan = IcebergScan.all()                       // Iceberg's TableScan options, by their names
        .select("order_id", "amount")
        .filter(Expressions.greaterThan("amount", 100));      // Iceberg's own Expression, ANDed as TableScan does

    try (IcebergScanPlan plan = iceberg.plan(table, scan)) {
      List<FileScanTask> tasks = plan.tasks();                // one per planned task, in walk order
      List<CombinedScanTask> splits = plan.splitTasks();      // for an engine's workers
      System.out.println(tasks.size() + " tasks in " + splits.size() + " splits");
      System.out.println(plan.summary());                     // tasks, files, bytes, records, delete files
      try (ScanRows rows = plan.rows()) {                     // deletes applied, residuals evaluated,
        rows.forEach(System.out::println);                    // 16 tasks read at a time, in task order
      }
    }

    // a plan of any size in bounded memory: tasks are read as the planner streams them
    try (ScanRows rows = iceberg.readRows(table, scan)) {
      rows.forEach(System.out::println);
    }

    // as they are read, rather than in task order; or as a Flux, with backpressure that reaches the file readers
    return iceberg.readRows(table, scan).unordered().flux();
  }
}
