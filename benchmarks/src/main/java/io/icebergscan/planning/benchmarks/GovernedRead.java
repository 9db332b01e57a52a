package io.icebergscan.planning.benchmarks;

import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
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
 * What a governed table's read restrictions cost a read: {@link ParquetTable}'s 64 Parquet files of 50,000 rows read
 * whole by a caller the catalog restricts and by one it restricts nothing of, in the same run, on the same table.
 *
 * <ul>
 *   <li>{@code policy}: {@code none}, the caller served no restrictions; {@code all}, a row filter on
 *       {@code quantity} (which keeps 16 rows in 17) and masks on three columns: {@code name} {@code mask-alphanum}
 *       (10,007 names), {@code category} {@code sha-256-global} (6 categories), {@code created}
 *       {@code truncate-to-month}; and each of those four alone ({@code rowFilter}, {@code maskAlphanum},
 *       {@code sha256}, {@code truncate}), for the cost of each layer.</li>
 *   <li>{@link #rows}: a streamed plan's rows ({@code readRows}), as read ({@code unordered()}), at
 *       {@code readConcurrency} tasks at once: 1 for the cost per row, 16 for the speed-up, which the restrictions
 *       should leave as it is.</li>
 *   <li>Every policy decodes the same 3.2 million rows; the report divides by them. The {@link ClientCost} counters
 *       give the CPU time of the client's threads per operation (the catalog's left out), steadier than the time on
 *       a machine of noisy neighbours; with {@code -prof gc}, the allocation.</li>
 * </ul>
 * Each operation checks the rows it read, by count, so two reads of different rows measure nothing.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xmx3g" })
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
public class GovernedRead {

  /** The token of the caller the catalog restricts. */
  private static final String GOVERNED = "governed";

  @Param({ "none", "all" })
  public String policy;

  @Param({ "1", "16" })
  public int readConcurrency;

  @Param({ "64" })
  public int files;

  @Param({ "50000" })
  public int rowsPerFile;

  private EmbeddedIcebergCatalog catalog;
  private ScanPlanner planner;
  private IcebergScanPlanner reader;
  private IcebergTable table;
  private long expectedRows;

  @Setup(Level.Trial)
  public void start() {
    this.catalog = EmbeddedIcebergCatalog.create();
    ParquetTable.create(this.catalog, this.files, this.rowsPerFile);
    boolean restricted = !"none".equals(this.policy);
    boolean filtered = "all".equals(this.policy) || "rowFilter".equals(this.policy);
    if (restricted) {
      this.catalog.readRestrictions(ParquetTable.IDENTIFIER, GOVERNED, policy(this.policy));
    }
    this.catalog.start();
    ScanPlanner.Builder builder = ScanPlanner.builder().uri(this.catalog.uri());
    if (restricted) {
      builder.header("Authorization", "Bearer " + GOVERNED);
    }
    this.planner = builder.build();
    this.reader = IcebergScanPlanner.builder(this.planner).readConcurrency(this.readConcurrency).scanReports(false)
        .build();
    this.table = this.reader.loadTable(ParquetTable.IDENTIFIER);
    if (this.table.readRestrictions().isEmpty() == restricted) {
      throw new IllegalStateException(this.policy + " but " + this.table.readRestrictions());
    }
    long rows = (long) this.files * this.rowsPerFile;
    // quantity is id % 17: the row filter leaves out the rows whose id is a multiple of 17
    this.expectedRows = filtered ? rows - (rows + 16) / 17 : rows;
    read();
  }

  /** What the catalog serves the restricted caller: all four, or one of them. */
  private static RestrictionPolicy policy(String name) {
    RestrictionPolicy.Builder policy = RestrictionPolicy.builder();
    boolean all = "all".equals(name);
    if (all || "rowFilter".equals(name)) {
      policy.rowFilter(Expressions.notEqual("quantity", 0));
    }
    if (all || "maskAlphanum".equals(name)) {
      policy.mask("name", "mask-alphanum");
    }
    if (all || "sha256".equals(name)) {
      policy.mask("category", "sha-256-global");
    }
    if (all || "truncate".equals(name)) {
      policy.mask("created", "truncate-to-month");
    }
    return policy.build();
  }

  @TearDown(Level.Trial)
  public void stop() {
    this.reader.close();
    this.planner.close();
    this.catalog.close();
  }

  @Benchmark
  public long rows(ClientCost cpu) {
    return cpu.measure(this::read);
  }

  private long read() {
    long count = 0;
    try (ScanRows rows = this.reader.readRows(this.table, IcebergScan.all()).unordered()) {
      for (Record ignored : rows) {
        count++;
      }
    }
    if (count != this.expectedRows) {
      throw new IllegalStateException("read " + count + " rows, expected " + this.expectedRows);
    }
    return count;
  }
}
