package io.icebergscan.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanSummary;
import io.icebergscan.planning.autoconfigure.IcebergRestProperties;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ReadRestrictions;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.test.AnsweringTime;
import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.DemoTable;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/**
 * Plans the configured table at start-up and prints what the plan holds and what it cost, then reads its rows as a
 * streamed plan and prints how many there are, which is the planned records less the deleted rows, a few of them,
 * and how fast they came. On the demo catalog it then reads the governed {@code demo.customers}, whose catalog serves
 * read restrictions, and prints a few of its rows as they are read: masked, and only those its row filter keeps. A
 * table of your own that its catalog governs is read that way, and only that way: a plan of it hands out no tasks.
 *
 * <p>The figures are those of a warm JVM: {@code example.warm-up-plans} plans, each read too, run first, since the
 * first plan of a JVM is mostly class loading and JIT compilation, the embedded catalog's as well as the client's.
 * On the demo catalog the plan time is told apart into the catalog's part, measured by the catalog itself
 * ({@link AnsweringTime}), and the client's, and the fan-out next to its ideal ({@link io.icebergscan.planning.test.FanOut#idealTime}).
 *
 * <p>With {@code iceberg.rest.identity=caller} it plans nothing: start-up has no caller to plan as, and the planner
 * plans as callers only. It says so, and on the demo catalog how its callers ({@link DemoCallers}) get their rows.
 */
@Component
class PlanSummary implements ApplicationRunner {

  private static final int SAMPLE_ROWS = 3;

  private final IcebergScanPlanner iceberg;
  private final TableIdentifier table;
  private final IcebergScan scan;
  private final boolean read;
  private final int warmUpPlans;
  private final DemoCatalog.@Nullable Started demo;
  private final boolean asCallers;
  private final Environment environment;
  private volatile @Nullable Run lastRun;
  private volatile @Nullable Governed lastGoverned;

  /**
   * Takes the {@link IcebergScanPlanner} the iceberg module auto-configures over the starter's {@code ScanPlanner}:
   * it loads table metadata, converts tasks and reads rows through that planner; and the demo catalog when it is the
   * one planned.
   */
  PlanSummary(IcebergScanPlanner iceberg, ExampleProperties settings, ObjectProvider<DemoCatalog.Started> demo,
      IcebergRestProperties catalog, Environment environment) {
    this.iceberg = iceberg;
    this.asCallers = catalog.identity() == IcebergRestProperties.Identity.CALLER;
    this.environment = environment;
    // DemoCatalog has set it to the demo table, or failed start-up for want of one
    this.table = TableIdentifier.parse(Objects.requireNonNull(settings.table(), "example.table"));
    this.scan = settings.filter() == null || settings.filter().isBlank() ? IcebergScan.all()
        : IcebergScan.all().filter(IcebergScan.parseFilter(settings.filter()));
    this.read = settings.read();
    this.warmUpPlans = settings.warmUpPlans();
    this.demo = demo.getIfAvailable();
  }

  @Override
  public void run(ApplicationArguments args) {
    if (this.asCallers) {
      System.out.print(describeCallers(this.demo != null, this.environment.getProperty("local.server.port")));
      return;
    }
    int maxConcurrency = this.iceberg.planner().maxConcurrency();
    Duration ideal = this.demo == null ? null
        : DemoTable.FAN_OUT.idealTime(maxConcurrency, this.demo.tasksLatency());
    IcebergTable loaded = this.iceberg.loadTable(this.table);
    if (!loaded.readRestrictions().isEmpty()) {
      // a table its catalog governs hands out its rows only, with the restrictions enforced: no tasks, no files
      Governed governed = governed(loaded, this.scan);
      this.lastGoverned = governed;
      System.out.print(describe(governed));
      return;
    }
    Duration firstPlan = null;
    for (int plan = 0; plan < this.warmUpPlans; plan++) {
      Duration planned = warmUp(loaded);
      if (firstPlan == null) {
        firstPlan = planned;
      }
    }
    if (this.demo != null) {
      this.demo.catalog().resetRequestCounts();
    }
    ScanPlan measured;
    try (IcebergScanPlan plan = this.iceberg.plan(loaded, this.scan)) {
      measured = plan.scanPlan();
    }
    // taken at once: the plan's scan report, sent after it in the background, is no request of the plan's
    AnsweringTime answering = this.demo == null ? null : this.demo.catalog().requestCounts().answering();
    Run run = new Run(firstPlan, this.warmUpPlans, measured, maxConcurrency, ideal,
        this.demo == null ? null : this.demo.tasksLatency(), answering, null);
    System.out.print(describe(this.table, run));
    if (this.read) {
      RowsRead rows = read(loaded, measured);
      System.out.print(describe(this.table, rows));
      run = run.withRows(rows);
    }
    this.lastRun = run;
    if (this.demo != null && this.read) {
      Governed governed = governed(this.iceberg.loadTable(DemoCustomers.IDENTIFIER), IcebergScan.all());
      this.lastGoverned = governed;
      System.out.print(describe(governed));
    }
  }

