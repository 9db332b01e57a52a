package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Which snapshot a plan scans and which schema it reads with, side by side with Apache Iceberg's readers
 * ({@code IcebergGenerics}, on a table as Iceberg loads it, and over {@code RESTCatalog}'s server-side planning): a
 * table loaded earlier plans the snapshot its metadata holds, whatever another writer committed since, as Iceberg's
 * table object does (Iceberg's REST client names no snapshot and fails there); a time travel reads with its
 * snapshot's schema by default, as Iceberg's {@code useSnapshot}, and binds its filter and residuals to it, so columns
 * renamed or dropped since are found by the names they had (Iceberg's reader fails on a dropped one).
 */
class SnapshotResolutionTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.StringType.get()),
      Types.NestedField.optional(3, "score", Types.DoubleType.get()));
  private static final String NAMESPACE = "snapshots";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static RESTCatalog icebergClient;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 1)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    icebergClient = new RESTCatalog();
    icebergClient.initialize("client", Map.of("uri", catalog.uri(), "scan-planning-mode", "server"));
  }

  @AfterAll
  static void stop() throws IOException {
    icebergClient.close();
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @Test
  void aTableLoadedEarlierPlansTheSnapshotItHoldsAfterAnotherWriterEvolvedItsSpec() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "evolved_after_load"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 12));
    IcebergTable ours = iceberg.loadTable(identifier(table));
    // Iceberg's table object as loaded: it keeps its metadata until refreshed, and plans its current snapshot
    Table theirs = table.table();
    Table theirsOverRest = icebergClient.loadTable(table.identifier());

    // another writer: a new spec (spec-id 1), and files written with it
    table.table().updateSpec().addField(Expressions.bucket("id", 2)).commit();
    table.appendRows(FileFormat.PARQUET, rows(table, 12, 8));

    List<String> read = read(ours, IcebergScan.all());
    assertThat(read).as("Iceberg's reader, on the table it loaded earlier")
        .containsExactlyInAnyOrderElementsOf(rendered(IcebergGenerics.read(theirs).build()))
        .hasSize(12);
    // Iceberg's REST client (1.12) names no snapshot: the catalog plans its newest, whose files are of a spec the
    // client's metadata does not have
    assertThatThrownBy(() -> rendered(IcebergGenerics.read(theirsOverRest).build()))
        .hasStackTraceContaining("Invalid partition specId: 1");
    // loaded again, it plans the newest
    assertThat(read(iceberg.loadTable(identifier(table)), IcebergScan.all())).hasSize(20);
  }

  @Test
  void aTimeTravelBindsItsFilterToTheSnapshotsSchemaAndReadsWithItByDefault() {
    EmbeddedTable table = renamed("renamed");
    long first = table.snapshotIds().get(0);
    Expression scoreAboveTwo = Expressions.greaterThan("score", 2.0);
    List<String> expected = rendered(IcebergGenerics.read(table.table()).useSnapshot(first).where(scoreAboveTwo)
        .build());
    assertThat(expected).as("Iceberg reads rows of the snapshot's columns").hasSize(3)
        .allSatisfy(row -> assertThat(row).contains("score=").doesNotContain("points"));

    IcebergTable loaded = iceberg.loadTable(identifier(table));
    assertThat(read(loaded, IcebergScan.all().useSnapshot(first).filter(scoreAboveTwo)))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(rendered(IcebergGenerics.read(icebergClient.loadTable(table.identifier())).useSnapshot(first)
        .where(scoreAboveTwo).build())).as("and Iceberg's client planning on the server")
        .containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aTimeTravelTellsTheCatalogWhichSchemaItReadsWith() {
    EmbeddedTable table = renamed("renamed_sent");
    long first = table.snapshotIds().get(0);
    Queue<ScanRequest> sent = new ConcurrentLinkedQueue<>();
    try (IcebergScanPlanner recorded = IcebergScanPlanner.builder(StubPlanner.recordingPlans(planner, sent))
        .scanReports(false).build()) {
      table.table().manageSnapshots().createTag("first_tag", first).createBranch("first_branch", first).commit();
      IcebergTable loaded = recorded.loadTable(identifier(table));
      recorded.plan(loaded, IcebergScan.all().useSnapshot(first)).close();
      recorded.plan(loaded, IcebergScan.all().useRef("first_tag")).close();
      recorded.plan(loaded, IcebergScan.all().useRef("first_branch")).close();
      recorded.plan(loaded, IcebergScan.all()).close();
    }
    assertThat(sent).extracting(ScanRequest::snapshotId).containsExactly(first, first, first, table.table()
        .currentSnapshot().snapshotId());
    assertThat(sent).extracting(ScanRequest::useSnapshotSchema)
        .as("as Iceberg's RESTTableScan: a time travel and a tag with the snapshot's schema, a branch with the table's")
        .containsExactly(true, true, false, null);
  }

  @Test
  void aBranchReadsWithTheTablesSchemaAndATagWithItsSnapshotsAsIcebergsScansDo() {
    EmbeddedTable table = renamed("renamed_refs");
    long first = table.snapshotIds().get(0);
    table.table().manageSnapshots().createTag("old_tag", first).createBranch("old_branch", first).commit();
    IcebergTable loaded = iceberg.loadTable(identifier(table));
    assertThat(table.table().newScan().useRef("old_branch").schema().findField("points")).isNotNull();
    assertThat(read(loaded, IcebergScan.all().useRef("old_branch"))).hasSize(12)
        .allSatisfy(row -> assertThat(row).contains("points=").doesNotContain("score"));
    assertThat(table.table().newScan().useRef("old_tag").schema().findField("score")).isNotNull();
    assertThat(read(loaded, IcebergScan.all().useRef("old_tag"))).hasSize(12)
        .allSatisfy(row -> assertThat(row).contains("score=").doesNotContain("points"));
  }

  /**
   * Apache Iceberg's server and reader both bind a time travel's filter on a column dropped since to the current
   * schema, and fail; this client binds it, and the residuals the catalog sends, to the snapshot's. Against Iceberg's
   * server the plan fails there, typed; a residual naming the column converts, bound to the snapshot's schema. It is
   * advisory: the rows of a task are the plan's, checked against the plan's filter (here none).
   */
  @Test
  void aFilterOnAColumnDroppedSinceBindsToTheSnapshotsSchema() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "dropped"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 12));
    long first = table.currentSnapshotId();
    table.table().updateSchema().deleteColumn("score").commit();
    String scoreAboveTwo = ExpressionParser.toJson(Expressions.greaterThan("score", 2.0));
    IcebergTable loaded = iceberg.loadTable(identifier(table));

    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().useSnapshot(first).filter(ExpressionParser.fromJson(scoreAboveTwo))
        )).as("checked here, refused by Iceberg's server").isInstanceOf(RestException.class)
        .hasMessageContaining("400").hasMessageContaining("Cannot find field 'score'");

    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all().useSnapshot(first))) {
      TaskConverter converter = new TaskConverter(loaded.metadata(), plan.schema(), true, false);
      List<String> read = new ArrayList<>();
      for (io.icebergscan.planning.model.FileScanTask task : plan.scanPlan().tasks()) {
        org.apache.iceberg.FileScanTask converted = converter.convert(new io.icebergscan.planning.model.FileScanTask(
            task.dataFile(), task.deleteFiles(), scoreAboveTwo));
        assertThat(converted.residual().toString()).contains("score").contains("2.0");
        read.addAll(rendered(plan.rows(converted)));
      }
      assertThat(read).hasSize(12).allSatisfy(row -> assertThat(row).contains("score="));
    }
  }

  @Test
  void aSnapshotTheTableAsLoadedDoesNotHaveIsRefusedBeforeAnythingIsSent() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "unknown_snapshot"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 3));
    IcebergTable loaded = iceberg.loadTable(identifier(table));
    long committedSince = table.appendRows(FileFormat.AVRO, rows(table, 3, 3));
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().useSnapshot(committedSince)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(Long.toString(committedSince))
        .hasMessageContaining("load the table again");
    assertThat(catalog.requestCounts().plan()).isZero();
  }

  @Test
  void asOfTimeScansTheSnapshotThatWasCurrentThenAsIcebergsReaderDoes() {
    EmbeddedTable table = renamed("renamed_as_of");
    Table theirs = table.table();
    long first = table.snapshotIds().get(0);
    long firstAt = theirs.snapshot(first).timestampMillis();
    List<String> expected = rendered(IcebergGenerics.read(theirs).asOfTime(firstAt).build());
    assertThat(expected).hasSize(12).allSatisfy(row -> assertThat(row).contains("score="));
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    assertThat(read(loaded, IcebergScan.all().asOfTime(firstAt))).containsExactlyInAnyOrderElementsOf(expected);
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().asOfTime(firstAt - 1)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("asOfTime(" + (firstAt - 1) + ")")
        .hasMessageContaining("no snapshot yet");
  }

  @Test
  void aRefTheTableDoesNotHaveIsRefusedNamingItAndTheRefsItHasBeforeAnythingIsSent() {
    EmbeddedTable table = renamed("renamed_no_ref");
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().useRef("nope")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("useRef(nope)")
        .hasMessageContaining("[main]");
    assertThat(catalog.requestCounts().plan()).isZero();
  }

  /**
   * An incremental scan sends its range as the spec defines it: {@code start-snapshot-id} exclusive, the end
   * inclusive, up to the loaded table's current snapshot when no end is given. Apache Iceberg's own server (1.12's
   * {@code CatalogHandlers}) plans the start inclusively, against the spec: what it answers is Iceberg's
   * {@code fromSnapshotInclusive}, one snapshot more than {@code IncrementalAppendScan.fromSnapshotExclusive}.
   */
  @Test
  void anIncrementalScanSendsItsRangeAsTheSpecDefinesItAndIcebergsServerPlansItsStartInclusively() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "appends"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    long first = table.appendRows(FileFormat.AVRO, rows(table, 0, 4));
    long second = table.appendRows(FileFormat.AVRO, rows(table, 4, 4));
    long third = table.appendRows(FileFormat.PARQUET, rows(table, 8, 4));
    Queue<ScanRequest> sent = new ConcurrentLinkedQueue<>();
    try (IcebergScanPlanner recorded = IcebergScanPlanner.builder(StubPlanner.recordingPlans(planner, sent))
        .scanReports(false).build()) {
      IcebergTable loaded = recorded.loadTable(table.identifier());
      for (Long to : new Long[] { second, null }) {
        IcebergScan ours = to == null ? IcebergScan.all().fromSnapshotExclusive(first)
            : IcebergScan.all().fromSnapshotExclusive(first).toSnapshot(to);
        List<String> servers = locations(table.table().newIncrementalAppendScan().fromSnapshotInclusive(first)
            .toSnapshot(to == null ? third : to));
        try (IcebergScanPlan plan = recorded.plan(loaded, ours)) {
          assertThat(plan.tasks()).extracting(task -> task.file().location()).as("up to %s", to == null ? third : to)
              .containsExactlyInAnyOrderElementsOf(servers).hasSize(to == null ? 3 : 2);
        }
      }
      assertThatThrownBy(() -> recorded.plan(loaded, IcebergScan.all().toSnapshot(second)))
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("needs fromSnapshotExclusive");
    }
    assertThat(sent).extracting(ScanRequest::startSnapshotId).containsExactly(first, first);
    assertThat(sent).extracting(ScanRequest::endSnapshotId).containsExactly(second, third);
    assertThat(sent).extracting(ScanRequest::snapshotId).containsOnlyNulls();
    assertThat(locations(table.table().newIncrementalAppendScan().fromSnapshotExclusive(first).toSnapshot(second)))
        .as("Iceberg's own exclusive start: the second snapshot's file alone").hasSize(1);
  }

  private static List<String> locations(org.apache.iceberg.IncrementalAppendScan scan) {
    List<String> locations = new ArrayList<>();
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = scan.planFiles()) {
      tasks.forEach(task -> locations.add(task.file().location()));
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return locations;
  }

  /** An unpartitioned table whose first snapshot has {@code score}, renamed {@code points} before a second one. */
  private static EmbeddedTable renamed(String name) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 12));
    table.table().updateSchema().renameColumn("score", "points").commit();
    table.appendRows(FileFormat.PARQUET, rows(table, 12, 8));
    return table;
  }

  private static List<String> read(IcebergTable table, IcebergScan request) {
    try (IcebergScanPlan plan = iceberg.plan(table, request)) {
      return rendered(plan.rows());
    }
  }

  /** Rows {@code from} on, of the table's current schema: score {@code id / 4}, so ids 12 to 15 score 3. */
  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      Record row = table.newRecord();
      row.setField("id", id);
      row.setField("day", "day-" + id % 3);
      if (table.schema().findField(3) != null) {
        row.setField(table.schema().findField(3).name(), id < 12 ? id / 4.0 : 0.5);
      }
      rows.add(row);
    }
    return rows;
  }

  /** Each row as its fields by name: rows of other record classes compare equal. */
  private static List<String> rendered(CloseableIterable<Record> rows) {
    List<String> rendered = new ArrayList<>();
    try (rows) {
      for (Record row : rows) {
        Map<String, Object> fields = new TreeMap<>();
        row.struct().fields().forEach(field -> fields.put(field.name(), row.getField(field.name())));
        rendered.add(fields.toString());
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rendered;
  }

  private static org.apache.iceberg.catalog.TableIdentifier identifier(EmbeddedTable table) {
    return org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, table.identifier().name());
  }
}
