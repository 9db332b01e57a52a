package io.icebergscan.planning.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.LongSupplier;

import io.icebergscan.planning.iceberg.ScanPlanningCatalog;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;

/**
 * {@code SparkPlan}: a timed harness (not a test: its name keeps it out of the build's test run) for Spark planning
 * the same table through Iceberg's {@code RESTCatalog} with {@code scan-planning-mode=server} and through
 * {@link ScanPlanningCatalog}, on a tree of plan-tasks ({@code tree-1-8-64}: one handle in the plan, 8 under it, 64
 * under those, as {@code AgainstIceberg}'s) and on a flat list ({@code flat-64}), each {@code /tasks} answer taking
 * 10 ms. Each shape has a catalog process of its own. Without {@code -Dcatalog.cpu} the catalog shares both cores with
 * Spark. Run by {@code taskset -c 0 mvn -pl iceberg-scan-planning-spark-tests verify -Dtest=SparkPlanBenchmark
 * -Dcatalog.cpu=1} (Spark on one core, the catalog on the other, as a remote catalog); it prints a Markdown table and
 * writes it to {@code target/spark-plan.md}.
 *
 * <ul>
 *   <li>planning: {@code spark.table(t).rdd().getNumPartitions()}, which loads the table, plans the scan and splits
 *       it into input partitions without running a task;</li>
 *   <li>end to end: {@code spark.table(t).count()}, with Iceberg's aggregate push-down off so both clients read
 *       every file;</li>
 *   <li>and, to show where the time goes: each catalog's {@code loadTable(t).newScan().planFiles()} without Spark,
 *       and Spark planning through Iceberg's {@code RESTCatalog} planning on the client (reading the manifests
 *       itself, no plan-tasks), the part of Spark's planning that is Spark's own.</li>
 * </ul>
 * Both clients fetch up to 8 handles at once: this planner's {@code max-concurrency}, and Iceberg's worker pool
 * ({@code iceberg.worker.num-threads}).
 */
class SparkPlanBenchmark {

  private static final int CONCURRENCY = 8;
  private static final int WARMUP = 10;
  private static final int MEASURED = 15;
  private static final long LATENCY_MILLIS = 10;

  @Test
  void sparkPlan() throws Exception {
    System.setProperty("iceberg.worker.num-threads", Integer.toString(CONCURRENCY));
    Map<String, String> shapes = new LinkedHashMap<>();
    shapes.put("tree-1-8-64", "levels:1,8,8");
    shapes.put("flat-64", "flat:64");
    List<String> lines = new ArrayList<>(List.of(
        "| shape | what | Iceberg RESTCatalog (ms) | ScanPlanningCatalog (ms) | Iceberg / ours |",
        "|---|---|---:|---:|---:|"));
    for (Map.Entry<String, String> shape : shapes.entrySet()) {
      try (CatalogServer server = CatalogServer.start(shape.getValue(), LATENCY_MILLIS, "benchmark")) {
        SparkSession spark = session(server.uri());
        try {
          String theirs = "iceberg.spark.wide";
          String ours = "ours.spark.wide";
          TableIdentifier wide = TableIdentifier.of(CatalogProcess.NAMESPACE, "wide");
          try (RESTCatalog iceberg = new RESTCatalog(); ScanPlanningCatalog catalog = new ScanPlanningCatalog()) {
            iceberg.initialize("iceberg", Map.of("uri", server.uri(), "scan-planning-mode", "server"));
            catalog.initialize("ours", Map.of("uri", server.uri(), ScanPlanningCatalog.MAX_CONCURRENCY,
                Integer.toString(CONCURRENCY)));
            lines.add(row(shape.getKey(), "planFiles(), no Spark", medians(() -> planFiles(iceberg, wide),
                () -> planFiles(catalog, wide))));
            lines.add("|  | the catalog per planFiles(): answering the plan / /tasks beyond the latency / busy | "
                + answering(server, () -> planFiles(iceberg, wide)) + " | "
                + answering(server, () -> planFiles(catalog, wide)) + " |  |");
          }
          lines.add(row(shape.getKey(), "planning", medians(() -> spark.table(theirs).rdd().getNumPartitions(),
              () -> spark.table(ours).rdd().getNumPartitions())));
          lines.add(String.format(Locale.ROOT, "|  | planning, Iceberg planning on the client (Spark's floor) | %.1f |"
              + "  |  |", median(() -> spark.table("client.spark.wide").rdd().getNumPartitions())));
          lines.add(row(shape.getKey(), "count()", medians(() -> spark.table(theirs).count(),
              () -> spark.table(ours).count())));
          server.reset();
          spark.table(ours).rdd().getNumPartitions();
          CatalogServer.Counts counts = server.counts();
          lines.add("|  | handles per plan | " + server.handles() + " | " + counts.tasks() + " fetched, at most "
              + counts.maxConcurrentTasks() + " at once |  |");
        }
        finally {
          spark.stop();
        }
      }
    }
    String table = String.join("\n", lines);
    System.out.println(table);
    Files.writeString(Path.of("target", "spark-plan.md"), table + "\n");
  }

