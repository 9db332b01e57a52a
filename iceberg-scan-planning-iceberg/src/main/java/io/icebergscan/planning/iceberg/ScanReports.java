package io.icebergscan.planning.iceberg;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ExpressionParser;
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
 * best effort: a report that fails is logged, and the plan is returned all the same.
 */
final class ScanReports {

  private static final Log logger = LogFactory.getLog(ScanReports.class);

  private ScanReports() {
  }

  static void send(ScanPlanner planner, IcebergTable table, ScanRequest request, Schema projection, ScanPlan plan,
      List<FileScanTask> tasks) {
    try {
      if (!planner.supportsEndpoint(ScanPlanner.REPORT_METRICS_ENDPOINT)) {
        return;
      }
      ScanReport report = report(table, request, projection, plan, tasks);
      if (report != null) {
        planner.reportMetrics(table.identifier(), ReportMetricsRequestParser.toJson(ReportMetricsRequest.of(report)));
      }
    }
    catch (RuntimeException failure) {
      logger.warn("The scan report of " + table.identifier() + " could not be sent; the plan is not affected: "
          + failure.getMessage());
    }
  }

  /** The report, or {@code null} for a table with no snapshot to name. */
  static @Nullable ScanReport report(IcebergTable table, ScanRequest request, Schema projection, ScanPlan plan,
      List<FileScanTask> tasks) {
    Long snapshotId = request.snapshotId() != null ? request.snapshotId()
        : request.endSnapshotId() != null ? request.endSnapshotId() : currentSnapshotId(table);
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
        .totalPlanningDuration(TimerResult.of(TimeUnit.NANOSECONDS, plan.elapsed(), 1))
        .resultDataFiles(count(tasks.size()))
        .resultDeleteFiles(count(deleteFiles))
        .totalFileSizeInBytes(CounterResult.of(MetricsContext.Unit.BYTES, dataBytes))
        .totalDeleteFileSizeInBytes(CounterResult.of(MetricsContext.Unit.BYTES, deleteBytes))
        .indexedDeleteFiles(count(distinctDeletes.size()))
        .equalityDeleteFiles(count(equality))
        .positionalDeleteFiles(count(positional))
        .dvs(count(dvs))
        .build();
    Schema schema = table.schema();
    return ImmutableScanReport.builder()
        .tableName(table.identifier().toString())
        .snapshotId(snapshotId)
        .filter(request.filter() == null ? Expressions.alwaysTrue() : ExpressionParser.fromJson(request.filter()))
        .schemaId(schema.schemaId())
        .projectedFieldIds(TypeUtil.getProjectedIds(projection))
        .projectedFieldNames(projection.columns().stream().map(field -> projection.findColumnName(field.fieldId()))
            .toList())
        .scanMetrics(metrics)
        .putMetadata("planner", "iceberg-scan-planning")
        .putMetadata("plan-tasks-fetched", Integer.toString(plan.planTasksFetched()))
        .putMetadata("requests-made", Integer.toString(plan.requestsMade()))
        .putMetadata("replans", Integer.toString(plan.replans()))
        .build();
  }

  private static @Nullable Long currentSnapshotId(IcebergTable table) {
    Snapshot current = table.metadata().currentSnapshot();
    return current == null ? null : current.snapshotId();
  }

  private static CounterResult count(long value) {
    return CounterResult.of(MetricsContext.Unit.COUNT, value);
  }
}
