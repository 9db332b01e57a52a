package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.test.ServerScanReports.Report;
import io.icebergscan.planning.test.Tables.TaskView;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * This project's {@link ScanPlanner} against Apache Iceberg's own REST server (1.12.0, in this JVM): the
 * compatibility matrix. Where the plan-task walk is involved each case runs at a concurrency limit of 1
 * and at a higher one; where the tables have a single data manifest the tasks must also come back in
 * the order of Iceberg's own local planning (the serial walk order), not only as the same set.
 *
 * <table>
 *   <caption>Feature × test</caption>
 *   <tr><th>feature</th><th>test</th><th>limits</th></tr>
 *   <tr><td>synchronous plan, all tasks inline</td><td>{@link #plansSynchronouslyWithEveryTaskInThePlanResponse}</td><td>8</td></tr>
 *   <tr><td>asynchronous plan (Iceberg's own: submitted, polled, then its chain)</td>
 *       <td>{@link #plansAsynchronouslyOnIcebergsOwnPlanner}</td><td>1, 8</td></tr>
 *   <tr><td>Iceberg's chain of plan-tasks, five deep</td><td>{@link #walksIcebergsChainOfPlanTasks}</td><td>1, 8</td></tr>
 *   <tr><td>wide fan-out, uniform(16, 1)</td><td>{@link #walksAWideFanOutWithinItsLimit}</td><td>1, 8, 32</td></tr>
 *   <tr><td>uneven fan-outs: levels(2,1,3), levels(1,8,4), a lopsided custom tree</td>
 *       <td>{@link #walksUnevenFanOuts}</td><td>1, 8</td></tr>
 *   <tr><td>v2 position deletes (partition- and file-scoped) and equality deletes (equality ids)</td>
 *       <td>{@link #attachesV2PositionAndEqualityDeletes}</td><td>1, 8</td></tr>
 *   <tr><td>v3 deletion vectors sharing one Puffin file, per data file, in one or several responses</td>
 *       <td>{@link #attachesEachDeletionVectorToItsOwnDataFile}</td><td>1, 8</td></tr>
 *   <tr><td>{@code select} and {@code stats-fields} reach the server's planner</td>
 *       <td>{@link #sendsSelectAndStatsFieldsToTheServersPlanner}</td><td>4</td></tr>
 *   <tr><td>a server failure with a JSON error body (unknown stats field: Iceberg answers 500)</td>
 *       <td>{@link #reportsTheServersFailureForAnUnknownStatsField}</td><td>4</td></tr>
 *   <tr><td>filters: partition vs data column, pruning and residuals</td>
 *       <td>{@link #prunesFilesAndReportsResiduals}</td><td>1, 8</td></tr>
 *   <tr><td>{@code snapshot-id} time travel, unknown snapshot</td><td>{@link #travelsToEverySnapshot}</td><td>1, 8</td></tr>
 *   <tr><td>incremental {@code start-snapshot-id}/{@code end-snapshot-id}</td>
 *       <td>{@link #plansTheAppendsOfAnIncrementalRange}</td><td>1, 8</td></tr>
 *   <tr><td>invalid snapshot combinations (snapshot-id with a range, end-snapshot-id alone)</td>
 *       <td>{@link #rejectsInvalidSnapshotCombinations}</td><td>8</td></tr>
 *   <tr><td>unknown table</td><td>{@link #reportsAnUnknownTable}</td><td>8</td></tr>
 *   <tr><td>unknown namespace (Iceberg answers NoSuchTableException)</td>
 *       <td>{@link #reportsAnUnknownNamespaceAsTheServerNamesIt}</td><td>8</td></tr>
 *   <tr><td>catalog without planning endpoints</td>
 *       <td>{@link #refusesACatalogThatDoesNotAdvertisePlanning}</td><td>8</td></tr>
 *   <tr><td>multi-level namespaces (separator %2E), dots and spaces in names</td>
 *       <td>{@link #addressesMultiLevelNamespacesWithTheAdvertisedSeparator}</td><td>1, 8</td></tr>
 * </table>
 *
 * <p>Already pinned elsewhere and not repeated: asynchronous fan-out plans and bare {@code submitted}
 * polls ({@link ScanPlannerOnEmbeddedCatalogTests}), Iceberg's client against a fan-out
 * ({@link EmbeddedIcebergCatalogTests}), and the comparison with Iceberg's client for every server
 * shape and limit ({@link DifferentialTests}).
 *
 * <p>One catalog serves the whole class; every test creates its own tables and sets the knobs it needs
 * (reset before each test).
 */
class CompatibilityTests {

  private static final EmbeddedIcebergCatalog CATALOG = EmbeddedIcebergCatalog.create();
  private static final AtomicInteger TABLES = new AtomicInteger();
  private static final String PLAN_ENDPOINT = "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan";

  @BeforeAll
  static void start() {
    CATALOG.start();
  }

  @AfterAll
  static void stop() {
    CATALOG.close();
  }

  @BeforeEach
  void icebergsDefaults() {
    CATALOG.fanOut(null).planAsync(false).submittedPolls(0).tasksPerPlanTask(100).tasksLatency(Duration.ZERO)
        .planningEndpoints(true);
  }

  // ---------------------------------------------------------------------------------------------
  // Plan shapes: synchronous, asynchronous, chains, fan-outs
  // ---------------------------------------------------------------------------------------------

  @Test
  void plansSynchronouslyWithEveryTaskInThePlanResponse() {
    EmbeddedTable table = CATALOG.createTable(newTable("sync"), Tables.SCHEMA);
    table.appendDataFiles(12);

    ScanPlan plan = plan(8, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    assertThat(plan.planId()).startsWith("sync-");
    assertThat(plan.statistics().planTasksFetched()).isZero();
    assertThat(plan.statistics().walkDepth()).isZero();
    assertThat(plan.statistics().requestsMade()).isEqualTo(1);
    assertThat(CATALOG.requestCounts()).extracting(RequestCounts::plan, RequestCounts::poll, RequestCounts::tasks,
        RequestCounts::cancel).containsExactly(1, 0, 0, 0);
  }

  /**
   * Iceberg's own asynchronous planning: the plan is answered {@code submitted}, polls answer
   * {@code submitted} until Iceberg's background planner is done, then the completed poll holds the
   * first tasks and the head of the chain.
   */
  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void plansAsynchronouslyOnIcebergsOwnPlanner(int limit) {
    CATALOG.planAsync(true).tasksPerPlanTask(3);
    EmbeddedTable table = CATALOG.createTable(newTable("async"), Tables.SCHEMA);
    table.appendDataFiles(10);

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    assertThat(plan.planId()).startsWith("async-");
    RequestCounts counts = CATALOG.requestCounts();
    assertThat(counts.plan()).isEqualTo(1);
    assertThat(counts.poll()).isPositive();
    // 10 tasks, 3 a response: 3 in the completed poll, then a chain of 3, 3 and 1.
    assertThat(counts.tasks()).isEqualTo(3);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(3);
    assertThat(plan.statistics().walkDepth()).isEqualTo(3);
    assertThat(plan.statistics().requestsMade()).isEqualTo(counts.plan() + counts.poll() + counts.tasks());
    // A plan walked to its end is not cancelled (Iceberg's client sends a DELETE all the same).
    assertThat(counts.cancel()).isZero();
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void walksIcebergsChainOfPlanTasks(int limit) {
    CATALOG.tasksPerPlanTask(2);
    EmbeddedTable table = CATALOG.createTable(newTable("chain"), Tables.SCHEMA);
    table.appendDataFiles(11);

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    // 2 tasks in the plan response, then plan-tasks of 2, 2, 2, 2 and 1, each naming the next.
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(5);
    assertThat(plan.statistics().walkDepth()).isEqualTo(5);
    assertThat(CATALOG.requestCounts().tasks()).isEqualTo(5);
    // A chain has width 1 whatever the limit.
    assertThat(CATALOG.requestCounts().maxConcurrentTasks()).isEqualTo(1);
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8, 32 })
  void walksAWideFanOutWithinItsLimit(int limit) {
    // A little latency per /tasks response, so that fetches overlap when they may.
    CATALOG.fanOut(FanOut.uniform(16, 1)).tasksLatency(Duration.ofMillis(20));
    EmbeddedTable table = CATALOG.createTable(newTable("wide"), Tables.SCHEMA);
    table.appendDataFiles(48);

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(16);
    assertThat(plan.statistics().walkDepth()).isEqualTo(1);
    assertThat(CATALOG.requestCounts().tasks()).isEqualTo(16);
    int inFlight = CATALOG.requestCounts().maxConcurrentTasks();
    assertThat(inFlight).isBetween(1, Math.min(limit, 16));
    if (limit > 1) {
      assertThat(inFlight).as("fetches in flight at once").isGreaterThan(1);
    }
  }

  static Stream<Arguments> unevenFanOuts() {
    List<Arguments> shapes = List.of(
        // name, shape, plan-tasks, depth
        arguments("levels(2, 1, 3)", FanOut.levels(2, 1, 3), 2 + 2 + 6, 3),
        arguments("levels(1, 8, 4)", FanOut.levels(1, 8, 4), 1 + 8 + 32, 3),
        // Only the first handle of each level branches, four levels down.
        arguments("lopsided", FanOut.custom(path -> path.size() < 4 && path.stream().allMatch(i -> i == 0) ? 3 : 0),
            3 * 4, 4));
    return shapes.stream().flatMap(shape -> IntStream.of(1, 8)
        .mapToObj(limit -> arguments(shape.get()[0], shape.get()[1], shape.get()[2], shape.get()[3], limit)));
  }

  @ParameterizedTest(name = "{0} at limit {4}")
  @MethodSource("unevenFanOuts")
  void walksUnevenFanOuts(String name, FanOut shape, int planTasks, int depth, int limit) {
    CATALOG.fanOut(shape);
    EmbeddedTable table = CATALOG.createTable(newTable("uneven"), Tables.SCHEMA);
    table.appendDataFiles(60);

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(planTasks);
    assertThat(plan.statistics().walkDepth()).isEqualTo(depth);
    assertThat(CATALOG.requestCounts().tasks()).isEqualTo(planTasks);
    assertThat(CATALOG.requestCounts().maxConcurrentTasks()).isBetween(1, limit);
  }

  // ---------------------------------------------------------------------------------------------
  // Delete files
  // ---------------------------------------------------------------------------------------------

  /**
   * Format v2: a position delete file for a whole partition, a file-scoped one (its
   * {@code referenced-data-file} set) and an equality delete file on two field ids. One task per
   * response, so each response carries its own {@code delete-files}.
   */
  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void attachesV2PositionAndEqualityDeletes(int limit) {
    CATALOG.tasksPerPlanTask(1);
    EmbeddedTable table = CATALOG.createTable(newTable("v2"), Tables.SCHEMA, Tables.BY_DAY, 2);
    String base = "s3://bucket/" + table.identifier().name();
    DataFile a1 = table.dataFile(base + "/day=1/a1.parquet", 10).withPartitionPath("day=1").build();
    DataFile a2 = table.dataFile(base + "/day=1/a2.parquet", 20).withPartitionPath("day=1").build();
    DataFile b1 = table.dataFile(base + "/day=2/b1.parquet", 30).withPartitionPath("day=2").build();
    DataFile b2 = table.dataFile(base + "/day=2/b2.parquet", 40).withPartitionPath("day=2").build();
    table.append(a1, a2, b1, b2);
    DeleteFile day1Positions = table.positionDeleteFile(base + "/day=1/positions.parquet", 3)
        .withPartitionPath("day=1").build();
    DeleteFile b1Positions = table.positionDeleteFile(base + "/day=2/b1-positions.parquet", 2)
        .withPartitionPath("day=2").withReferencedDataFile(b1.location()).build();
    DeleteFile day2Equality = table.equalityDeleteFile(base + "/day=2/equality.parquet", 4, 1, 2)
        .withPartitionPath("day=2").build();
    table.addDeletes(day1Positions, b1Positions, day2Equality);

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    Map<String, List<String>> deletes = deletesByDataFile(plan);
    String day1 = "POSITION_DELETES:" + day1Positions.location() + "@null+null[] ref=null";
    assertThat(deletes).containsOnlyKeys(a1.location(), a2.location(), b1.location(), b2.location());
    assertThat(deletes.get(a1.location())).containsExactly(day1);
    assertThat(deletes.get(a2.location())).containsExactly(day1);
    assertThat(deletes.get(b1.location())).containsExactlyInAnyOrder(
        "POSITION_DELETES:" + b1Positions.location() + "@null+null[] ref=" + b1.location(),
        "EQUALITY_DELETES:" + day2Equality.location() + "@null+null[1, 2] ref=null");
    assertThat(deletes.get(b2.location()))
        .containsExactly("EQUALITY_DELETES:" + day2Equality.location() + "@null+null[1, 2] ref=null");
    assertThat(plan.tasks()).flatMap(FileScanTask::deleteFiles)
        .allSatisfy(delete -> assertThat(delete.fileFormat()).isEqualTo(FileFormat.PARQUET));
  }

  static Stream<Arguments> deletionVectorServers() {
    return Stream.of(
        // name, tasks per plan-task (Iceberg's chain), fan-out
        arguments("chain of one task a response", 1, null),
        // Two tasks a response: their vectors share the response's delete-files.
        arguments("uniform(2, 1), two tasks a response", 100, FanOut.uniform(2, 1)))
        .flatMap(server -> IntStream.of(1, 8)
            .mapToObj(limit -> arguments(server.get()[0], server.get()[1], server.get()[2], limit)));
  }

  /**
   * Format v3: four deletion vectors in one Puffin file, for four of six data files. Each task gets the
   * one vector that references its data file, identified by path, offset and size.
   */
  @ParameterizedTest(name = "{0} at limit {3}")
  @MethodSource("deletionVectorServers")
  void attachesEachDeletionVectorToItsOwnDataFile(String name, int tasksPerPlanTask, FanOut fanOut, int limit) {
    CATALOG.tasksPerPlanTask(tasksPerPlanTask).fanOut(fanOut);
    EmbeddedTable table = CATALOG.createTable(newTable("dv"), Tables.SCHEMA, Tables.BY_DAY, 3);
    String base = "s3://bucket/" + table.identifier().name() + "/day=1/";
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.add(table.dataFile(base + "f" + i + ".parquet", 100 + i).withPartitionPath("day=1").build());
    }
    table.append(files);
    List<DeleteFile> vectors = table.deletionVectors(base + "deletes.puffin").vector(files.get(0), 3)
        .vector(files.get(2), 40, 64).vector(files.get(3), 7).vector(files.get(5), 1, 200).build();
    table.addDeletes(vectors.toArray(DeleteFile[]::new));
    Map<String, DeleteFile> vectorByDataFile = new HashMap<>();
    vectors.forEach(vector -> vectorByDataFile.put(vector.referencedDataFile(), vector));

    ScanPlan plan = plan(limit, table, ScanRequest.all());

    assertIcebergsLocalOrder(plan, table, scan -> scan);
    assertThat(plan.tasks()).hasSize(6).allSatisfy(task -> {
      DeleteFile expected = vectorByDataFile.get(task.dataFile().filePath());
      if (expected == null) {
        assertThat(task.deleteFiles()).isEmpty();
        return;
      }
      assertThat(task.deleteFiles()).singleElement().satisfies(vector -> {
        assertThat(vector.isDeletionVector()).isTrue();
        assertThat(vector.content()).isEqualTo(FileContent.POSITION_DELETES);
        assertThat(vector.fileFormat()).isEqualTo(FileFormat.PUFFIN);
        assertThat(vector.filePath()).isEqualTo(base + "deletes.puffin");
        assertThat(vector.referencedDataFile()).isEqualTo(task.dataFile().filePath());
        assertThat(vector.contentOffset()).isEqualTo(expected.contentOffset());
        assertThat(vector.contentSizeInBytes()).isEqualTo(expected.contentSizeInBytes());
        assertThat(vector.recordCount()).isEqualTo(expected.recordCount());
        assertThat(vector.fileSizeInBytes()).isEqualTo(expected.fileSizeInBytes());
      });
    });
    // Four different vectors in one file: path alone would not tell them apart.
    assertThat(plan.tasks()).flatMap(FileScanTask::deleteFiles).extracting(delete -> delete.contentOffset())
        .containsExactlyInAnyOrder(4L, 24L, 88L, 108L);
  }

  // ---------------------------------------------------------------------------------------------
  // Request fields: select, stats-fields, filter, snapshot-id, incremental range
  // ---------------------------------------------------------------------------------------------

  /**
   * {@code select} changes what the server's scan projects, not which files it plans, so the observable
   * is the server's own scan report; {@code stats-fields} is visible in the response: column statistics
   * come back only for the fields asked for.
   */
  @Test
  void sendsSelectAndStatsFieldsToTheServersPlanner() {
    TableIdentifier identifier = newTable("select");
    EmbeddedTable table = Tables.withEveryKindOfDelete(CATALOG, identifier);
    ScanPlan all;
    ScanPlan day;
    ScanPlan stats;
    try (ServerScanReports reports = ServerScanReports.capture()) {
      all = plan(4, table, ScanRequest.all());
      day = plan(4, table, ScanRequest.builder().select("day").build());
      stats = plan(4, table, ScanRequest.builder().select("id").statsFields(List.of("id")).build());

      assertThat(reports.scansOf(identifier)).extracting(Report::projectedFieldNames)
          .containsExactly(List.of("id", "day"), List.of("day"), List.of("id"));
    }
    assertThat(Tables.views(day.tasks())).hasSize(5).containsExactlyInAnyOrderElementsOf(Tables.views(all.tasks()));

    // f0 was committed with metrics for id: 800 bytes, 100 values, no nulls, bounds 0 and 99.
    io.icebergscan.planning.model.DataFile f0 = dataFile(all, "s3://bucket/t/day=1/f0.parquet");
    assertThat(f0.columnSizes()).isEmpty();
    assertThat(f0.lowerBounds()).isEmpty();
    io.icebergscan.planning.model.DataFile f0WithStats = dataFile(stats, "s3://bucket/t/day=1/f0.parquet");
    assertThat(f0WithStats.columnSizes()).containsExactly(Map.entry(1, 800L));
    assertThat(f0WithStats.valueCounts()).containsExactly(Map.entry(1, 100L));
    assertThat(f0WithStats.nullValueCounts()).containsExactly(Map.entry(1, 0L));
    // Bounds as Iceberg's single-value serialization: little-endian longs in hex.
    assertThat(f0WithStats.lowerBounds()).containsExactly(Map.entry(1, "0000000000000000"));
    assertThat(f0WithStats.upperBounds()).containsExactly(Map.entry(1, "6300000000000000"));
  }

  /**
   * <b>Finding (Iceberg's server).</b> A {@code stats-fields} entry that names no field makes Apache
   * Iceberg's server fail with 500 {@code NullPointerException} ({@code Schema.findField} returns null in
   * {@code includeColumnStats}) where a 400 would be expected; an unknown {@code select} field, by
   * contrast, is silently ignored. The planner surfaces the server's error as it is.
   */
  @Test
  void reportsTheServersFailureForAnUnknownStatsField() {
    EmbeddedTable table = CATALOG.createTable(newTable("stats"), Tables.SCHEMA);
    table.appendDataFiles(2);

    assertThatExceptionOfType(RestException.class)
        .isThrownBy(() -> plan(4, table, ScanRequest.builder().statsFields(List.of("no_such_field")).build()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(500);
          assertThat(failure.errorType()).isEqualTo("NullPointerException");
        });
    assertThat(plan(4, table, ScanRequest.builder().select("no_such_field").build()).tasks()).hasSize(2);
  }

  /**
   * A filter on the partition column prunes whole partitions and leaves nothing to check in the rows
   * (residual {@code true}); a filter on a data column prunes by column bounds and remains as the
   * residual; a conjunction of both keeps only the data part.
   */
  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void prunesFilesAndReportsResiduals(int limit) {
    CATALOG.tasksPerPlanTask(1);
    // Day 1: f0 (ids 0..99), f1 (0..100), f2 (0..101); day 2: a and b, without column bounds.
    EmbeddedTable table = Tables.withEveryKindOfDelete(CATALOG, newTable("filter"));
    RowFilter dayIs2 = RowFilter.equal("day", "2");
    RowFilter idAbove100 = RowFilter.greaterThan("id", 100);
    RowFilter dayIs1AndIdAbove100 = RowFilter.and(RowFilter.equal("day", "1"), idAbove100);

    ScanPlan byPartition = plan(limit, table, ScanRequest.builder().filter(dayIs2).build());
    ScanPlan byData = plan(limit, table, ScanRequest.builder().filter(idAbove100).build());
    ScanPlan byBoth = plan(limit, table, ScanRequest.builder().filter(dayIs1AndIdAbove100).build());

    assertThat(dataFiles(byPartition)).containsExactlyInAnyOrder("s3://bucket/t/day=2/a.parquet",
        "s3://bucket/t/day=2/b.parquet");
    assertThat(residuals(byPartition)).containsOnly(json("true"));
    assertThat(dataFiles(byData)).containsExactlyInAnyOrder("s3://bucket/t/day=1/f2.parquet",
        "s3://bucket/t/day=2/a.parquet", "s3://bucket/t/day=2/b.parquet");
    assertThat(residuals(byData)).containsOnly(json(idAbove100.toJson()));
    assertThat(dataFiles(byBoth)).containsExactly("s3://bucket/t/day=1/f2.parquet");
    assertThat(residuals(byBoth)).containsOnly(json(idAbove100.toJson()));

    assertThat(Tables.views(byPartition.tasks())).containsExactlyInAnyOrderElementsOf(
        Tables.plannedLocally(table, scan -> scan.filter(Expressions.equal("day", "2"))));
    assertThat(Tables.views(byData.tasks())).containsExactlyInAnyOrderElementsOf(
        Tables.plannedLocally(table, scan -> scan.filter(Expressions.greaterThan("id", 100L))));
    assertThat(Tables.views(byBoth.tasks())).containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table,
        scan -> scan.filter(Expressions.and(Expressions.equal("day", "1"), Expressions.greaterThan("id", 100L)))));
  }

  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void travelsToEverySnapshot(int limit) {
    CATALOG.tasksPerPlanTask(2);
    TableIdentifier identifier = newTable("history");
    // 1: three files of day 1; 2: two of day 2; 3: deletion vectors and an equality delete; 4: three of day 3.
    EmbeddedTable table = Tables.withEveryKindOfDelete(CATALOG, identifier);
    table.appendDataFiles(3, "day=3");
    List<Long> snapshots = table.snapshotIds();
    List<ScanPlan> plans = new ArrayList<>();

    try (ServerScanReports reports = ServerScanReports.capture()) {
      for (long snapshot : snapshots) {
        plans.add(plan(limit, table, ScanRequest.builder().snapshotId(snapshot).build()));
      }
      assertThat(reports.scansOf(identifier)).extracting(Report::snapshotId).containsExactlyElementsOf(snapshots);
    }

    for (int i = 0; i < snapshots.size(); i++) {
      long snapshot = snapshots.get(i);
      assertThat(Tables.views(plans.get(i).tasks())).as("snapshot %d", i + 1)
          .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan.useSnapshot(snapshot)));
    }
    assertIcebergsLocalOrder(plans.get(0), table, scan -> scan.useSnapshot(snapshots.get(0)));
    assertThat(plans).extracting(plan -> plan.tasks().size()).containsExactly(3, 5, 5, 8);
    assertThat(plans).extracting(plan -> plan.tasks().stream().mapToInt(task -> task.deleteFiles().size()).sum())
        .containsExactly(0, 0, 4, 4);

    assertThatExceptionOfType(RestException.class)
        .isThrownBy(() -> plan(limit, table, ScanRequest.builder().snapshotId(42).build()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(400);
          assertThat(failure.errorType()).isEqualTo("IllegalArgumentException");
          assertThat(failure.getMessage()).contains("Cannot find snapshot with ID 42");
        });
  }

  /**
   * An incremental range returns the files appended in it, without delete files, nothing from an
   * overwrite and nothing after the end.
   *
   * <p><b>Finding (Iceberg's server vs the spec).</b> The spec makes {@code start-snapshot-id}
   * exclusive; Apache Iceberg 1.12.0's server plans it with {@code fromSnapshotInclusive}
   * ({@code CatalogHandlers.planTableScan}), so the start snapshot's own appends come back too, and a
   * range from a snapshot to itself is that snapshot's appends instead of nothing. The planner sends
   * what the caller asked and returns what the server planned; this test pins the server's answer so an
   * Iceberg upgrade that fixes it shows up here.
   */
  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void plansTheAppendsOfAnIncrementalRange(int limit) {
    CATALOG.tasksPerPlanTask(2);
    EmbeddedTable table = CATALOG.createTable(newTable("incremental"), Tables.SCHEMA, Tables.BY_DAY, 3);
    String base = "s3://bucket/" + table.identifier().name();
    DataFile a1 = table.dataFile(base + "/day=1/a1.parquet", 10).withPartitionPath("day=1").build();
    DataFile a2 = table.dataFile(base + "/day=1/a2.parquet", 10).withPartitionPath("day=1").build();
    long s1 = table.append(a1, a2);
    List<String> b = List.of(base + "/day=2/b1.parquet", base + "/day=2/b2.parquet", base + "/day=2/b3.parquet");
    long s2 = table.append(b.stream().map(path -> table.dataFile(path, 5).withPartitionPath("day=2").build()).toList());
    DataFile c = table.dataFile(base + "/day=3/c.parquet", 10).withPartitionPath("day=3").build();
    // An overwrite (data and a deletion vector for a1), not an append.
    table.rowDelta(List.of(c), table.deletionVectors(base + "/day=1/dv.puffin").vector(a1, 2).build());
    String d = base + "/day=4/d.parquet";
    long s4 = table.append(table.dataFile(d, 10).withPartitionPath("day=4").build());
    String e = base + "/day=5/e.parquet";
    table.append(table.dataFile(e, 10).withPartitionPath("day=5").build());

    ScanPlan range = plan(limit, table, ScanRequest.builder().incremental(s1, s4).build());
    ScanPlan oneSnapshot = plan(limit, table, ScanRequest.builder().incremental(s2, s2).build());

    List<String> spec = new ArrayList<>(b);
    spec.add(d);
    List<String> iceberg = new ArrayList<>(spec);
    iceberg.addAll(List.of(a1.location(), a2.location()));
    assertThat(dataFiles(range)).as("Iceberg's server: start inclusive (the spec: %s)", spec)
        .containsExactlyInAnyOrderElementsOf(iceberg).doesNotContain(c.location(), e);
    assertThat(range.tasks()).allSatisfy(task -> assertThat(task.deleteFiles()).isEmpty());
    assertThat(Tables.views(range.tasks())).containsExactlyInAnyOrderElementsOf(plannedLocally(
        table.table().newIncrementalAppendScan().fromSnapshotInclusive(s1).toSnapshot(s4).planFiles()));
    assertThat(dataFiles(oneSnapshot)).as("Iceberg's server: start inclusive (the spec: nothing)")
        .containsExactlyInAnyOrderElementsOf(b);
  }

  /**
   * {@code snapshot-id} together with a range is invalid (the spec): the planner refuses to build such a
   * request, so nothing is sent.
   *
   * <p><b>Finding (Iceberg's server vs the spec).</b> Apache Iceberg's server rejects that body, and a
   * body with {@code end-snapshot-id} alone, while parsing it: the servlet answers HTTP 500 with an HTML
   * page instead of a 400 with an Iceberg error body. The planner's {@code ScanRequest} refuses both before
   * anything is sent. Either way the plan must fail, never plan something else.
   */
  @Test
  void rejectsInvalidSnapshotCombinations() {
    EmbeddedTable table = CATALOG.createTable(newTable("invalid"), Tables.SCHEMA);
    long first = table.appendDataFiles(2);
    long second = table.appendDataFiles(2);
    String planPath = "/v1/namespaces/compat/tables/" + table.identifier().name() + "/plan";
    RawHttp http = new RawHttp(CATALOG);

    RawHttp.Response both = http.post(planPath,
        "{\"snapshot-id\":" + first + ",\"start-snapshot-id\":" + first + ",\"end-snapshot-id\":" + second + "}");
    RawHttp.Response endOnly = http.post(planPath, "{\"end-snapshot-id\":" + second + "}");

    assertThat(both.status()).isEqualTo(500);
    assertThat(both.body()).contains("<html");
    assertThat(endOnly.status()).isEqualTo(500);
    assertThat(endOnly.body()).contains("<html");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ScanRequest.builder().snapshotId(first).incremental(first, second).build())
        .withMessageContaining("cannot be combined");
    // the planner refuses both before anything is sent, with a message instead of the server's HTML page
    assertThatIllegalArgumentException()
        .isThrownBy(() -> ScanRequest.builder().endSnapshotId(second).build())
        .withMessageContaining("needs a startSnapshotId");
  }

  // ---------------------------------------------------------------------------------------------
  // Errors and addressing
  // ---------------------------------------------------------------------------------------------

  @Test
  void reportsAnUnknownTable() {
    CATALOG.createNamespace("compat");

    assertThatExceptionOfType(NoSuchTableException.class)
        .isThrownBy(() -> plan(8, TableIdentifier.of("compat", "nothing_here"), ScanRequest.all()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(404);
          assertThat(failure.errorType()).isEqualTo("NoSuchTableException");
          assertThat(failure.planTask()).isNull();
        });
  }

  /**
   * <b>Finding (Iceberg's server vs the spec).</b> The spec lists {@code NoSuchNamespaceException} for
   * a plan against a namespace that does not exist; Apache Iceberg's server loads the table first and
   * answers 404 {@code NoSuchTableException} ("Table does not exist: nowhere.events"). The planner maps
   * by {@code error.type}, so it reports what the server said and does not guess a namespace failure.
   */
  @Test
  void reportsAnUnknownNamespaceAsTheServerNamesIt() {
    RawHttp.Response raw = new RawHttp(CATALOG).post("/v1/namespaces/nowhere/tables/events/plan", "{}");
    assertThat(raw.status()).isEqualTo(404);
    assertThat(raw.json().path("error").path("type").asText()).isEqualTo("NoSuchTableException");

    assertThatExceptionOfType(NoSuchTableException.class)
        .isThrownBy(() -> plan(8, TableIdentifier.of("nowhere", "events"), ScanRequest.all()))
        .isNotInstanceOf(NoSuchNamespaceException.class)
        .satisfies(failure -> assertThat(failure.errorType()).isEqualTo("NoSuchTableException"))
        .withMessageContaining("Table does not exist: nowhere.events");
  }

  @Test
  void refusesACatalogThatDoesNotAdvertisePlanning() {
    CATALOG.planningEndpoints(false);
    TableIdentifier identifier = newTable("unsupported");
    CATALOG.createTable(identifier, Tables.SCHEMA).appendDataFiles(2);

    assertThatExceptionOfType(UnsupportedEndpointException.class)
        .isThrownBy(() -> plan(8, identifier, ScanRequest.all()))
        .satisfies(failure -> assertThat(failure.endpoint()).hasToString(PLAN_ENDPOINT));
    assertThat(CATALOG.requestCounts()).extracting(RequestCounts::config, RequestCounts::plan).containsExactly(1, 0);

    // Iceberg's client in scan-planning-mode=server refuses too, already when it loads the table.
    try (RESTCatalog client = Tables.icebergClient(CATALOG)) {
      assertThatIllegalStateException().isThrownBy(() -> client.loadTable(identifier))
          .withMessageContaining("does not support endpoint " + PLAN_ENDPOINT);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  /**
   * Iceberg's server joins namespace levels with {@code %2E} (its {@code namespace-separator}), so a
   * namespace {@code [x, sales, eu]} and a namespace {@code [x, sales.eu]} are two different paths; a
   * space in a name is percent-encoded. Both tables are planned through plan-tasks, whose path carries
   * the namespace too.
   */
  @ParameterizedTest(name = "limit {0}")
  @ValueSource(ints = { 1, 8 })
  void addressesMultiLevelNamespacesWithTheAdvertisedSeparator(int limit) {
    CATALOG.tasksPerPlanTask(2);
    String top = newTable("ns").name();
    EmbeddedTable nested = CATALOG.createTable(TableIdentifier.of(Namespace.of(top, "sales", "eu"), "daily events"),
        Tables.SCHEMA);
    nested.appendDataFiles(5);
    EmbeddedTable dotted = CATALOG.createTable(TableIdentifier.of(Namespace.of(top, "sales.eu"), "daily events"),
        Tables.SCHEMA);
    dotted.appendDataFiles(3);

    ScanPlan nestedPlan = plan(limit, nested, ScanRequest.all());
    ScanPlan dottedPlan = plan(limit, dotted, ScanRequest.all());

    assertIcebergsLocalOrder(nestedPlan, nested, scan -> scan);
    assertIcebergsLocalOrder(dottedPlan, dotted, scan -> scan);
    assertThat(nestedPlan.tasks()).hasSize(5);
    assertThat(dottedPlan.tasks()).hasSize(3);
    assertThat(nestedPlan.statistics().planTasksFetched() + dottedPlan.statistics().planTasksFetched())
        .isEqualTo(2 + 1);
  }

  // ---------------------------------------------------------------------------------------------

  private static TableIdentifier newTable(String name) {
    return TableIdentifier.of("compat", name + "_" + TABLES.incrementAndGet());
  }

  private static ScanPlan plan(int limit, EmbeddedTable table, ScanRequest request) {
    return plan(limit, table.identifier(), request);
  }

  /** Plans with a planner of its own (fresh discovery), after zeroing the catalog's request counts. */
  private static ScanPlan plan(int limit, TableIdentifier table, ScanRequest request) {
    CATALOG.resetRequestCounts();
    try (ScanPlanner planner = ScanPlanner.builder().uri(CATALOG.uri()).maxConcurrency(limit)
        .pollInitialDelay(Duration.ofMillis(10)).build()) {
      return planner.plan(ours(table), request);
    }
  }

  static io.icebergscan.planning.model.TableIdentifier ours(TableIdentifier table) {
    return io.icebergscan.planning.model.TableIdentifier.of(List.of(table.namespace().levels()), table.name());
  }

  /** The planner's contract on a single-manifest table: Iceberg's own planning order, not only its set. */
  private static void assertIcebergsLocalOrder(ScanPlan plan, EmbeddedTable table, UnaryOperator<TableScan> scan) {
    assertThat(Tables.views(plan.tasks())).as("tasks in the order of Iceberg's local planning")
        .containsExactlyElementsOf(Tables.plannedLocally(table, scan));
  }

  private static List<TaskView> plannedLocally(CloseableIterable<org.apache.iceberg.FileScanTask> tasks) {
    List<TaskView> views = new ArrayList<>();
    try (tasks) {
      tasks.forEach(task -> views.add(TaskView.of(task)));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return views;
  }

  private static List<String> dataFiles(ScanPlan plan) {
    return plan.tasks().stream().map(task -> task.dataFile().filePath()).toList();
  }

  private static io.icebergscan.planning.model.DataFile dataFile(ScanPlan plan, String path) {
    return plan.tasks().stream().map(FileScanTask::dataFile).filter(file -> file.filePath().equals(path)).findFirst()
        .orElseThrow(() -> new AssertionError("no task for " + path));
  }

  /** Each data file's delete files as content:path@offset+size[equality ids] ref=referenced data file. */
  private static Map<String, List<String>> deletesByDataFile(ScanPlan plan) {
    Map<String, List<String>> deletes = new HashMap<>();
    for (FileScanTask task : plan.tasks()) {
      deletes.put(task.dataFile().filePath(), task.deleteFiles().stream()
          .map(delete -> delete.content() + ":" + delete.filePath() + "@" + delete.contentOffset() + "+"
              + delete.contentSizeInBytes() + delete.equalityIds() + " ref=" + delete.referencedDataFile())
          .toList());
    }
    return deletes;
  }

  private static List<JsonNode> residuals(ScanPlan plan) {
    return plan.tasks().stream().map(task -> {
      assertThat(task.residualFilter()).as("residual of %s", task.dataFile().filePath()).isNotNull();
      return json(task.residualFilter());
    }).toList();
  }

  static JsonNode json(String text) {
    try {
      return JsonUtil.mapper().readTree(text);
    }
    catch (IOException failure) {
      throw new UncheckedIOException("not JSON: " + text, failure);
    }
  }
}
