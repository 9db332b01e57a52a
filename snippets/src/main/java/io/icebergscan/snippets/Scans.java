package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import org.springframework.stereotype.Service;

@Service
class Scans {

  private final ScanPlanner planner;

  Scans(ScanPlanner planner) {
    this.planner = planner;
  }

  List<FileScanTask> bigOrders() {
    return this.planner.plan(TableIdentifier.parse("sales.orders"),
        ScanRequest.builder().filter(RowFilter.greaterThan("amount", 100)).build()).tasks();
  }
}
