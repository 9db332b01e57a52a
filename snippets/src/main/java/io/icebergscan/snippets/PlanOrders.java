package io.icebergscan.snippets;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;

class PlanOrders {

  /** @param catalogUri the part before /v1/..., such as https://catalog.example.com/api/catalog */
  static void planOrders(String catalogUri) {
    try (ScanPlanner planner = ScanPlanner.builder()
        .uri(catalogUri)
        .warehouse("analytics")
        .maxConcurrency(32)
        .build()) {

      TableIdentifier orders = TableIdentifier.parse("sales.orders");

      // blocking: the whole plan, with figures about how it was fetched
      ScanPlan plan = planner.plan(orders, ScanRequest.builder().select("order_id", "amount").build());
      System.out.println(plan.tasks().size() + " tasks, " + plan.statistics().requestsMade() + " requests");

      // streaming: a plan of its own, tasks in walk order as they come, in bounded memory; cancel abandons it
      for (FileScanTask task : planner.planTasks(orders, ScanRequest.all()).toIterable()) {
        System.out.println(task.dataFile().filePath());
      }
    }
  }
}
