package io.icebergscan.examples;

import java.util.HashSet;
import java.util.Set;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileScanTask;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/** Plans the configured table once at start-up and prints what the plan holds and how it was fetched. */
@Component
class PlanSummary implements ApplicationRunner {

  private final ScanPlanner planner;
  private final TableIdentifier table;
  private final ScanRequest request;

  PlanSummary(ScanPlanner planner, @Value("${example.table}") String table,
      @Value("${example.filter:#{null}}") String filter) {
    this.planner = planner;
    this.table = TableIdentifier.parse(table);
    ScanRequest.Builder request = ScanRequest.builder();
    if (filter != null && !filter.isBlank()) {
      request.filter(filter);
    }
    this.request = request.build();
  }

  @Override
  public void run(ApplicationArguments args) {
    ScanPlan plan = this.planner.plan(this.table, this.request);
    System.out.println(describe(this.table, plan, this.planner.maxConcurrency()));
  }

  static String describe(TableIdentifier table, ScanPlan plan, int maxConcurrency) {
    Set<String> dataFiles = new HashSet<>();
    Set<DeleteFile> deleteFiles = new HashSet<>();
    long bytes = 0;
    long records = 0;
    for (FileScanTask task : plan.tasks()) {
      if (dataFiles.add(task.dataFile().filePath())) {
        bytes += task.dataFile().fileSizeInBytes();
        records += task.dataFile().recordCount();
      }
      deleteFiles.addAll(task.deleteFiles());
    }
    return String.format("""

        Scan plan for %s (plan id %s)
          file scan tasks      %,d
          data files           %,d
          bytes                %,d
          records              %,d
          delete files         %,d
          plan-tasks fetched   %,d
          walk depth           %d
          requests made        %,d
          max concurrency      %d
          wall time            %d ms
        """, table, plan.planId(), plan.tasks().size(), dataFiles.size(), bytes, records, deleteFiles.size(),
        plan.planTasksFetched(), plan.walkDepth(), plan.requestsMade(), maxConcurrency, plan.elapsed().toMillis());
  }
}
