package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.ScanPlan;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.util.TableScanUtil;

/**
 * A whole plan as Apache Iceberg's types: its {@link FileScanTask}s in the planner's order, the same tasks split
 * and combined for engines, and its rows. Closing it releases the plan's {@link FileIO}.
 */
public final class IcebergScanPlan implements AutoCloseable {

  private final IcebergTable table;
  private final ScanPlan scanPlan;
  private final List<FileScanTask> tasks;
  private final TaskReader reader;
  private final SplitSettings splitSettings;
  private final FileIO io;
  private final boolean ownsIo;

  IcebergScanPlan(IcebergTable table, ScanPlan scanPlan, List<FileScanTask> tasks, TaskReader reader,
      SplitSettings splitSettings, FileIO io, boolean ownsIo) {
    this.table = table;
    this.scanPlan = scanPlan;
    this.tasks = List.copyOf(tasks);
    this.reader = reader;
    this.splitSettings = splitSettings;
    this.io = io;
    this.ownsIo = ownsIo;
  }

  public IcebergTable table() {
    return this.table;
  }

  /** The plan as the planner returned it: its figures, its credentials and its tasks in the planner's model. */
  public ScanPlan scanPlan() {
    return this.scanPlan;
  }

  /** The tasks in the order of the serial breadth-first walk, one per planned task. */
  public List<FileScanTask> tasks() {
    return this.tasks;
  }

  /** The columns every row of {@link #rows()} has: the request's {@code select}, or all of the scan's schema. */
  public Schema schema() {
    return this.reader.projection();
  }

  /** The tasks split and combined by the table's {@code read.split.*} properties, or the planner's split size. */
  public List<CombinedScanTask> splitTasks() {
    return splitTasks(this.splitSettings);
  }

  /** The tasks split at their files' split offsets and combined into groups, as Iceberg's {@code planTasks}. */
  public List<CombinedScanTask> splitTasks(SplitSettings settings) {
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

  /** The FileIO this plan's files open with: built from the plan's credentials, or the given table's. */
  public FileIO io() {
    return this.io;
  }

  /** Every task's rows, task after task, with deletes applied and residuals evaluated. */
  public CloseableIterable<Record> rows() {
    return CloseableIterable.concat(this.tasks.stream().map(this.reader::read).toList());
  }

  /** One task's rows (a task of this plan, or a split of one), with deletes applied and its residual evaluated. */
  public CloseableIterable<Record> rows(FileScanTask task) {
    return this.reader.read(task);
  }

  /** The rows of a combined task, its splits one after the other. */
  public CloseableIterable<Record> rows(CombinedScanTask task) {
    return CloseableIterable.concat(task.files().stream().map(this.reader::read).toList());
  }

  @Override
  public void close() {
    if (this.ownsIo) {
      this.io.close();
    }
  }

  @Override
  public String toString() {
    return "IcebergScanPlan[" + this.table.identifier() + ", " + this.tasks.size() + " tasks]";
  }
}