  /** The catalog's time answering one run: the plan, the {@code /tasks} beyond their latency, and busy, in ms. */
  private static String answering(CatalogServer server, LongSupplier run) {
    server.reset();
    run.getAsLong();
    CatalogServer.Counts counts = server.counts();
    return String.format(Locale.ROOT, "%.1f / %.1f / %.1f", counts.planMillis(), counts.tasksWorkMillis(),
        counts.busyMillis());
  }

  /** Loads the table and plans its scan through Iceberg's API, as an engine's driver does before splitting. */
  private static long planFiles(Catalog catalog, TableIdentifier table) {
    long tasks = 0;
    try (CloseableIterable<FileScanTask> planned = catalog.loadTable(table).newScan().planFiles()) {
      for (FileScanTask ignored : planned) {
        tasks++;
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return tasks;
  }

  private static SparkSession session(String uri) {
    return SparkSession.builder().master("local[4]").appName("spark-plan")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.iceberg.aggregate-push-down.enabled", "false")
        .config("spark.sql.catalog.iceberg", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.iceberg.type", "rest")
        .config("spark.sql.catalog.iceberg.uri", uri)
        .config("spark.sql.catalog.iceberg.scan-planning-mode", "server")
        .config("spark.sql.catalog.iceberg.cache-enabled", "false")
        .config("spark.sql.catalog.client", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.client.type", "rest")
        .config("spark.sql.catalog.client.uri", uri)
        .config("spark.sql.catalog.client.cache-enabled", "false")
        .config("spark.sql.catalog.ours", "org.apache.iceberg.spark.SparkCatalog")
        .config("spark.sql.catalog.ours.catalog-impl", ScanPlanningCatalog.class.getName())
        .config("spark.sql.catalog.ours.uri", uri)
        .config("spark.sql.catalog.ours." + ScanPlanningCatalog.MAX_CONCURRENCY, Integer.toString(CONCURRENCY))
        .config("spark.sql.catalog.ours.cache-enabled", "false")
        .getOrCreate();
  }

  /** The median of {@value #MEASURED} timed runs after {@value #WARMUP} untimed ones (twice as many), in ms. */
  private static double median(LongSupplier run) {
    return medians(run, run)[0];
  }

  /**
   * The medians of {@value #MEASURED} timed runs of each, after {@value #WARMUP} untimed ones, in milliseconds: the two
   * take turns, so the machine's noise falls on both.
   */
  private static double[] medians(LongSupplier theirs, LongSupplier ours) {
    for (int i = 0; i < WARMUP; i++) {
      theirs.getAsLong();
      ours.getAsLong();
    }
    long[][] nanos = new long[2][MEASURED];
    for (int i = 0; i < MEASURED; i++) {
      nanos[0][i] = timed(theirs);
      nanos[1][i] = timed(ours);
    }
    Arrays.sort(nanos[0]);
    Arrays.sort(nanos[1]);
    return new double[] { nanos[0][MEASURED / 2] / 1e6, nanos[1][MEASURED / 2] / 1e6 };
  }

  private static long timed(LongSupplier run) {
    long start = System.nanoTime();
    run.getAsLong();
    return System.nanoTime() - start;
  }

  private static String row(String shape, String what, double[] medians) {
    return String.format(Locale.ROOT, "| %s | %s | %.1f | %.1f | %.2f |", shape, what, medians[0], medians[1],
        medians[0] / medians[1]);
  }

  static {
    try {
      Files.createDirectories(Path.of("target"));
    }
    catch (IOException failed) {
      throw new ExceptionInInitializerError(failed);
    }
  }
}
