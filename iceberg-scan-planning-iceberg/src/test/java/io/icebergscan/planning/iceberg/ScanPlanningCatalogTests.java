package io.icebergscan.planning.iceberg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SerializableTable;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@link ScanPlanningCatalog} side by side with Apache Iceberg's {@code RESTCatalog} in server planning mode on the
 * same table of the same catalog: every scan option gives the same tasks (data files, deletes, residuals) and the same
 * scan schema, and the same rows read by Iceberg's own reader ({@code IcebergGenerics}, which plans through the
 * table's {@code newScan()}), while the plan-tasks are walked by this planner; what it cannot honour is refused.
 */
class ScanPlanningCatalogTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()));
  private static final FanOut TREE = FanOut.uniform(3, 2);
  private static final TableIdentifier EVENTS = TableIdentifier.of("engines", "events");

  private static EmbeddedIcebergCatalog server;
  private static EmbeddedTable events;
  private static long firstSnapshot;
  private static long firstCommitMillis;
  private static ScanPlanningCatalog ours;
  private static RESTCatalog iceberg;

  @BeforeAll
  static void start() {
    server = EmbeddedIcebergCatalog.create().fanOut(TREE).start();
    events = server.createTable(EVENTS, SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    List<DataFile> files = events.writeRows(FileFormat.PARQUET, rows(0, 40));
    events.append(files);
    firstSnapshot = events.currentSnapshotId();
    firstCommitMillis = events.table().snapshot(firstSnapshot).timestampMillis();
    events.table().manageSnapshots().createTag("first_tag", firstSnapshot).createBranch("audit", firstSnapshot)
        .commit();
    events.table().updateSchema().renameColumn("score", "points").commit();
    events.addDeletes(events.writePositionDeletes(FileFormat.PARQUET, files.get(0), 0, 2));
    events.appendRows(FileFormat.AVRO, rows(40, 20));
    ours = new ScanPlanningCatalog();
    ours.initialize("lake", Map.of("uri", server.uri(), ScanPlanningCatalog.MAX_CONCURRENCY, "4"));
    iceberg = new RESTCatalog();
    iceberg.initialize("reference", Map.of("uri", server.uri(), "scan-planning-mode", "server"));
  }

  @AfterAll
  static void stop() throws IOException {
    ours.close();
    iceberg.close();
    server.close();
  }

  @BeforeEach
  void resetCounts() {
    server.resetRequestCounts();
  }

  /** A scan option, as a table scan refinement and as the same {@code IcebergGenerics} read. */
  static Stream<Arguments> scans() {
    return Stream.of(
        scan("everything", scan -> scan, read -> read),
        scan("a filter", scan -> scan.filter(Expressions.greaterThan("id", 25)),
            read -> read.where(Expressions.greaterThan("id", 25))),
        scan("a filter on a partition", scan -> scan.filter(Expressions.equal("day", "1970-01-02")),
            read -> read.where(Expressions.equal("day", "1970-01-02"))),
        scan("two filters ANDed", scan -> scan.filter(Expressions.lessThan("id", 50))
            .filter(Expressions.notNull("name")), read -> read.where(Expressions.lessThan("id", 50))
            .where(Expressions.notNull("name"))),
        scan("a select", scan -> scan.select("id", "points"), read -> read.select("id", "points")),
        scan("case-insensitive names", scan -> scan.caseSensitive(false).select("ID", "Name")
            .filter(Expressions.greaterThan("ID", 30)), read -> read.caseInsensitive().select("ID", "Name")
            .where(Expressions.greaterThan("ID", 30))),
        scan("a time travel, with its snapshot's schema", scan -> scan.useSnapshot(firstSnapshot)
            .filter(Expressions.greaterThan("score", 3.0)), read -> read.useSnapshot(firstSnapshot)
            .where(Expressions.greaterThan("score", 3.0))),
        scan("as of a time", scan -> scan.asOfTime(firstCommitMillis), read -> read.asOfTime(firstCommitMillis)));
  }

  private static Arguments scan(String name, UnaryOperator<TableScan> scan,
      UnaryOperator<IcebergGenerics.ScanBuilder> read) {
    return arguments(name, scan, read);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("scans")
  void aScanPlansTheTasksAndReadsTheRowsIcebergsClientDoes(String name, UnaryOperator<TableScan> option,
      UnaryOperator<IcebergGenerics.ScanBuilder> read) {
    Table table = ours.loadTable(EVENTS);
    Table reference = iceberg.loadTable(EVENTS);
    TableScan scan = option.apply(table.newScan());
    TableScan theirs = option.apply(reference.newScan());

    assertThat(scan.schema().asStruct()).isEqualTo(theirs.schema().asStruct());
    List<String> ourTasks = tasks(scan, true);
    try {
      assertThat(ourTasks).containsExactlyInAnyOrderElementsOf(tasks(theirs, true)).isNotEmpty();
    }
    catch (ValidationException bindsToTheCurrentSchema) {
      // Iceberg's client binds a time travel's residuals to the table's current schema, where a renamed column is
      // not found: the tasks are compared without them
      assertThat(bindsToTheCurrentSchema).hasMessageContaining("Cannot find field 'score'");
      assertThat(tasks(scan, false)).containsExactlyInAnyOrderElementsOf(tasks(theirs, false)).isNotEmpty();
    }
    List<String> rows = rendered(read.apply(IcebergGenerics.read(table)).build());
    assertThat(rows).as("Iceberg's reader planning on the catalog's own table")
        .containsExactlyInAnyOrderElementsOf(rendered(read.apply(IcebergGenerics.read(events.table())).build()));
    try {
      assertThat(rows).as("Iceberg's reader over its RESTCatalog planning on the server")
          .containsExactlyInAnyOrderElementsOf(rendered(read.apply(IcebergGenerics.read(reference)).build()));
    }
    catch (ValidationException bindsToTheCurrentSchema) {
      // the same: Iceberg's tasks cannot bind a time travel's residual on a renamed column, and its read fails
      assertThat(bindsToTheCurrentSchema).hasMessageContaining("Cannot find field 'score'");
    }
  }

  @Test
  void aTagReadsWithItsSnapshotsSchemaAndABranchWithTheTables() {
    Table table = ours.loadTable(EVENTS);
    Table reference = iceberg.loadTable(EVENTS);
    for (String ref : List.of("first_tag", "audit", "main")) {
      TableScan scan = table.newScan().useRef(ref);
      TableScan theirs = reference.newScan().useRef(ref);
      assertThat(scan.schema().asStruct()).as(ref).isEqualTo(theirs.schema().asStruct());
      assertThat(tasks(scan)).as(ref).containsExactlyInAnyOrderElementsOf(tasks(theirs));
    }
    assertThat(table.newScan().useRef("first_tag").schema().findField("score")).isNotNull();
    assertThat(table.newScan().useRef("audit").schema().findField("points")).isNotNull();
  }

  @Test
  void theFanOutIsWalkedByThisPlannerEachHandleFetchedOnceWithinTheLimit() {
    TableScan scan = ours.loadTable(EVENTS).newScan();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      // three files per append, one per day
      assertThat(tasks).hasSize(6);
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    assertThat(server.requestCounts().plan()).isEqualTo(1);
    assertThat(server.requestCounts().tasks()).isEqualTo(TREE.handles().size());
    assertThat(server.requestCounts().maxConcurrentTasks()).isLessThanOrEqualTo(4);
  }

  @Test
  void eachPlanSendsItsScanReport() throws IOException {
    // a catalog of its own: the other tests' reports arrive in the background
    try (EmbeddedIcebergCatalog alone = EmbeddedIcebergCatalog.create().start();
        ScanPlanningCatalog catalog = new ScanPlanningCatalog()) {
      EmbeddedTable table = alone.createTable(EVENTS, SCHEMA);
      table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one", LocalDate.EPOCH, 1.0)));
      catalog.initialize("reports", Map.of("uri", alone.uri()));
      assertThat(planned(catalog.loadTable(EVENTS).newScan())).hasSize(1);
      await().atMost(Duration.ofSeconds(10)).until(() -> alone.requestCounts().metrics() == 1);
    }
  }

  @Test
  void planTasksIsIcebergsSplitPlanningOfThePlannersTasks() throws IOException {
    TableScan scan = ours.loadTable(EVENTS).newScan().option("split-size", "1024");
    List<String> split = new ArrayList<>();
    try (CloseableIterable<CombinedScanTask> groups = scan.planTasks()) {
      groups.forEach(group -> group.files().forEach(task -> split.add(task.file().location() + "@" + task.start())));
    }
    TableScan theirs = iceberg.loadTable(EVENTS).newScan().option("split-size", "1024");
    List<String> reference = new ArrayList<>();
    try (CloseableIterable<CombinedScanTask> groups = theirs.planTasks()) {
      groups.forEach(group -> group.files().forEach(task -> reference.add(task.file().location() + "@"
          + task.start())));
    }
    assertThat(split).containsExactlyInAnyOrderElementsOf(reference).isNotEmpty();
  }

  @Test
  void includeColumnStatsAsksForEveryColumnWhereIcebergsClientAsksForNone() {
    List<DataFile> ours = new ArrayList<>();
    // Iceberg's Avro writer keeps no bounds: the Parquet files have them
    planned(ScanPlanningCatalogTests.ours.loadTable(EVENTS).newScan().includeColumnStats()).stream()
        .filter(task -> task.file().format() == FileFormat.PARQUET).forEach(task -> ours.add(task.file()));
    assertThat(ours).isNotEmpty().allSatisfy(file -> {
      assertThat(file.lowerBounds()).containsKeys(1, 2, 3, 4);
      assertThat(file.upperBounds()).containsKeys(1, 2, 3, 4);
    });
    List<FileScanTask> theirs = planned(iceberg.loadTable(EVENTS).newScan().includeColumnStats());
    assertThat(theirs).as("Iceberg 1.12's RESTTableScan sends no stats-fields").isNotEmpty()
        .allSatisfy(task -> assertThat(task.file().lowerBounds()).isNullOrEmpty());
    planned(ScanPlanningCatalogTests.ours.loadTable(EVENTS).newScan().includeColumnStats(List.of("id"))).stream()
        .filter(task -> task.file().format() == FileFormat.PARQUET)
        .forEach(task -> assertThat(task.file().lowerBounds()).containsOnlyKeys(1));
  }

  @Test
  void whatThisPlannerDoesNotHonourIsRefusedNamingIt() {
    Table table = ours.loadTable(EVENTS);
    assertThatThrownBy(() -> table.newScan().ignoreResiduals().planFiles())
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("ignoreResiduals()")
        .hasMessageContaining("engines.events");
    assertThatThrownBy(() -> table.newScan().appendsAfter(firstSnapshot))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("newIncrementalAppendScan");
    assertThatThrownBy(() -> table.newScan().appendsBetween(firstSnapshot, events.currentSnapshotId()))
        .isInstanceOf(UnsupportedOperationException.class).hasMessageContaining("appendsBetween");
    assertThatThrownBy(() -> table.newScan().fileIO().get()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("before planFiles()");
    assertThat(server.requestCounts().plan()).isZero();
  }

  @Test
  void everythingButScansIsIcebergsRestCatalog() throws IOException {
    assertThat(ours.listNamespaces()).contains(Namespace.of("engines"));
    assertThat(ours.listTables(Namespace.of("engines"))).contains(EVENTS);
    assertThat(ours.tableExists(EVENTS)).isTrue();
    Table table = ours.loadTable(EVENTS);
    assertThat(table.currentSnapshot().snapshotId()).isEqualTo(events.currentSnapshotId());
    assertThat(table.refs()).containsKeys("main", "first_tag", "audit");
    Table files = ours.loadTable(TableIdentifier.of("engines", "events", "files"));
    assertThat(files).isNotInstanceOf(ScanPlanningTable.class);
    assertThat(planned(files.newScan())).isNotEmpty();

    TableIdentifier created = TableIdentifier.of("engines", "created");
    Table made = ours.buildTable(created, SCHEMA).withProperty("owner", "tests").create();
    assertThat(made).isInstanceOf(ScanPlanningTable.class);
    assertThat(ours.loadTable(created).properties()).containsEntry("owner", "tests");
    assertThat(ours.dropTable(created)).isTrue();
    assertThat(server.requestCounts().plan()).isZero();
  }

  @Test
  void theTableSerializesAsIcebergsAndTheScansFileIOWithThePlansCredentials() throws Exception {
    server.vendedCredentials(request -> List.of(StorageCredential.create("memory://", Map.of("generation",
        request.endpoint().toString()))));
    try {
      Table table = ours.loadTable(EVENTS);
      assertThat(roundTrip(table)).isInstanceOf(SerializableTable.class)
          .satisfies(copy -> assertThat(((Table) copy).currentSnapshot().snapshotId())
              .isEqualTo(events.currentSnapshotId()));
      TableScan scan = table.newScan();
      List<FileScanTask> tasks = planned(scan);
      FileIO io = scan.fileIO().get();
      assertThat(io).isInstanceOf(PlanFileIO.class);
      assertThat(((PlanFileIO) io).credentials()).singleElement()
          .satisfies(credential -> assertThat(credential.config()).containsKey("generation"));
      PlanFileIO shipped = (PlanFileIO) roundTrip(io);
      assertThat(shipped.credentials()).isEqualTo(((PlanFileIO) io).credentials());
      assertThat(roundTrip(tasks.get(0))).isInstanceOf(FileScanTask.class);
      try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
        assertThat(rows).hasSize(58);
      }
    }
    finally {
      server.vendedCredentials(null);
    }
  }

  /**
   * An application's own planner (its observation, authentication, FileIO and report settings): every plan goes
   * through it, and closing the catalog leaves it open.
   */
  @Test
  void aGivenPlannerPlansEveryScanAndOutlivesTheCatalog() throws IOException {
    Queue<ScanRequest> sent = new ConcurrentLinkedQueue<>();
    try (ScanPlanner planner = ScanPlanner.builder().uri(server.uri()).build();
        IcebergScanPlanner given = IcebergScanPlanner.builder(StubPlanner.recordingPlans(planner, sent))
            .scanReports(false).build()) {
      ScanPlanningCatalog catalog = new ScanPlanningCatalog(given);
      catalog.initialize("given", Map.of("uri", server.uri()));
      planned(catalog.loadTable(EVENTS).newScan().filter(Expressions.equal("id", 3L)).useRef("first_tag")
          .select("id", "score").includeColumnStats(List.of("id")).minRowsRequested(5));
      catalog.close();
      assertThat(sent).singleElement().satisfies(request -> {
        assertThat(request.snapshotId()).isEqualTo(firstSnapshot);
        assertThat(request.useSnapshotSchema()).isTrue();
        assertThat(request.filter()).isNotNull();
        assertThat(request.select()).containsExactly("id", "score");
        assertThat(request.statsFields()).containsExactly("id");
        assertThat(request.minRowsRequested()).isEqualTo(5L);
      });
      assertThat(given.plan(given.loadTable(EVENTS), IcebergScan.all()).tasks()).as("still open").isNotEmpty();
    }
  }

  /**
   * Behind authentication, the planner takes the credentials Iceberg's {@code RESTCatalog} takes: a {@code token}
   * sent as it is, or a {@code credential} exchanged at the catalog's token endpoint.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("authentication")
  void thePlannerAuthenticatesAsIcebergsCatalogDoes(String property, String value) throws IOException {
    try (EmbeddedIcebergCatalog guarded = EmbeddedIcebergCatalog.create().requireBearerToken(true).start();
        ScanPlanningCatalog catalog = new ScanPlanningCatalog()) {
      EmbeddedTable table = guarded.createTable(EVENTS, SCHEMA);
      table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one", LocalDate.EPOCH, 1.0)));
      catalog.initialize("guarded", Map.of("uri", guarded.uri(), property, value));
      assertThat(planned(catalog.loadTable(EVENTS).newScan())).hasSize(1);
      assertThat(guarded.requestCounts().plan()).isOne();
    }
  }

  static Stream<Arguments> authentication() {
    return Stream.of(arguments("token", "a-token"), arguments("credential", "client:secret"));
  }

  @Test
  void aCredentialWithoutAClientIdIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> new ScanPlanningCatalog().initialize("lake", Map.of("uri", server.uri(), "credential",
        "secret-alone"))).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'credential'")
        .hasMessageContaining("client-id:client-secret");
  }

  /**
   * What the catalog's scans leave open, counted by a FileIO: a plan that vended credentials opens its files with a
   * FileIO of its own, which stays open while its scan is reachable (engines read long after planning) and is closed
   * once the scan is not, as Iceberg's {@code RESTTableScan} closes its own; the table's is the catalog's.
   */
  @Test
  void aPlansFileIOIsClosedOnceItsScanIsUnreachable() throws Exception {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    server.vendedCredentials(request -> List.of(StorageCredential.create("memory://", Map.of("kind", "vended"))));
    Map<String, String> properties = new java.util.HashMap<>(scope.fileIoProperties());
    properties.put("uri", server.uri());
    try (ScanPlanningCatalog catalog = new ScanPlanningCatalog()) {
      catalog.initialize("counted", properties);
      Table table = catalog.loadTable(EVENTS);
      int tables = scope.openFileIOs();
      read(table.newScan());
      assertThat(scope.openStreams()).isZero();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50)).until(() -> {
        System.gc();
        return scope.openFileIOs() == tables;
      });
      assertThat(scope.fileIOsOpened()).as("the plan's own FileIO").isEqualTo(tables + 1);
    }
    finally {
      server.vendedCredentials(null);
    }
  }

  /** Plans a scan and reads a byte of each of its files through the scan's FileIO, as an engine's reader does. */
  private static void read(TableScan scan) throws IOException {
    for (FileScanTask task : planned(scan)) {
      try (org.apache.iceberg.io.SeekableInputStream in = scan.fileIO().get().newInputFile(task.file().location())
          .newStream()) {
        assertThat(in.read()).isNotNegative();
      }
    }
  }

  @Test
  void aMissingUriOrANonNumericLimitIsRefusedNamingTheProperty() {
    assertThatThrownBy(() -> new ScanPlanningCatalog().initialize("lake", Map.of()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("'uri'");
    assertThatThrownBy(() -> new ScanPlanningCatalog().initialize("lake", Map.of("uri", server.uri(),
        ScanPlanningCatalog.MAX_CONCURRENCY, "many"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(ScanPlanningCatalog.MAX_CONCURRENCY).hasMessageContaining("many");
    assertThatThrownBy(() -> new ScanPlanningCatalog().loadTable(EVENTS)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("initialize");
  }

  private static List<FileScanTask> planned(TableScan scan) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.planFiles()) {
      planned.forEach(tasks::add);
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return tasks;
  }

  /** Each task as its data file, its split, its deletes and its residual. */
  private static List<String> tasks(TableScan scan) {
    return tasks(scan, true);
  }

  /**
   * Residuals compare whatever case a case-insensitive scan named their columns in: this client sends the names as
   * the schema writes them, Iceberg's as the filter did.
   */
  private static List<String> tasks(TableScan scan, boolean withResidual) {
    return planned(scan).stream().map(task -> task.file().location() + " [" + task.start() + "+" + task.length()
        + "] deletes " + task.deletes().stream().map(ContentFile::location).sorted().toList()
        + (withResidual ? " where " + task.residual().toString().toLowerCase(java.util.Locale.ROOT) : "")).toList();
  }

  private static List<String> rendered(CloseableIterable<Record> rows) {
    List<String> out = new ArrayList<>();
    try (rows) {
      rows.forEach(row -> {
        Map<String, Object> fields = new TreeMap<>();
        row.struct().fields().forEach(field -> fields.put(field.name(), row.getField(field.name())));
        out.add(fields.toString());
      });
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return out;
  }

  private static Object roundTrip(Object value) throws IOException, ClassNotFoundException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(value);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return in.readObject();
    }
  }

  private static List<Record> rows(long from, int count) {
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      Record row = events.newRecord();
      row.setField("id", id);
      row.setField("name", id % 7 == 0 ? null : "name-" + id);
      row.setField("day", LocalDate.EPOCH.plusDays(id % 3));
      row.setField(events.schema().findField(4).name(), id / 4.0);
      rows.add(row);
    }
    return rows;
  }
}
