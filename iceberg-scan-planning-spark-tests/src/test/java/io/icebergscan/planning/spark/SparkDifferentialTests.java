package io.icebergscan.planning.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.icebergscan.planning.iceberg.ScanPlanningCatalog;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Apache Spark 4.1 planning Iceberg tables through {@link ScanPlanningCatalog} ({@code catalog-impl} of Iceberg's own
 * {@code SparkCatalog}), read by Spark's Iceberg readers from Iceberg's Spark runtime jar, against the embedded catalog
 * in a JVM of its own, over a tree of plan-tasks. Every query's rows equal, row for row as multisets, what Apache
 * Iceberg's own reader ({@code IcebergGenerics}, planning on the client over Iceberg's {@code RESTCatalog}) reads from
 * the same table: filters, projections, time travel, position and equality deletes, deletion vectors and aggregates.
 */
class SparkDifferentialTests {

  private static final int MAX_CONCURRENCY = 4;

  private static CatalogServer server;
  private static SparkSession spark;
  private static RESTCatalog iceberg;
  private static final List<Long> TASK_RECORDS = new ArrayList<>();

  @BeforeAll
  static void start() throws IOException {
    server = CatalogServer.start("levels:3,3", 0, "differential");
    spark = SparkSession.builder().master("local[4]").appName("scan-planning")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.sql.datetime.java8API.enabled", "true")
        .config("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.lake.catalog-impl", ScanPlanningCatalog.class.getName())
        .config("spark.sql.catalog.lake.uri", server.uri())
        .config("spark.sql.catalog.lake." + ScanPlanningCatalog.MAX_CONCURRENCY, Integer.toString(MAX_CONCURRENCY))
        .config("spark.sql.catalog.lake.io-impl", ShippingFileIO.class.getName())
        .config("spark.sql.catalog.lake.cache-enabled", "false")
        .getOrCreate();
    spark.sparkContext().addSparkListener(new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd taskEnd) {
        synchronized (TASK_RECORDS) {
          TASK_RECORDS.add(taskEnd.taskMetrics().inputMetrics().recordsRead());
        }
      }
    });
    iceberg = new RESTCatalog();
    iceberg.initialize("reference", Map.of("uri", server.uri()));
  }

  @AfterAll
  static void stop() throws Exception {
    if (spark != null) {
      spark.stop();
    }
    if (iceberg != null) {
      iceberg.close();
    }
    if (server != null) {
      server.close();
    }
  }

  @BeforeEach
  void resetCounts() {
    server.reset();
  }

  static Stream<Arguments> queries() {
    return Stream.of(
        query("events", "", "", row -> true),
        query("events", "id > 25", "", row -> (long) row.getField("id") > 25),
        query("events", "day = DATE'1970-01-02'", "", row -> row.getField("day").toString().equals("1970-01-02")),
        query("events", "name IS NULL OR score < 3.0", "", row -> row.getField("name") == null
            || (double) row.getField("score") < 3.0),
        query("events", "", "id, name", row -> true),
        query("vectors", "", "", row -> true),
        query("vectors", "id BETWEEN 2 AND 20", "score, id", row -> (long) row.getField("id") >= 2
            && (long) row.getField("id") <= 20),
        query("plain", "id % 5 = 0", "", row -> (long) row.getField("id") % 5 == 0));
  }

  private static Arguments query(String table, String where, String columns, Predicate<Record> filter) {
    return arguments(table, where, columns, filter);
  }

  @ParameterizedTest(name = "SELECT {2} FROM {0} WHERE {1}")
  @MethodSource("queries")
  void sparkReadsTheRowsIcebergReads(String table, String where, String columns, Predicate<Record> filter) {
    String select = columns.isEmpty() ? "*" : columns;
    List<String> rows = rendered(spark.sql("SELECT " + select + " FROM lake.spark." + table
        + (where.isEmpty() ? "" : " WHERE " + where)).collectAsList());
    List<String> names = columns.isEmpty() ? List.of("id", "name", "day", "score") : List.of(columns.split(",\\s*"));
    List<String> expected = icebergRows(reference(table), null).stream().filter(filter)
        .map(row -> render(names, row::getField)).toList();
    assertThat(rows).isNotEmpty().containsExactlyInAnyOrderElementsOf(expected);
    assertThat(server.counts().plans()).as("planned on the server through this planner").isPositive();
  }

  @Test
  void aTimeTravelReadsTheSnapshotsRows() {
    Table events = reference("events");
    long first = oldest(events).snapshotId();
    List<String> rows = rendered(spark.sql("SELECT * FROM lake.spark.events VERSION AS OF " + first).collectAsList());
    assertThat(rows).hasSize(40).containsExactlyInAnyOrderElementsOf(icebergRows(events, first).stream()
        .map(row -> render(List.of("id", "name", "day", "score"), row::getField)).toList());
    assertThat(rendered(spark.sql("SELECT * FROM lake.spark.events VERSION AS OF 'first'").collectAsList()))
        .as("and its tag").containsExactlyInAnyOrderElementsOf(rows);
  }

  @Test
  void aggregatesEqualIcebergsRows() {
    for (String table : List.of("events", "vectors", "plain")) {
      List<Record> expected = icebergRows(reference(table), null);
      Row aggregates = spark.sql("SELECT count(*), min(id), max(id), sum(score), count(name) FROM lake.spark." + table)
          .collectAsList().get(0);
      assertThat(aggregates.getLong(0)).as(table).isEqualTo(expected.size());
      assertThat(aggregates.getLong(1)).as(table)
          .isEqualTo(expected.stream().mapToLong(row -> (long) row.getField("id")).min().orElseThrow());
      assertThat(aggregates.getLong(2)).as(table)
          .isEqualTo(expected.stream().mapToLong(row -> (long) row.getField("id")).max().orElseThrow());
      assertThat(aggregates.getDouble(3)).as(table)
          .isEqualTo(expected.stream().mapToDouble(row -> (double) row.getField("score")).sum());
      assertThat(aggregates.getLong(4)).as(table)
          .isEqualTo(expected.stream().filter(row -> row.getField("name") != null).count());
    }
  }

  /**
   * On a table without deletes Spark answers {@code min}, {@code max} and {@code count} from the files' statistics,
   * which the plan carries because {@code includeColumnStats()} asks for every column's.
   */
  @Test
  void sparkPushesAggregatesDownToTheStatisticsThePlanCarries() {
    org.apache.spark.sql.Dataset<Row> query = spark.sql("SELECT min(id), max(id), count(*) FROM lake.spark.plain");
    assertThat(query.queryExecution().executedPlan().toString()).contains("LocalTableScan");
    Row aggregates = query.collectAsList().get(0);
    assertThat(List.of(aggregates.getLong(0), aggregates.getLong(1), aggregates.getLong(2)))
        .containsExactly(0L, 74L, 75L);
  }

  @Test
  void sparkPlansThroughThisPlannerEachHandleFetchedOnceWithinTheLimit() {
    long rows = spark.table("lake.spark.events").count();
    assertThat(rows).isEqualTo(icebergRows(reference("events"), null).size());
    CatalogServer.Counts counts = server.counts();
    assertThat(counts.plans()).isPositive();
    assertThat(counts.tasks()).as("every handle of every plan fetched once")
        .isEqualTo(counts.plans() * server.handles());
    assertThat(counts.maxConcurrentTasks()).isBetween(1, MAX_CONCURRENCY);
  }

  @Test
  void theExecutorsReadTheSplitsWithTheFileIOSparkShipped() {
    ShippingFileIO.OPENED_ON.clear();
    int serializedBefore = ShippingFileIO.SERIALIZED.get();
    synchronized (TASK_RECORDS) {
      TASK_RECORDS.clear();
    }
    List<Row> rows = spark.sql("SELECT * FROM lake.spark.plain").collectAsList();
    assertThat(rows).hasSize(75);
    assertThat(ShippingFileIO.SERIALIZED.get()).as("the scan's FileIO serialized to be broadcast")
        .isGreaterThan(serializedBefore);
    List<String> dataFiles = ShippingFileIO.OPENED_ON.stream().filter(open -> open.contains("/data/")).toList();
    assertThat(dataFiles).as("data files opened by executor tasks, not on the driver").isNotEmpty()
        .allSatisfy(open -> assertThat(open).startsWith("Executor task launch worker"));
    synchronized (TASK_RECORDS) {
      assertThat(TASK_RECORDS.stream().mapToLong(Long::longValue).sum()).as("rows read by Spark tasks")
          .isEqualTo(75);
    }
  }

  private static Table reference(String table) {
    return iceberg.loadTable(TableIdentifier.of(CatalogProcess.NAMESPACE, table));
  }

  private static Snapshot oldest(Table table) {
    Snapshot oldest = null;
    for (Snapshot snapshot : table.snapshots()) {
      if (oldest == null || snapshot.sequenceNumber() < oldest.sequenceNumber()) {
        oldest = snapshot;
      }
    }
    return java.util.Objects.requireNonNull(oldest);
  }

  private static List<Record> icebergRows(Table table, Long snapshotId) {
    IcebergGenerics.ScanBuilder read = IcebergGenerics.read(table);
    if (snapshotId != null) {
      read = read.useSnapshot(snapshotId);
    }
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> records = read.build()) {
      records.forEach(record -> rows.add(record.copy()));
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rows;
  }

  private static List<String> rendered(List<Row> rows) {
    return rows.stream().map(row -> render(List.of(row.schema().fieldNames()), name -> row.getAs(name))).toList();
  }

  private static String render(List<String> names, java.util.function.Function<String, Object> value) {
    Map<String, Object> fields = new TreeMap<>();
    names.forEach(name -> fields.put(name, value.apply(name)));
    return fields.toString();
  }
}
