package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.CatalogCalls;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.StubPlanner;
import org.apache.iceberg.catalog.TableIdentifier;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.metrics.ScanMetricsResult;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.rest.requests.ReportMetricsRequestParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * After a plan, the catalog gets a {@code ScanReport} of what was scanned and the metrics this client knows, sent
 * through the planner to Apache Iceberg's own server, which accepts it; turned off, none is sent; and a report
 * that fails never fails the plan.
 */
class ScanReportTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()));
  private static final TableIdentifier TABLE = TableIdentifier.of("reports", "events");

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static EmbeddedTable table;
  private final Recording recording = new Recording();

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    table = catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("reports", "events"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("day").build(), 3);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 30; id++) {
      rows.add(table.newRecord(id, "name-" + id, LocalDate.EPOCH.plusDays(id % 3)));
    }
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows);
    table.append(files);
    table.addDeletes(table.writeDeletionVector(files.get(0), 0, 1));
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @BeforeEach
  void reset() {
    this.recording.reports.clear();
    this.recording.failReports = false;
    this.recording.throwOnReport = false;
  }

  @Test
  void aPlanReportsWhatItScannedAndWhatItFound() {
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    IcebergTable loaded = iceberg.loadTable(TABLE);
    Expression filter = Expressions.greaterThan("id", 4L);
    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all().select("name")
        .filter(filter))) {
      assertThat(this.recording.reports).hasSize(1);
      ScanReport report = (ScanReport) ReportMetricsRequestParser.fromJson(this.recording.reports.get(0)).report();
      assertThat(report.tableName()).isEqualTo("reports.events");
      assertThat(report.snapshotId()).isEqualTo(table.currentSnapshotId());
      assertThat(ExpressionUtil.equivalent(report.filter(), filter, SCHEMA.asStruct(), true)).isTrue();
      assertThat(report.schemaId()).isEqualTo(table.schema().schemaId());
      assertThat(report.projectedFieldIds()).containsExactly(2);
      assertThat(report.projectedFieldNames()).containsExactly("name");
      assertThat(report.scanMetrics().resultDataFiles().value()).isEqualTo(plan.tasks().size()).isEqualTo(3);
      assertThat(report.scanMetrics().resultDeleteFiles().value()).isEqualTo(1);
      assertThat(report.scanMetrics().dvs().value()).isEqualTo(1);
      assertThat(report.scanMetrics().totalFileSizeInBytes().value())
          .isEqualTo(plan.tasks().stream().mapToLong(task -> task.file().fileSizeInBytes()).sum());
      assertThat(report.scanMetrics().totalPlanningDuration().totalDuration())
          .isEqualTo(plan.scanPlan().statistics().elapsed());
      assertThat(report.scanMetrics().totalDataManifests()).as("the server's to know").isNull();
      assertThat(report.metadata()).containsEntry("plan-tasks-fetched",
          Integer.toString(plan.scanPlan().statistics().planTasksFetched()))
              .containsEntry("planner", "iceberg-scan-planning");
      // and Apache Iceberg's server took it: the recording planner sent it through the real one, which fails on
      // anything but a 2xx
      await().atMost(Duration.ofSeconds(10)).until(() -> this.recording.accepted == 1);
    }
  }

  @Test
  void eachKindOfDeleteIsCountedOnceWhileItsBytesAreCountedPerTask() {
    EmbeddedTable mixed = catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("reports", "mixed"),
        SCHEMA, PartitionSpec.unpartitioned(), 2);
    List<DataFile> files = new ArrayList<>();
    for (long id = 0; id < 2; id++) {
      files.addAll(mixed.writeRows(FileFormat.AVRO, List.of(mixed.newRecord(id, "name-" + id, LocalDate.EPOCH))));
    }
    mixed.append(files);
    // a position delete of the first file, and an equality delete every file of the unpartitioned table carries
    DeleteFile positional = mixed.writePositionDeletes(FileFormat.AVRO, files.get(0), 0);
    DeleteFile equality = mixed.writeEqualityDeletes(FileFormat.AVRO, List.of(mixed.newRecord(7L, null, null)), 1);
    mixed.addDeletes(positional, equality);
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TableIdentifier.of("reports", "mixed")),
        IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(2);
      ScanMetricsResult metrics = ((ScanReport) ReportMetricsRequestParser.fromJson(this.recording.reports.get(0))
          .report()).scanMetrics();
      List<DeleteFile> perTask = plan.tasks().stream().flatMap(task -> task.deletes().stream()).toList();
      assertThat(perTask).hasSizeGreaterThanOrEqualTo(3);
      assertThat(metrics.resultDeleteFiles().value()).as("per task").isEqualTo(perTask.size());
      assertThat(metrics.indexedDeleteFiles().value()).as("distinct").isEqualTo(2);
      assertThat(metrics.positionalDeleteFiles().value()).isOne();
      assertThat(metrics.equalityDeleteFiles().value()).isOne();
      assertThat(metrics.dvs().value()).isZero();
      assertThat(metrics.totalDeleteFileSizeInBytes().value())
          .isEqualTo(perTask.stream().mapToLong(DeleteFile::fileSizeInBytes).sum())
          .isGreaterThan(positional.fileSizeInBytes() + equality.fileSizeInBytes());
      assertThat(metrics.totalFileSizeInBytes().value())
          .isEqualTo(files.get(0).fileSizeInBytes() + files.get(1).fileSizeInBytes());
    }
  }

  @Test
  void aTimeTravelReportsTheSnapshotItRead() {
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    long first = table.snapshotIds().get(0);
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TABLE), IcebergScan.all().useSnapshot(first)
        )) {
      ScanReport report = (ScanReport) ReportMetricsRequestParser.fromJson(this.recording.reports.get(0)).report();
      assertThat(report.snapshotId()).isEqualTo(first);
      assertThat(report.filter()).isEqualTo(Expressions.alwaysTrue());
      assertThat(plan.tasks()).hasSize(3);
    }
  }

  @Test
  void aPlanOfATableLoadedEarlierReportsTheSnapshotItPlannedNotOneCommittedSince() {
    EmbeddedTable later = catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("reports", "later"),
        SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    later.appendRows(FileFormat.AVRO, List.of(later.newRecord(1L, "one", LocalDate.EPOCH)));
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    IcebergTable loaded = iceberg.loadTable(TableIdentifier.of("reports", "later"));
    long planned = later.currentSnapshotId();
    later.table().updateSpec().addField(Expressions.bucket("id", 2)).commit();
    later.appendRows(FileFormat.AVRO, List.of(later.newRecord(2L, "two", LocalDate.EPOCH)));
    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all())) {
      assertThat(plan.tasks()).as("the files of the snapshot planned").hasSize(1);
      ScanReport report = (ScanReport) ReportMetricsRequestParser.fromJson(this.recording.reports.get(0)).report();
      assertThat(report.snapshotId()).isEqualTo(planned);
    }
  }

  @Test
  void aCatalogSlowToTakeTheReportDoesNotHoldUpThePlan() {
    catalog.metricsLatency(Duration.ofSeconds(5));
    try (IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build()) {
      catalog.resetRequestCounts();
      try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TABLE), IcebergScan.all())) {
        assertThat(plan.tasks()).hasSize(3);
      }
      // the plan is back; its report reaches the catalog, which is still answering it
      await().atMost(Duration.ofSeconds(4)).until(() -> catalog.requestCounts().metrics() == 1);
      assertThat(catalog.requestCounts().metricsInFlight()).isOne();
    }
    finally {
      catalog.metricsLatency(Duration.ZERO);
    }
  }

  @Test
  void turnedOffNoneIsSent() {
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).scanReports(false).build();
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TABLE), IcebergScan.all())) {
      assertThat(plan.tasks()).isNotEmpty();
    }
    assertThat(this.recording.reports).isEmpty();
  }

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aReportThatFailsNeverFailsThePlanAndIsLogged(CapturedOutput output) {
    this.recording.failReports = true;
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TABLE), IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(3);
    }
    assertThat(this.recording.reports).hasSize(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> output.getAll().contains("The scan report of reports.events "
        + "could not be sent; the plan is not affected: the catalog went away"));
  }

  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void aReportThatFailsBeforeItIsSentNeverFailsThePlanAndIsLogged(CapturedOutput output) {
    this.recording.throwOnReport = true;
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(this.recording).build();
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(TABLE), IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(3);
    }
    // thrown on the planning thread, so logged before the plan is back
    assertThat(output.getAll()).contains("The scan report of reports.events could not be sent; the plan is not "
        + "affected: no report today");
  }

  /** The real planner, with each report's body recorded before it is sent, or refused. */
  private static final class Recording extends StubPlanner {

    final List<String> reports = new CopyOnWriteArrayList<>();
    volatile boolean failReports;
    /** Whether a report is refused by throwing rather than by a failing answer. */
    volatile boolean throwOnReport;
    volatile int accepted;
    private final CatalogCalls catalog = new DelegatingCatalogCalls(planner.catalog()) {

      @Override
      public Mono<Void> reportMetrics(io.icebergscan.planning.model.TableIdentifier table, String reportJson) {
        Recording.this.reports.add(reportJson);
        if (Recording.this.throwOnReport) {
          throw new IllegalStateException("no report today");
        }
        if (Recording.this.failReports) {
          return Mono.error(new io.icebergscan.planning.exceptions.TransportException("the catalog went away", null,
              null));
        }
        return super.reportMetrics(table, reportJson).doOnSuccess(done -> Recording.this.accepted++);
      }
    };

    Recording() {
      super(planner);
    }

    @Override
    public CatalogCalls catalog() {
      return this.catalog;
    }
  }
}
