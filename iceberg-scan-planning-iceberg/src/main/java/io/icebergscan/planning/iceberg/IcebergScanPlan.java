package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanSummary;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.TableScanUtil;

/**
 * A whole plan as Apache Iceberg's types: its {@link FileScanTask}s in the planner's order, the same tasks split
 * and combined for engines, and its rows. Closing it cancels the reads of its rows still going and releases the
 * plan's {@link FileIO}; its rows cannot be read after that.
 *
 * <p>For a table whose reads the catalog restricts, only the rows are handed out, with the restrictions enforced:
 * {@link #tasks()}, {@link #splitTasks()}, {@link #summary()}, {@link #io()} and {@link #scanPlan()} throw a
 * {@link RestrictedReadException}, since a task's file, statistics, partition values and path describe the raw rows
 * (those the row filter removes too), the plan's FileIO and credentials open the raw files, and another reader would
 * not enforce the restrictions. {@link #rows(FileScanTask)} and {@link #rows(CombinedScanTask)} refuse too: a task
 * they are given cannot be one of this plan's, and its partition values would stand in for the values the row
 * filter is evaluated on.
 */
public final class IcebergScanPlan implements AutoCloseable {

  /** Why the task doors refuse a restricted table. */
  static final String TASKS_REFUSED = "a task's file, statistics, partition values and path describe the raw rows, "
      + "and a reader other than this planner's would not enforce the restrictions; read the rows instead";
  /** Why the summary refuses a restricted table. */
  private static final String SUMMARY_REFUSED = "its figures are the files' statistics, which measure the raw rows: "
      + "those the row filter removes too, and the raw values of masked columns; count the rows read instead";
  /** This plan's tasks are withheld, so a task given to it is not one of them. */
  private static final String TASK_FROM_ELSEWHERE = "a task not of this plan is read as it says, with this plan's "
      + "credentials: its partition values stand in for the rows' values the row filter is evaluated on, and it may "
      + "leave out deletes; read rows() instead";

  private final IcebergTable table;
  private final ScanPlan scanPlan;
  private final List<FileScanTask> tasks;
  private final TaskReader reader;
  private final ScanRows.Reading reading;
  private final SplitSettings splitSettings;
  private final FileIO io;
  private final boolean ownsIo;
  private final String what;
  private final boolean caseSensitive;
  /** The rows handed out, whose reads are cancelled when the plan closes. */
  private final CloseableGroup reads = new CloseableGroup();
  private volatile boolean closed;

  IcebergScanPlan(IcebergTable table, ScanPlan scanPlan, List<FileScanTask> tasks, ResolvedScan scan,
      ScanRows.Reading reading, SplitSettings splitSettings, FileIO io, boolean ownsIo) {
    this.table = table;
    this.scanPlan = scanPlan;
    this.tasks = List.copyOf(tasks);
    this.what = (scanPlan.planId() == null ? "a plan" : "plan " + scanPlan.planId()) + " of " + table.identifier();
    this.reader = TaskReader.forPlan(io, scan, this::checkOpen);
    this.caseSensitive = scan.caseSensitive();
    this.reading = reading;
    this.splitSettings = splitSettings;
    this.io = io;
    this.ownsIo = ownsIo;
  }

  public IcebergTable table() {
    return this.table;
  }

  /**
   * The plan as the planner returned it: its figures, its credentials and its tasks in the planner's model.
   *
   * @throws RestrictedReadException for a table whose reads are restricted
   */
  public ScanPlan scanPlan() {
    this.table.refuseIfRestricted("IcebergScanPlan.scanPlan()", "its tasks describe the raw rows and its "
        + "credentials open the raw files");
    return this.scanPlan;
  }

  /**
   * The plan in figures, for an "explain" ({@link ScanSummary}): its tasks, the distinct data files and delete files
   * they read, and the data files' bytes and records.
   *
   * @throws RestrictedReadException for a table whose reads are restricted, as {@link #tasks()} does: the figures are
   *     the files' statistics, which measure the raw rows (those the row filter removes too, and the raw values of
   *     masked columns)
   */
  public ScanSummary summary() {
    this.table.refuseIfRestricted("IcebergScanPlan.summary()", SUMMARY_REFUSED);
    return this.scanPlan.summary();
  }

  /**
   * The tasks in the order of the serial breadth-first walk, one per planned task.
   *
   * @throws RestrictedReadException for a table whose reads are restricted
   */
  public List<FileScanTask> tasks() {
    this.table.refuseIfRestricted("IcebergScanPlan.tasks()", TASKS_REFUSED);
    return this.tasks;
  }

