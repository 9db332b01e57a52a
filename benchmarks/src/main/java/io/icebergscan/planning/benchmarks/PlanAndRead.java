package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.rest.RESTCatalog;
import org.jspecify.annotations.Nullable;
import org.openjdk.jmh.annotations.AuxCounters;
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
 * Benchmark 5: what an application waits for, plan <b>and</b> read, this project against Apache Iceberg Java, on an
 * {@link EmbeddedIcebergCatalog} in the same JVM. One operation loads the table, plans it, and reads every row with
 * deletes applied.
 *
 * <ul>
 *   <li>{@code table}: {@code demo}, the example application's {@link DemoTable} (2,000 small files, deletion vectors
 *       and an equality delete file over a day's 125 files, served over its 8 -> 4 -> 2 plan-task tree, 104
 *       {@code /tasks} a plan); or {@code parquet64}, {@link ParquetTable}'s 64 Parquet files of 50,000 rows, no
 *       deletes, CPU-bound.</li>
 *   <li>{@code catalogLatencyMillis} before each {@code /tasks} answer; {@code storageLatencyMillis} before the first
 *       byte of each file either client opens ({@link StorageLatencyFileIO}, their {@code io-impl}), as object
 *       storage would.</li>
 *   <li>{@link #ours}: {@code IcebergScanPlanner.loadTable} and {@code readRows}, which reads the tasks as the plan
 *       streams them, {@code readConcurrency} at a time, in task order; {@link #oursPlanned}: {@code plan} then
 *       {@code rows()}, the whole plan first; {@link #oursUnordered}: as {@code ours}, rows handed over as they are read
 *       ({@code unordered()}); {@link #iceberg}: Iceberg's {@code RESTCatalog} with
 *       {@code scan-planning-mode=server}, {@code loadTable} and {@code IcebergGenerics.read(table).build()}, its
 *       plan-tasks fetched on {@code iceberg.worker.num-threads = workers}, its tasks read one after the other. The
 *       {@code …FirstRow} pair stops at the first row: the time to it. Each planner plans with
 *       {@code workers} fetches at once.</li>
 *   <li>The {@link ClientCost} counters give the CPU time of the client's threads (the catalog's left out) per
 *       operation; with {@code -prof gc}, allocation per operation. The report divides both by the rows read.</li>
 * </ul>
 *
 * <p>Iceberg reads the worker property once per JVM: every combination runs in a fork of its own (never
 * {@code -f 0}). The setup reads the table with both clients once and fails unless both read the same rows (count and
 * sum of ids) and as many as the table has live.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xmx3g" })
@Warmup(iterations = 4, time = 5)
@Measurement(iterations = 5, time = 4)
public class PlanAndRead {

  @Param({ "demo" })
  public String table;

  @Param({ "0", "10" })
  public int catalogLatencyMillis;

  @Param({ "0" })
  public int storageLatencyMillis;

  @Param({ "16" })
  public int readConcurrency;

  @Param({ "8" })
  public int workers;

  /** Our reads' buffer, in MiB ({@code IcebergScanPlanner.Builder.readBufferBytes}); 0 for the default. */
  @Param({ "0" })
  public int readBufferMiB;

  /** Data files of the demo table ({@link DemoTable#DEFAULT_FILES}, as the example application has), 4 rows each. */
  @Param({ "2000" })
  public int files;

  /** Files and rows per file of the Parquet table. */
  @Param({ "64" })
  public int parquetFiles;

  @Param({ "50000" })
  public int parquetRows;

  private EmbeddedIcebergCatalog catalog;
  private ScanPlanner planner;
  private IcebergScanPlanner ours;
  private RESTCatalog icebergClient;
  private TableIdentifier icebergName;
  private long expectedRows;

  /** What a read saw: the rows and the sum of their ids, so that two reads of different rows tell apart. */
  record Read(long rows, long idSum) {
  }

  @Setup(Level.Trial)
  public void start() {
    // before any Iceberg class reads it (ThreadPools reads it once, when it is initialised)
    System.setProperty("iceberg.worker.num-threads", Integer.toString(this.workers));
    this.catalog = EmbeddedIcebergCatalog.create();
    if (this.table.equals("demo")) {
      this.catalog.fanOut(DemoTable.FAN_OUT);
      DemoTable.create(this.catalog, this.files);
      this.expectedRows = DemoTable.liveRows(this.files);
      this.icebergName = DemoTable.IDENTIFIER;
    }
    else {
      ParquetTable.create(this.catalog, this.parquetFiles, this.parquetRows);
      this.expectedRows = (long) this.parquetFiles * this.parquetRows;
      this.icebergName = ParquetTable.IDENTIFIER;
    }
    this.catalog.start();
    Map<String, String> storage = StorageLatencyFileIO.readThrough();
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.workers).build();
    IcebergScanPlanner.Builder ours = IcebergScanPlanner.builder(this.planner).readConcurrency(this.readConcurrency)
        .fileIoProperties(storage);
    if (this.readBufferMiB > 0) {
      ours.readBufferBytes(this.readBufferMiB * 1024L * 1024);
    }
    this.ours = ours.build();
    this.icebergClient = new RESTCatalog();
    Map<String, String> properties = new HashMap<>(storage);
    properties.put("uri", this.catalog.uri());
    properties.put("scan-planning-mode", "server");
    this.icebergClient.initialize("client", properties);
    // once, without latency: a benchmark of two clients that read different rows measures nothing
    Read ourRead = read(this.ours.readRows(this.ours.loadTable(this.icebergName), IcebergScan.all()));
    Read icebergRead = readIceberg();
    if (!ourRead.equals(icebergRead) || ourRead.rows() != this.expectedRows) {
      throw new IllegalStateException("expected " + this.expectedRows + " rows from both clients: ours " + ourRead
          + ", Iceberg's " + icebergRead);
    }
    this.catalog.tasksLatency(Duration.ofMillis(this.catalogLatencyMillis));
    StorageLatencyFileIO.latency(Duration.ofMillis(this.storageLatencyMillis));
  }

  /** Load, then read as the plan streams. */
  @Benchmark
  public long ours(ClientCost cpu) {
    return cpu.measure(() -> checked(read(this.ours.readRows(this.ours.loadTable(this.icebergName), IcebergScan.all()))));
  }

  /** Load, then read as the plan streams, rows handed over as they are read. */
  @Benchmark
  public long oursUnordered(ClientCost cpu) {
    return cpu.measure(() -> checked(read(this.ours.readRows(this.ours.loadTable(this.icebergName), IcebergScan.all())
        .unordered())));
  }

  /** Load, plan the whole plan, then read it. */
  @Benchmark
  public long oursPlanned(ClientCost cpu) {
    return cpu.measure(() -> {
      try (IcebergScanPlan plan = this.ours.plan(this.ours.loadTable(this.icebergName), IcebergScan.all())) {
        return checked(read(plan.rows()));
      }
    });
  }

  @Benchmark
  public long iceberg(ClientCost cpu) {
    return cpu.measure(() -> checked(readIceberg()));
  }

  /** Load, and the first row of a read as the plan streams; the rest abandoned. */
  @Benchmark
  public long oursFirstRow() {
    try (CloseableIterator<Record> rows = this.ours.readRows(this.ours.loadTable(this.icebergName), IcebergScan.all())
        .iterator()) {
      return rows.next().get(0, Long.class);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  @Benchmark
  public long icebergFirstRow() {
    Table loaded = this.icebergClient.loadTable(this.icebergName);
    try (CloseableIterable<Record> rows = IcebergGenerics.read(loaded).build();
        CloseableIterator<Record> iterator = rows.iterator()) {
      return iterator.next().get(0, Long.class);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  private @Nullable IcebergScanPlan readOnlyPlan;

  /**
   * A layer of {@link #oursPlanned}: the rows of one plan, made once, read again; what reading alone costs, without
   * loading or planning.
   */
  @Benchmark
  public long oursReadOnly(ClientCost cpu) {
    if (this.readOnlyPlan == null) {
      this.readOnlyPlan = this.ours.plan(this.ours.loadTable(this.icebergName), IcebergScan.all());
    }
    IcebergScanPlan plan = this.readOnlyPlan;
    return cpu.measure(() -> checked(read(plan.rows())));
  }

  /** The other layer: load and plan, no rows; the catalog's planning of the table included. */
  @Benchmark
  public long oursPlanOnly(ClientCost cpu) {
    return cpu.measure(() -> {
      try (IcebergScanPlan plan = this.ours.plan(this.ours.loadTable(this.icebergName), IcebergScan.all())) {
        return plan.tasks().size();
      }
    });
  }

  /** Iceberg's client's planning alone: load and {@code planFiles()}, no rows. */
  @Benchmark
  public long icebergPlanOnly(ClientCost cpu) {
    return cpu.measure(this::icebergTasks);
  }

  Read readIceberg() {
    return read(IcebergGenerics.read(this.icebergClient.loadTable(this.icebergName)).build());
  }

  /** The plan's tasks, for the harness's tests: one per data file, the server's plan and ours do not split them. */
  int plannedTasks() {
    try (IcebergScanPlan plan = this.ours.plan(this.ours.loadTable(this.icebergName), IcebergScan.all())) {
      int theirs = icebergTasks();
      if (theirs != plan.tasks().size()) {
        throw new IllegalStateException("Iceberg planned " + theirs + " tasks, ours " + plan.tasks().size());
      }
      return theirs;
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  /** Iceberg's client loads the table and plans it: the tasks it planned. */
  private int icebergTasks() throws IOException {
    try (CloseableIterable<FileScanTask> tasks = this.icebergClient.loadTable(this.icebergName).newScan()
        .planFiles()) {
      int count = 0;
      for (FileScanTask ignored : tasks) {
        count++;
      }
      return count;
    }
  }

  private static Read read(CloseableIterable<Record> rows) {
    long count = 0;
    long idSum = 0;
    try (rows) {
      for (Record row : rows) {
        count++;
        // id is the first column of both tables and both projections: all of the schema
        idSum += row.get(0, Long.class);
      }
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return new Read(count, idSum);
  }

  private long checked(Read read) {
    if (read.rows() != this.expectedRows) {
      throw new IllegalStateException("expected " + this.expectedRows + " rows, read " + read.rows());
    }
    return read.idSum();
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    StorageLatencyFileIO.latency(Duration.ZERO);
    if (this.readOnlyPlan != null) {
      this.readOnlyPlan.close();
    }
    if (this.ours != null) {
      this.ours.close();
    }
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
