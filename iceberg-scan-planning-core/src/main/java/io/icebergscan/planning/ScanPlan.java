package io.icebergscan.planning;

import java.util.List;
import java.util.Objects;

import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;

/**
 * A whole plan: its file scan tasks in walk order, the credentials to read their files with, and how it was
 * obtained.
 *
 * @param planId the catalog's id for the plan, or {@code null} when it gave none
 * @param tasks the file scan tasks in the order of the serial breadth-first walk
 * @param storageCredentials credentials the catalog vended for reading the files (may be empty)
 * @param statistics what the plan fetched and sent, and how long it took
 */
public record ScanPlan(
    @Nullable String planId,
    List<FileScanTask> tasks,
    List<StorageCredential> storageCredentials,
    PlanStatistics statistics) {

  public ScanPlan {
    tasks = List.copyOf(tasks);
    storageCredentials = List.copyOf(storageCredentials);
    Objects.requireNonNull(statistics, "statistics");
  }

  /**
   * The plan in figures: its tasks, the distinct data files and delete files they read, and the data files' bytes and
   * records as the catalog describes them ({@link ScanSummary}). Worked out on each call, from the tasks.
   */
  public ScanSummary summary() {
    return ScanSummary.of(this.tasks);
  }

  /**
   * The credential for a file location: the one with the longest matching prefix, as the spec says.
   *
   * @return the credential, or {@code null} when none applies
   */
  public @Nullable StorageCredential credentialFor(String location) {
    return StorageCredential.forLocation(this.storageCredentials, location);
  }
}
