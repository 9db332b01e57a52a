package io.icebergscan.planning;

import java.time.Duration;
import java.util.List;
import java.util.Objects;

import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;

/**
 * A whole plan: its file scan tasks in walk order and figures about how it was obtained.
 *
 * @param planId the catalog's id for the plan, or {@code null} when it gave none
 * @param tasks the file scan tasks in the order of the serial breadth-first walk
 * @param storageCredentials credentials the catalog vended for reading the files (may be empty)
 * @param planTasksFetched the number of distinct plan-task handles fetched
 * @param walkDepth the deepest level of plan-tasks fetched (0 when the plan needed no fetch)
 * @param requestsMade HTTP requests this plan sent: the submission, each poll and each plan-task fetch, every
 *     retry included; not the discovery a planner's plans share, nor the DELETE of an abandoned plan
 * @param replans how often the plan started over because the catalog forgot it or a handle (0 unless
 *     {@code replans} are allowed)
 * @param elapsed wall time from the first request to the last answer
 */
public record ScanPlan(
    @Nullable String planId,
    List<FileScanTask> tasks,
    List<StorageCredential> storageCredentials,
    int planTasksFetched,
    int walkDepth,
    int requestsMade,
    int replans,
    Duration elapsed) {

  public ScanPlan {
    tasks = List.copyOf(tasks);
    storageCredentials = List.copyOf(storageCredentials);
    Objects.requireNonNull(elapsed, "elapsed");
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