  /**
   * The columns every row of {@link #rows()} has: the request's {@code select} (data columns in the schema's order,
   * then the metadata columns it names), or all of the scan's schema.
   */
  public Schema schema() {
    return this.reader.projection();
  }

  /** The tasks split and combined by the table's {@code read.split.*} properties, or the planner's split size. */
  public List<CombinedScanTask> splitTasks() {
    return splitTasks(this.splitSettings);
  }

  /**
   * The tasks split at their files' split offsets and combined into groups, as Iceberg's {@code planTasks}.
   *
   * @throws RestrictedReadException for a table whose reads are restricted
   */
  public List<CombinedScanTask> splitTasks(SplitSettings settings) {
    this.table.refuseIfRestricted("IcebergScanPlan.splitTasks()", TASKS_REFUSED);
    try (CloseableIterable<FileScanTask> split = TableScanUtil.splitFiles(CloseableIterable.withNoopClose(this.tasks),
        settings.splitSize());
        CloseableIterable<CombinedScanTask> combined = TableScanUtil.planTasks(split, settings.splitSize(),
            settings.lookback(), settings.openFileCost())) {
      List<CombinedScanTask> groups = new ArrayList<>();
      combined.forEach(groups::add);
      return List.copyOf(groups);
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
  }

  /**
   * The FileIO this plan's files open with: built from the plan's credentials, or the given table's.
   *
   * @throws RestrictedReadException for a table whose reads are restricted: it opens the raw files
   */
  public FileIO io() {
    this.table.refuseIfRestricted("IcebergScanPlan.io()", "it opens the raw files");
    return this.io;
  }

  /**
   * Every task's rows, with deletes applied, the read restrictions enforced and the filter evaluated, in task order
   * and read up to the planner's {@code readConcurrency} tasks at a time ({@link ScanRows}).
   *
   * @throws IllegalStateException when the plan is closed
   */
  public ScanRows rows() {
    checkOpen();
    ScanRows rows = new ScanRows(this.what, this.reading, pipeline -> TaskSources.of(pipeline, this.tasks,
        this.reader), this::checkOpen, schema().asStruct(), this.caseSensitive);
    this.reads.addCloseable(rows);
    return rows;
  }

  /**
   * Every task's rows as {@link #rows()} reads them, each as an instance of {@code type} ({@link ScanRows#as}).
   *
   * @throws RowMappingException when {@code type} does not fit the rows' columns, before any file is read
   * @throws IllegalStateException when the plan is closed
   */
  public <T> MappedRows<T> rows(Class<T> type) {
    return rows().as(type);
  }

  /**
   * One task's rows (a task of this plan, or a split of one), with deletes applied and the filter evaluated, read on
   * the calling thread.
   *
   * @throws RestrictedReadException for a table whose reads are restricted: its tasks are withheld, and a task from
   *     elsewhere is read as it says, with this plan's credentials
   * @throws IllegalStateException when the plan is closed
   */
  public CloseableIterable<Record> rows(FileScanTask task) {
    checkOpen();
    this.table.refuseIfRestricted("IcebergScanPlan.rows(FileScanTask)", TASK_FROM_ELSEWHERE);
    return this.reader.read(task);
  }

  /**
   * The rows of a combined task, its splits one after the other, read on the calling thread.
   *
   * @throws RestrictedReadException for a table whose reads are restricted, as {@link #rows(FileScanTask)}
   * @throws IllegalStateException when the plan is closed
   */
  public CloseableIterable<Record> rows(CombinedScanTask task) {
    checkOpen();
    this.table.refuseIfRestricted("IcebergScanPlan.rows(CombinedScanTask)", TASK_FROM_ELSEWHERE);
    return CloseableIterable.concat(task.files().stream().map(this.reader::read).toList());
  }

  /** Cancels the reads of its rows still going, then closes the plan's FileIO (unless the table's own). */
  @Override
  public void close() {
    if (this.closed) {
      return;
    }
    this.closed = true;
    try {
      this.reads.close();
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    finally {
      if (this.ownsIo) {
        this.io.close();
      }
    }
  }

  /** @throws IllegalStateException naming the plan once it is closed */
  private void checkOpen() {
    if (this.closed) {
      throw new IllegalStateException(this.what + " is closed: its rows cannot be read after close()");
    }
  }

  @Override
  public String toString() {
    return "IcebergScanPlan[" + this.table.identifier() + ", " + this.tasks.size() + " tasks]";
  }
}
