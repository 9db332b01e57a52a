package io.icebergscan.planning.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.model.Endpoint;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.metrics.MetricsReport;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.rest.requests.ReportMetricsRequest;
import org.apache.iceberg.rest.requests.ReportMetricsRequestParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The planner's calls outside plans against Apache Iceberg's own server: what {@code loadTable} hands on is what
 * Iceberg's {@code TableMetadataParser} reads as the catalog's table, and a report Iceberg writes is accepted.
 */
class CatalogCallsOnEmbeddedCatalogTests {

  private static final TableIdentifier EVENTS = EmbeddedIcebergCatalogTests.EVENTS;
  private static final io.icebergscan.planning.model.TableIdentifier PLANNER_EVENTS =
      io.icebergscan.planning.model.TableIdentifier.of(List.of("db", "sales"), "events");

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();

  /** Each answer's request and status, as a filter of the planner's HTTP client sees them. */
  private final List<String> answers = new CopyOnWriteArrayList<>();

  private ScanPlanner planner;

  @BeforeEach
  void start() {
    this.catalog.start();
    this.planner = ScanPlanner.builder().uri(this.catalog.uri())
        .filter((request, next) -> next.exchange(request).doOnNext(response -> this.answers.add(request.method()
            + " " + request.url().getRawPath() + " " + response.statusCode().value())))
        .build();
  }

  @AfterEach
  void close() {
    this.planner.close();
    this.catalog.close();
  }

  @Test
  void aLoadedTablesMetadataIsTheCatalogsTableAsIcebergReadsIt() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA, Tables.BY_DAY, 2);
    table.appendDataFiles(3, "day=1");
    table.table().updateSchema().addColumn("amount", Types.DecimalType.of(18, 2)).commit();
    table.table().updateSpec().addField("id").commit();
    table.appendDataFiles(2, "day=2/id=7");
    TableMetadata expected = ((HasTableOperations) table.table()).operations().current();

    LoadedTable loaded = this.planner.catalog().loadTable(PLANNER_EVENTS, true);
    TableMetadata parsed = TableMetadataParser.fromJson(loaded.metadataJson());

    assertThat(loaded.metadataLocation()).isEqualTo(expected.metadataFileLocation());
    assertThat(parsed.uuid()).isEqualTo(expected.uuid());
    assertThat(parsed.location()).isEqualTo(expected.location());
    assertThat(parsed.formatVersion()).isEqualTo(2);
    assertThat(parsed.schema().schemaId()).isEqualTo(expected.schema().schemaId());
    assertThat(parsed.schema().asStruct()).isEqualTo(expected.schema().asStruct());
    assertThat(parsed.schemas()).extracting(Schema::asStruct)
        .containsExactlyElementsOf(expected.schemas().stream().map(Schema::asStruct).toList());
    assertThat(parsed.specs()).hasSize(2).containsExactlyElementsOf(expected.specs());
    assertThat(parsed.spec()).isEqualTo(expected.spec());
    assertThat(parsed.currentSnapshot().snapshotId()).isEqualTo(table.currentSnapshotId())
        .isEqualTo(expected.currentSnapshot().snapshotId());
    assertThat(parsed.snapshots()).extracting(snapshot -> snapshot.snapshotId())
        .containsExactlyElementsOf(table.snapshotIds());
    assertThat(parsed.properties()).isEqualTo(expected.properties());
  }

  @Test
  void aTableTheCatalogDoesNotHaveIsNoSuchTable() {
    this.catalog.createNamespace("db", "sales");

    assertThatExceptionOfType(NoSuchTableException.class)
        .isThrownBy(() -> this.planner.catalog().loadTable(PLANNER_EVENTS, false))
        .satisfies(missing -> assertThat(missing.statusCode()).isEqualTo(404));
  }

  @Test
  void whetherATableExistsIsAskedWithHeadAsIcebergServesIt() {
    this.catalog.createNamespace("db", "sales");
    assertThat(this.planner.catalog().supports(Endpoint.TABLE_EXISTS)).isTrue();
    assertThat(this.planner.catalog().tableExists(PLANNER_EVENTS)).isFalse();

    this.catalog.createTable(EVENTS, Tables.SCHEMA, Tables.BY_DAY, 2);

    assertThat(this.planner.catalog().tableExists(PLANNER_EVENTS)).isTrue();
    assertThat(this.answers).satisfiesExactly(config -> assertThat(config).isEqualTo("GET /v1/config 200"),
        absent -> assertThat(absent).matches("HEAD /v1/namespaces/db%[0-9A-F]{2}sales/tables/events 404"),
        present -> assertThat(present).matches("HEAD /v1/namespaces/db%[0-9A-F]{2}sales/tables/events 204"));
  }

  @Test
  void aScanReportWrittenByIcebergIsAccepted() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA, Tables.BY_DAY, 2);
    table.appendDataFiles(4, "day=1");
    ScanReport report = scanReport(table);
    assertThat(this.planner.catalog().supports(Endpoint.REPORT_METRICS)).isTrue();

    // Iceberg's server reads the body as a ReportMetricsRequest (one it cannot read is a 500), then answers 204
    this.planner.catalog().reportMetrics(PLANNER_EVENTS, ReportMetricsRequestParser.toJson(ReportMetricsRequest.of(
        report))).block();

    // (the levels are joined by the separator the catalog's config names)
    assertThat(this.answers).satisfiesExactly(config -> assertThat(config).isEqualTo("GET /v1/config 200"),
        posted -> assertThat(posted).matches("POST /v1/namespaces/db%[0-9A-F]{2}sales/tables/events/metrics 204"));
  }

  /** The report Iceberg's own scan of the table makes, in this JVM, when its planning ends. */
  private static ScanReport scanReport(EmbeddedTable table) {
    List<MetricsReport> reports = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = table.table().newScan().filter(Expressions.equal("day", "1"))
        .metricsReporter(reports::add).planFiles()) {
      assertThat(tasks).hasSize(4);
    }
    catch (IOException failure) {
      throw new IllegalStateException(failure);
    }
    assertThat(reports).singleElement().isInstanceOf(ScanReport.class);
    return (ScanReport) reports.get(0);
  }
}
