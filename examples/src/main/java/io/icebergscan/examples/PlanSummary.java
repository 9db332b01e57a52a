package io.icebergscan.examples;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.test.DemoTable;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.ApplicationArguments;
import org.springframework.boot.ApplicationRunner;
import org.springframework.stereotype.Component;

/**
 * Plans the configured table twice at start-up, the first plan cold and the second warm, and prints what the
 * plan holds and how long each took, next to the ideal for the demo catalog's plan-task tree; then reads the
 * second plan's rows with deletes applied (unless {@code example.read=false}) and prints how many there are, which
 * is the planned records less the deleted rows, a few of them, and the time the reading took.
 */
@Component
class PlanSummary implements ApplicationRunner {

  private static final int SAMPLE_ROWS = 3;

  private final IcebergScanPlanner iceberg;
  private final TableIdentifier table;
  private final ScanRequest request;
  private final boolean read;
  private final @Nullable Duration latency;
  private volatile @Nullable Run lastRun;

  /**
   * Takes the {@link IcebergScanPlanner} the iceberg module auto-configures over the starter's {@code ScanPlanner}:
   * it loads table metadata, converts tasks and reads rows through that planner.
   */
  PlanSummary(IcebergScanPlanner iceberg, @Value("${example.table}") String table,
      @Value("${example.filter:#{null}}") @Nullable String filter, @Value("${example.read:true}") boolean read,
      @Value("${" + DemoCatalog.EMBEDDED + ":false}") boolean demo,
      @Value("${" + DemoCatalog.LATENCY_MS + ":" + DemoCatalog.DEFAULT_LATENCY_MS + "}") int latencyMs) {
    this.iceberg = iceberg;
    this.table = TableIdentifier.parse(table);
    ScanRequest.Builder request = ScanRequest.builder();
    if (filter != null && !filter.isBlank()) {
      request.filter(filter);
    }
    this.request = request.build();
    this.read = read;
    // the tree and the latency are known for the demo catalog only
    this.latency = demo ? Duration.ofMillis(latencyMs) : null;
  }

  @Override
  public void run(ApplicationArguments args) {
    int maxConcurrency = this.iceberg.planner().maxConcurrency();
    Duration ideal = this.latency == null ? null
        : IdealPlanTime.of(DemoTable.FAN_OUT_LEVELS, maxConcurrency, this.latency);
    IcebergTable loaded = this.iceberg.loadTable(this.table);
    ScanPlan cold;
    try (IcebergScanPlan first = this.iceberg.plan(loaded, this.request)) {
      cold = first.scanPlan();
    }
    try (IcebergScanPlan second = this.iceberg.plan(loaded, this.request)) {
      ScanPlan warm = second.scanPlan();
      System.out.print(describe(this.table, cold, warm, maxConcurrency, ideal, this.latency));
      RowsRead rows = this.read ? read(second) : null;
      if (rows != null) {
        System.out.print(describe(this.table, rows));
      }
      this.lastRun = new Run(cold, warm, maxConcurrency, ideal, rows);
    }
  }

  /** What the last run planned and read, or {@code null} before the first. */
  @Nullable Run lastRun() {
    return this.lastRun;
  }

