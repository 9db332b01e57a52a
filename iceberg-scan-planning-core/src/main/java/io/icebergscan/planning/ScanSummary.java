package io.icebergscan.planning;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileScanTask;
import org.jspecify.annotations.Nullable;

/**
 * What a plan holds, in figures, as an "explain" shows them ({@link ScanPlan#summary()}). Counted from the
 * catalog's file metadata, not from reading: the rows a read returns are at most {@link #dataFileRecords()}, fewer by
 * the deleted rows and by the filter's residual.
 *
 * <p>A data file that several tasks name is counted once, by its path; a delete file that several tasks share is
 * counted once, by its whole description, so two deletion vectors of one Puffin file are two. A task of the REST spec
 * is a whole data file, so the bytes are the data files' {@code file-size-in-bytes}, whatever splits an engine later
 * cuts them into.
 *
 * @param tasks the plan's file scan tasks
 * @param dataFiles the distinct data files they read
 * @param dataFileBytes the sum of those data files' {@code file-size-in-bytes}; {@code null} when withheld: the
 *     iceberg module's {@code IcebergScanPlan.summary()} withholds it for a table whose catalog filters the rows it
 *     reads, since the files' sizes measure the rows the filter removes too
 * @param dataFileRecords the sum of those data files' {@code record-count}: their rows before deletes and the
 *     filter's residual; {@code null} when withheld, as {@code dataFileBytes}, since it counts the rows the filter
 *     removes
 * @param deleteFiles the distinct delete files (position, equality, deletion vectors) applied to them
 */
public record ScanSummary(int tasks, int dataFiles, @Nullable Long dataFileBytes, @Nullable Long dataFileRecords,
    int deleteFiles) {

  public ScanSummary {
    nonNegative(tasks, "tasks");
    nonNegative(dataFiles, "dataFiles");
    nonNegative(deleteFiles, "deleteFiles");
    if (dataFileBytes != null) {
      nonNegative(dataFileBytes, "dataFileBytes");
    }
    if (dataFileRecords != null) {
      nonNegative(dataFileRecords, "dataFileRecords");
    }
  }

  /** The figures of {@code tasks}, none withheld. */
  static ScanSummary of(List<FileScanTask> tasks) {
    Set<String> dataFiles = new HashSet<>();
    Set<DeleteFile> deleteFiles = new HashSet<>();
    long bytes = 0;
    long records = 0;
    for (FileScanTask task : tasks) {
      if (dataFiles.add(task.dataFile().filePath())) {
        bytes += task.dataFile().fileSizeInBytes();
        records += task.dataFile().recordCount();
      }
      deleteFiles.addAll(task.deleteFiles());
    }
    return new ScanSummary(tasks.size(), dataFiles.size(), bytes, records, deleteFiles.size());
  }

  private static void nonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative, but was " + value);
    }
  }
}