  /** What the last run read of a governed table, or {@code null} when it read none. */
  @Nullable Governed lastGoverned() {
    return this.lastGoverned;
  }

  /** The rows of a table its catalog governs, as {@code readRows} returns them: the row filter's, masked. */
  private Governed governed(IcebergTable table, IcebergScan scan) {
    long rows = 0;
    List<String> samples = new ArrayList<>(SAMPLE_ROWS);
    try (ScanRows records = this.iceberg.readRows(table, scan)) {
      for (Record record : records) {
        if (samples.size() < SAMPLE_ROWS) {
          samples.add(describe(record));
        }
        rows++;
      }
    }
    return new Governed(table.identifier(), table.readRestrictions(), rows, samples);
  }

  /** What the last run planned and read, or {@code null} before the first. */
  @Nullable Run lastRun() {
    return this.lastRun;
  }

  /** A plan, and a read of its rows as the measured read reads them; returns the plan's time. */
  private Duration warmUp(IcebergTable loaded) {
    ScanPlan planned;
    try (IcebergScanPlan plan = this.iceberg.plan(loaded, this.scan)) {
      planned = plan.scanPlan();
    }
    if (this.read) {
      read(loaded, planned);
    }
    return planned.statistics().elapsed();
  }

  /**
   * Reads the rows of the scan as {@link IcebergScanPlanner#readRows} streams them, timed from the call, and compares
   * their count with what {@code plan}, a plan of the same scan of the same table load (so of the same snapshot),
   * says they should be.
   */
  private RowsRead read(IcebergTable loaded, ScanPlan plan) {
    long started = System.nanoTime();
    Duration firstRow = null;
    long rows = 0;
    List<String> samples = new ArrayList<>(SAMPLE_ROWS);
    try (ScanRows records = this.iceberg.readRows(loaded, this.scan);
        CloseableIterator<Record> iterator = records.iterator()) {
      while (iterator.hasNext()) {
        Record record = iterator.next();
        if (firstRow == null) {
          firstRow = Duration.ofNanos(System.nanoTime() - started);
        }
        if (samples.size() < SAMPLE_ROWS) {
          samples.add(describe(record));
        }
        rows++;
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    Duration elapsed = Duration.ofNanos(System.nanoTime() - started);
    // Deletion vectors and position delete files count one record per deleted row. An equality delete file
    // counts its keys, whatever they match: in the demo table each key matches one row, so there its record
    // count is the rows it deletes; in another table the check below may not hold, and says so.
    Set<DeleteFile> deleteFiles = new HashSet<>();
    plan.tasks().forEach(task -> deleteFiles.addAll(task.deleteFiles()));
    long byPosition = deleteFiles.stream().filter(file -> file.content() == FileContent.POSITION_DELETES)
        .mapToLong(DeleteFile::recordCount).sum();
    long byEquality = deleteFiles.stream().filter(file -> file.content() == FileContent.EQUALITY_DELETES)
        .mapToLong(DeleteFile::recordCount).sum();
    return new RowsRead(rows, plannedRecords(plan), byPosition, byEquality, samples, firstRow, elapsed);
  }

  /** The sum of the planned tasks' record counts: each data file's once, should it be in several tasks. */
  private static long plannedRecords(ScanPlan plan) {
    return Objects.requireNonNull(plan.summary().dataFileRecords(), "the core's summary withholds nothing");
  }

  private static String describe(Record record) {
    return record.struct().fields().stream().map(Types.NestedField::name)
        .map(name -> name + "=" + record.getField(name)).collect(Collectors.joining(", "));
  }

  static String describe(TableIdentifier table, Run run) {
    ScanPlan plan = run.plan();
    ScanSummary summary = plan.summary();
    StringBuilder out = new StringBuilder(String.format("""

        Scan plan for %s (plan id %s)
          file scan tasks      %,d
          data files           %,d
          bytes                %,d
          records              %,d
          delete files         %,d
          plan-tasks fetched   %,d
          walk depth           %d
          requests made        %,d
          max concurrency      %d
        """, table, plan.planId(), summary.tasks(), summary.dataFiles(),
        Objects.requireNonNull(summary.dataFileBytes(), "the core's summary withholds nothing"), plannedRecords(plan),
        summary.deleteFiles(), plan.statistics().planTasksFetched(), plan.statistics().walkDepth(),
        plan.statistics().requestsMade(), run.maxConcurrency()));
    if (run.firstPlan() != null) {
      out.append(line("first plan", millis(run.firstPlan()),
          "cold: mostly class loading and JIT compilation, the embedded catalog's too"));
    }
    out.append(line("warm-up", String.format("%,d plans", run.warmUpPlans()),
        (run.warmUpPlans() == 0 ? "none: the figures below are of a cold JVM" : "each read too")
            + " (example.warm-up-plans)"));
    out.append(line("plan time", millis(plan.statistics().elapsed()),
        "the measured plan, its first request to its last answer"));
    AnsweringTime answering = run.answering();
    Duration latency = run.latency();
    if (answering == null) {
      out.append("  catalog's part       (measured by the embedded demo catalog only)\n");
    }
    else {
      Duration client = plan.statistics().elapsed().minus(answering.busy());
      out.append(line("catalog's part", millis(answering.busy()), String.format(
          "%s of it: the catalog answering at least one of the plan's requests", percent(run.catalogShare()))));
      out.append(line("client's part", millis(client), String.format(
          "%s of it: no request being answered, so the client's own work and the wire",
          percent(1 - run.catalogShare()))));
      out.append(line("catalog, summed", millis(answering.total()), String.format(
          "its answers each in full, overlapping ones too: plan call %s, polls %s, /tasks %s",
          millis(answering.plan()), millis(answering.poll()), millis(answering.tasks()))));
      // as slept, which is longer than set: the ideal below is computed for the latency set
      if (latency != null) {
        out.append(line("of it latency", millis(answering.tasksLatency()), String.format(
            "the %,d fetches' simulated waits of %,d ms (example.demo.latency-ms), as slept",
            plan.statistics().planTasksFetched(), latency.toMillis())));
      }
    }
    Duration ideal = run.ideal();
    if (ideal == null || latency == null) {
      out.append("  ideal                (known for the demo catalog's plan-task tree only)\n");
    }
    else {
      Duration fanOut = run.fanOut();
      if (fanOut != null && answering != null) {
        String ratio = ideal.isZero() ? "" : String.format("%.2fx the ideal: ", (double) fanOut.toNanos() / ideal.toNanos());
        out.append(line("fan-out time", millis(fanOut), ratio + "the plan time less the catalog's "
            + millis(answering.plan()) + " answering the plan call"));
      }
      out.append(line("ideal", millis(ideal), String.format("%,d plan-tasks in a tree of %s at %d ms a fetch, %d in "
          + "flight", DemoTable.PLAN_TASKS, DemoTable.FAN_OUT_LEVELS.stream().map(String::valueOf)
              .collect(Collectors.joining(" / ")), latency.toMillis(), run.maxConcurrency())));
    }
    return out.toString();
  }

  static String describe(TableIdentifier table, RowsRead rows) {
    String samples = rows.samples().isEmpty() ? "(none)\n"
        : String.join("\n" + " ".repeat(23), rows.samples()) + "\n";
    return String.format("""

        Rows of %s, read with deletes applied as a plan of their own streams in (readRows)
          rows read            %,d
          planned records      %s the planned tasks' record counts
          deleted by position  %s the deletion vectors' and position delete files' record counts
          deleted by equality  %s the equality delete files' record counts (their keys)
          planned less deleted %s %s
          sample rows          %s""", table, rows.rows(), count(rows.plannedRecords()),
        count(rows.positionDeletedRows()), count(rows.equalityDeletedRows()), count(rows.expectedRows()),
        rows.agrees() ? "equals the rows read"
            : "differs from the rows read: a filter's residual, or equality keys matching other than one row each",
        samples)
        + (rows.firstRow() == null ? "  first row            (no row)\n"
            : line("first row", millis(rows.firstRow()), "after the readRows call: its plan call, a fetch, a file"))
        + line("read time", millis(rows.elapsed()), "from the readRows call to the last row, planning included")
        + line("rows per second", String.format("%,d", Math.round(rows.rowsPerSecond())), "rows read / read time");
  }

  static String describe(Governed governed) {
    return String.format("""

        Rows of %s, read with the catalog's read restrictions enforced (readRows)
          restrictions         %s
          rows read            %,d: those its row filter keeps, the masked columns masked
          sample rows          %s
        """, governed.table(), governed.restrictions(), governed.rows(), governed.samples().isEmpty() ? "(none)"
        : String.join("\n" + " ".repeat(23), governed.samples()));
  }

  /**
   * Why nothing is planned at start-up with {@code iceberg.rest.identity=caller}, and, on the demo catalog, how its
   * callers get their rows.
   *
   * @param port the port the application serves, {@code null} when it serves none
   */
  static String describeCallers(boolean demo, @Nullable String port) {
    StringBuilder out = new StringBuilder("""

        No plan at start-up: iceberg.rest.identity is caller, and start-up has no caller to plan as.
          GET /tables/{table}/rows plans as the caller whose bearer token authenticated the request, and answers
          401 without one.
        """);
    if (demo && port != null) {
      out.append("  The demo catalog serves its callers ").append(DemoCustomers.NAME).append(" differently:\n");
      for (String token : List.of(DemoCallers.ALICE_TOKEN, DemoCallers.BOB_TOKEN)) {
        out.append(String.format("    curl -H 'Authorization: Bearer %s' http://localhost:%s/tables/%s/rows%n", token,
            port, DemoCustomers.NAME));
      }
    }
    return out.toString();
  }

  /** A line of figures: the label, the figure, padded so that what follows lines up, and what it is. */
  private static String line(String label, String figure, String what) {
    return String.format("  %-20s %-10s %s%n", label, figure, what);
  }

  private static String millis(Duration duration) {
    return String.format("%,d ms", duration.toMillis());
  }

  private static String percent(double share) {
    return String.format("%.0f%%", 100 * share);
  }

  /** A count, padded so that what follows it lines up. */
  private static String count(long count) {
    return String.format("%-10s", String.format("%,d", count));
  }

  /**
   * What one run planned and read, for the example's tests to check without parsing its output.
   *
   * @param firstPlan the time of the first plan, the first warm-up plan; {@code null} without warm-up, when the
   *     measured plan is the first
   * @param warmUpPlans the plans before the measured one
   * @param plan the measured plan
   * @param ideal the ideal fan-out time of the demo catalog's tree, or {@code null} for another catalog
   * @param latency the demo catalog's delay of each {@code /tasks} answer, or {@code null} for another catalog
   * @param answering the demo catalog's time answering the measured plan, or {@code null} for another catalog
   * @param rows what was read, or {@code null} when {@code example.read=false}
   */
  record Run(@Nullable Duration firstPlan, int warmUpPlans, ScanPlan plan, int maxConcurrency,
      @Nullable Duration ideal, @Nullable Duration latency, @Nullable AnsweringTime answering,
      @Nullable RowsRead rows) {

    Run withRows(RowsRead read) {
      return new Run(this.firstPlan, this.warmUpPlans, this.plan, this.maxConcurrency, this.ideal, this.latency,
          this.answering, read);
    }

    /**
     * The share of the plan's wall time during which the catalog was answering at least one of its requests, from 0
     * to 1; {@code NaN} for another catalog than the demo's.
     */
    double catalogShare() {
      if (this.answering == null || this.plan.statistics().elapsed().isZero()) {
        return Double.NaN;
      }
      return (double) this.answering.busy().toNanos() / this.plan.statistics().elapsed().toNanos();
    }

    /**
     * The plan's wall time less the catalog's time answering its plan call: what the ideal compares with, since it
     * leaves out the plan call. {@code null} for another catalog than the demo's.
     */
    @Nullable Duration fanOut() {
      return this.answering == null ? null : this.plan.statistics().elapsed().minus(this.answering.plan());
    }
  }

  /**
   * The rows of a table its catalog governs, as read with the restrictions enforced.
   *
   * @param samples the first rows, as {@code column=value, …}, masked
   */
  record Governed(TableIdentifier table, ReadRestrictions restrictions, long rows, List<String> samples) {

    Governed {
      samples = List.copyOf(samples);
    }
  }

  /**
   * The rows of a scan, read with deletes applied as {@code readRows} streams them, and what a plan of the same scan
   * says they should be.
   *
   * @param rows the rows read
   * @param plannedRecords the sum of the planned tasks' record counts
   * @param positionDeletedRows the record counts of the plan's deletion vectors and position delete files
   * @param equalityDeletedRows the record counts of the plan's equality delete files: the rows they delete
   *     when each key matches one row, as in the demo table
   * @param samples the first rows, as {@code column=value, …}
   * @param firstRow the time from the {@code readRows} call to the first row, {@code null} when there was none
   * @param elapsed the time from the {@code readRows} call to the last row
   */
  record RowsRead(long rows, long plannedRecords, long positionDeletedRows, long equalityDeletedRows,
      List<String> samples, @Nullable Duration firstRow, Duration elapsed) {

    RowsRead {
      samples = List.copyOf(samples);
    }

    long deletedRows() {
      return this.positionDeletedRows + this.equalityDeletedRows;
    }

    /** The planned records less the deleted rows. */
    long expectedRows() {
      return this.plannedRecords - deletedRows();
    }

    /** Whether the rows read are the planned records less the deleted rows. */
    boolean agrees() {
      return this.rows == expectedRows();
    }

    /** The rows read per second of the read time. */
    double rowsPerSecond() {
      return this.elapsed.isZero() ? 0 : this.rows * 1e9 / this.elapsed.toNanos();
    }
  }
}