  private static RowsRead read(IcebergScanPlan plan) {
    long started = System.nanoTime();
    long rows = 0;
    List<String> samples = new ArrayList<>(SAMPLE_ROWS);
    try (CloseableIterable<Record> records = plan.rows()) {
      for (Record record : records) {
        if (samples.size() < SAMPLE_ROWS) {
          samples.add(describe(plan, record));
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
    plan.scanPlan().tasks().forEach(task -> deleteFiles.addAll(task.deleteFiles()));
    long byPosition = deleteFiles.stream().filter(file -> file.content() == FileContent.POSITION_DELETES)
        .mapToLong(DeleteFile::recordCount).sum();
    long byEquality = deleteFiles.stream().filter(file -> file.content() == FileContent.EQUALITY_DELETES)
        .mapToLong(DeleteFile::recordCount).sum();
    return new RowsRead(rows, plannedRecords(plan.scanPlan()), byPosition, byEquality, samples, elapsed);
  }

  /** The sum of the planned tasks' record counts: each data file's once, should it be in several tasks. */
  private static long plannedRecords(ScanPlan plan) {
    Set<String> dataFiles = new HashSet<>();
    long records = 0;
    for (FileScanTask task : plan.tasks()) {
      if (dataFiles.add(task.dataFile().filePath())) {
        records += task.dataFile().recordCount();
      }
    }
    return records;
  }

  private static String describe(IcebergScanPlan plan, Record record) {
    return plan.schema().columns().stream().map(Types.NestedField::name)
        .map(name -> name + "=" + record.getField(name)).collect(Collectors.joining(", "));
  }

  static String describe(TableIdentifier table, ScanPlan cold, ScanPlan warm, int maxConcurrency,
      @Nullable Duration ideal, @Nullable Duration latency) {
    Set<String> dataFiles = new HashSet<>();
    Set<DeleteFile> deleteFiles = new HashSet<>();
    long bytes = 0;
    for (FileScanTask task : warm.tasks()) {
      if (dataFiles.add(task.dataFile().filePath())) {
        bytes += task.dataFile().fileSizeInBytes();
      }
      deleteFiles.addAll(task.deleteFiles());
    }
    String idealLine = ideal == null || latency == null
        ? "  ideal                (known for the demo catalog's plan-task tree only)\n"
        : String.format("  ideal                %-10s %,d plan-tasks in a tree of %s at %d ms a fetch, %d in "
            + "flight%n", String.format("%,d ms", ideal.toMillis()), DemoTable.PLAN_TASKS,
            DemoTable.FAN_OUT_LEVELS.stream().map(String::valueOf).collect(Collectors.joining(" / ")),
            latency.toMillis(), maxConcurrency);
    return String.format("""

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
        """, table, warm.planId(), warm.tasks().size(), dataFiles.size(), bytes, plannedRecords(warm),
        deleteFiles.size(), warm.planTasksFetched(), warm.walkDepth(), warm.requestsMade(), maxConcurrency)
        + idealLine + planTime("first plan (cold)", cold, ideal) + planTime("second plan (warm)", warm, ideal);
  }

  private static String planTime(String label, ScanPlan plan, @Nullable Duration ideal) {
    String time = String.format("%,d ms", plan.elapsed().toMillis());
    return ideal == null || ideal.isZero() ? String.format("  %-20s %s%n", label, time)
        : String.format("  %-20s %-10s %.1fx the ideal%n", label, time,
            (double) plan.elapsed().toNanos() / ideal.toNanos());
  }

  static String describe(TableIdentifier table, RowsRead rows) {
    String samples = rows.samples().isEmpty() ? "(none)\n"
        : String.join("\n" + " ".repeat(23), rows.samples()) + "\n";
    return String.format("""

        Rows of %s, read with deletes applied
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
        + String.format("  read time            %,d ms%n", rows.elapsed().toMillis());
  }

  /** A count, padded so that what follows it lines up. */
  private static String count(long count) {
    return String.format("%-10s", String.format("%,d", count));
  }

  /**
   * What one run planned and read, for the example's tests to check without parsing its output.
   *
   * @param ideal the ideal plan time of the demo catalog's tree, or {@code null} for another catalog
   * @param rows what was read, or {@code null} when {@code example.read=false}
   */
  record Run(ScanPlan cold, ScanPlan warm, int maxConcurrency, @Nullable Duration ideal, @Nullable RowsRead rows) {
  }

  /**
   * The rows of a plan, read with deletes applied, and what the plan says they should be.
   *
   * @param rows the rows read
   * @param plannedRecords the sum of the planned tasks' record counts
   * @param positionDeletedRows the record counts of the plan's deletion vectors and position delete files
   * @param equalityDeletedRows the record counts of the plan's equality delete files: the rows they delete
   *     when each key matches one row, as in the demo table
   * @param samples the first rows, as {@code column=value, …}
   * @param elapsed the time the reading took
   */
  record RowsRead(long rows, long plannedRecords, long positionDeletedRows, long equalityDeletedRows,
      List<String> samples, Duration elapsed) {

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
  }
}
