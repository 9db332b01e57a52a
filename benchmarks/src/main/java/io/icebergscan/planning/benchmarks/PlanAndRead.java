package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 5: plan and read the example application's {@link DemoTable} (all rows, deletes applied) on an
 * {@link EmbeddedIcebergCatalog} that serves its plans over the demo's plan-task tree ({@link DemoTable#FAN_OUT},
 * 104 {@code /tasks} requests), {@code latencyMillis} before each {@code /tasks} answer. One operation is a whole
 * read as an application does it: load the table, plan, read every row. {@link #ours}:
 * {@link IcebergScanPlanner#loadTable}, {@link IcebergScanPlanner#plan} and {@link IcebergScanPlan#rows()}, on a
 * {@link ScanPlanner} of {@code maxConcurrency = workers}; {@link #iceberg}: Apache Iceberg Java's
 * {@code RESTCatalog} with {@code scan-planning-mode=server}, {@code loadTable} and
 * {@code IcebergGenerics.read(table).build()}, with {@code iceberg.worker.num-threads = workers} (its plan-tasks
 * are fetched on that pool). Both read the tasks one after the other, through Iceberg's generic readers, from the
 * same in-memory files, and both send the catalog a scan report, as their defaults do. {@link #oursPlanOnly} and
 * {@link #icebergPlanOnly} are the same without reading rows: the planning part of each.
 *
 * <p>Iceberg reads the worker property once per JVM: every benchmark and parameter combination runs in a fork of
 * its own (the default; never {@code -f 0}). The setup reads the table with both clients once and fails the run
 * unless both read the same rows (count and sum of ids) and as many as the table has live.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xmx2g" })
@Warmup(iterations = 4, time = 5)
@Measurement(iterations = 5, time = 4)
public class PlanAndRead {

  static final io.icebergscan.planning.TableIdentifier TABLE = io.icebergscan.planning.TableIdentifier.parse(
      DemoTable.NAME);

  @Param({ "0", "10" })
  public int latencyMillis;

  @Param({ "8" })
  public int workers;

  /** Data files of the demo table ({@link DemoTable#DEFAULT_FILES}, as the example application has), 4 rows each. */
  @Param({ "2000" })
  public int files;

  private EmbeddedIcebergCatalog catalog;
  private ScanPlanner planner;
  private IcebergScanPlanner ours;
  private RESTCatalog icebergClient;
  private long expectedRows;

  /** What a read saw: the rows and the sum of their ids, so that two reads of different rows tell apart. */
  record Read(long rows, long idSum) {
  }

  @Setup(Level.Trial)
  public void start() {
    // before any Iceberg class reads it (ThreadPools reads it once, when it is initialised)
    System.setProperty("iceberg.worker.num-threads", Integer.toString(this.workers));
    this.catalog = EmbeddedIcebergCatalog.create().fanOut(DemoTable.FAN_OUT).start();
    DemoTable.create(this.catalog, this.files);
    this.expectedRows = DemoTable.liveRows(this.files);
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.workers).build();
    this.ours = IcebergScanPlanner.builder(this.planner).build();
    this.icebergClient = new RESTCatalog();
    this.icebergClient.initialize("client", Map.of("uri", this.catalog.uri(), "scan-planning-mode", "server"));
    // once, without latency: a benchmark of two clients that read different rows measures nothing
    Read ourRead = readOurs();
    Read icebergRead = readIceberg();
    if (!ourRead.equals(icebergRead) || ourRead.rows() != this.expectedRows) {
      throw new IllegalStateException("expected " + this.expectedRows + " rows from both clients: ours " + ourRead
          + ", Iceberg's " + icebergRead);
    }
    this.catalog.tasksLatency(Duration.ofMillis(this.latencyMillis));
  }

  @Benchmark
  public long ours() {
    return checked(readOurs());
  }

  @Benchmark
  public long iceberg() {
    return checked(readIceberg());
  }

  /** The planning part of {@link #ours}: load and plan (tasks converted to Iceberg's), no rows read. */
  @Benchmark
  public int oursPlanOnly() {
    IcebergTable table = this.ours.loadTable(TABLE);
    try (IcebergScanPlan plan = this.ours.plan(table, ScanRequest.all())) {
      return checkedTasks(plan.tasks().size());
    }
  }

  /** The planning part of {@link #iceberg}: load and {@code planFiles()}, no rows read. */
  @Benchmark
  public int icebergPlanOnly() {
    Table table = this.icebergClient.loadTable(DemoTable.IDENTIFIER);
    int count = 0;
    try (CloseableIterable<FileScanTask> tasks = table.newScan().planFiles()) {
      for (FileScanTask ignored : tasks) {
        count++;
      }
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return checkedTasks(count);
  }

  Read readOurs() {
    IcebergTable table = this.ours.loadTable(TABLE);
    try (IcebergScanPlan plan = this.ours.plan(table, ScanRequest.all());
        CloseableIterable<Record> rows = plan.rows()) {
      return read(rows);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  Read readIceberg() {
    Table table = this.icebergClient.loadTable(DemoTable.IDENTIFIER);
    try (CloseableIterable<Record> rows = IcebergGenerics.read(table).build()) {
      return read(rows);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  private static Read read(CloseableIterable<Record> rows) {
    long count = 0;
    long idSum = 0;
    for (Record row : rows) {
      count++;
      // id is the first column of both projections: all of the schema
      idSum += row.get(0, Long.class);
    }
    return new Read(count, idSum);
  }

  private long checked(Read read) {
    if (read.rows() != this.expectedRows) {
      throw new IllegalStateException("expected " + this.expectedRows + " rows, read " + read.rows());
    }
    return read.idSum();
  }

  /** One task per data file: the server's plan and {@code planFiles()} do not split files. */
  private int checkedTasks(int tasks) {
    if (tasks != this.files) {
      throw new IllegalStateException("expected " + this.files + " tasks, planned " + tasks);
    }
    return tasks;
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    if (this.planner != null) {
      this.planner.close();
    }
    if (this.icebergClient != null) {
      this.icebergClient.close();
    }
    if (this.catalog != null) {
      this.catalog.close();
    }
  }
}
