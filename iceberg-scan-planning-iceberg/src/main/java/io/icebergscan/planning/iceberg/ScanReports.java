package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.model.Endpoint;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.metrics.CounterResult;
import org.apache.iceberg.metrics.ImmutableScanMetricsResult;
import org.apache.iceberg.metrics.ImmutableScanReport;
import org.apache.iceberg.metrics.MetricsContext;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.metrics.TimerResult;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequestParser;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.util.ContentFileUtil;
import org.apache.iceberg.util.ScanTaskUtil;
import org.jspecify.annotations.Nullable;

/**
 * The {@link ScanReport} a plan sends its catalog, as Apache Iceberg's clients send one after planning locally
 * (Iceberg's own client sends none for a plan on the server): what was scanned, and the metrics this client
 * knows. Manifest counts are the server's to know, so they are left out rather than reported as zero. Sending is
 * best effort and off the caller's path: the report is sent in the background, given {@link #TIMEOUT}, and a report
 * that fails or takes longer is logged; the plan is returned without waiting for it.
 */
final class ScanReports {

  private static final Log logger = LogFactory.getLog(ScanReports.class);

  /** How long a report may take: a catalog slow to take reports holds up nothing, and is not waited on for long. */
  static final Duration TIMEOUT = Duration.ofSeconds(10);

  private ScanReports() {
  }

  /** Sends the report of a plan when the catalog takes reports, without waiting for the catalog's answer. */
  static void sendInBackground(ScanPlanner planner, IcebergTable table, ResolvedScan scan, ScanPlan plan,
      List<FileScanTask> tasks) {
    try {
      // the planner's discovery, made by the plan: nothing is sent here
      if (!planner.catalog().supports(Endpoint.REPORT_METRICS)) {
        return;
      }
      ScanReport report = report(table, scan, plan, tasks);
      if (report == null) {
        return;
      }
      planner.catalog()
          .reportMetrics(table.catalogIdentifier(), ReportMetricsRequestParser.toJson(ReportMetricsRequest.of(report)))
          .timeout(TIMEOUT)
          .subscribe(null, failure -> failed(table, failure));
    }
    catch (RuntimeException failure) {
      failed(table, failure);
    }
  }

  private static void failed(IcebergTable table, Throwable failure) {
    logger.warn("The scan report of " + table.identifier() + " could not be sent; the plan is not affected: "
        + (failure instanceof TimeoutException ? "no answer within " + TIMEOUT : failure.getMessage()));
  }

  /** The report, or {@code null} for a table with no snapshot to name. */
  static @Nullable ScanReport report(IcebergTable table, ResolvedScan scan, ScanPlan plan,
      List<FileScanTask> tasks) {
    // the snapshot planned: the one the request named, the current one of the table as loaded, or an incremental
    // scan's end
    Long snapshotId = scan.snapshotId() != null ? scan.snapshotId() : scan.request().endSnapshotId();
    if (snapshotId == null) {
      return null;
    }
    long dataBytes = 0;
    long deleteFiles = 0;
    long deleteBytes = 0;
    Set<String> distinctDeletes = new HashSet<>();
    long equality = 0;
    long positional = 0;
    long dvs = 0;
    for (FileScanTask task : tasks) {
      dataBytes += task.file().fileSizeInBytes();
      deleteFiles += task.deletes().size();
      for (DeleteFile delete : task.deletes()) {
        deleteBytes += ScanTaskUtil.contentSizeInBytes(delete);
        if (distinctDeletes.add(delete.location() + "@" + delete.contentOffset())) {
          if (delete.content() == FileContent.EQUALITY_DELETES) {
            equality++;
          }
          else if (ContentFileUtil.isDV(delete)) {
            dvs++;
          }
          else {
            positional++;
          }
        }
      }
    }
    ImmutableScanMetricsResult metrics = ImmutableScanMetricsResult.builder()
        .totalPlanningDuration(TimerResult.of(TimeUnit.NANOSECONDS, plan.statistics().elapsed(), 1))
        .resultDataFiles(count(tasks.size()))
        .resultDeleteFiles(count(deleteFiles))
        .totalFileSizeInBytes(CounterResult.of(MetricsContext.Unit.BYTES, dataBytes))
        .totalDeleteFileSizeInBytes(CounterResult.of(MetricsContext.Unit.BYTES, deleteBytes))
        .indexedDeleteFiles(count(distinctDeletes.size()))
        .equalityDeleteFiles(count(equality))
        .positionalDeleteFiles(count(positional))
        .dvs(count(dvs))
        .build();
    Schema projection = scan.projection();
    return ImmutableScanReport.builder()
        .tableName(table.identifier().toString())
        .snapshotId(snapshotId)
        .filter(scan.shape().pushed())
        .schemaId(scan.schema().schemaId())
        .projectedFieldIds(TypeUtil.getProjectedIds(projection))
        .projectedFieldNames(projection.columns().stream().map(field -> projection.findColumnName(field.fieldId()))
            .toList())
        .scanMetrics(metrics)
        .putMetadata("planner", "iceberg-scan-planning")
        .putMetadata("plan-tasks-fetched", Integer.toString(plan.statistics().planTasksFetched()))
        .putMetadata("requests-made", Integer.toString(plan.statistics().requestsMade()))
        .putMetadata("replans", Integer.toString(plan.statistics().replans()))
        .build();
  }

  private static CounterResult count(long value) {
    return CounterResult.of(MetricsContext.Unit.COUNT, value);
  }
}
