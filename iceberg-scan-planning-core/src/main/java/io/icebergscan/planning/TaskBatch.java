package io.icebergscan.planning;

import java.util.List;

import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;

/**
 * Tasks of a streamed plan as one of the catalog's answers brought them, in walk order, with what the completed plan
 * said of all of them: its id and the credentials it vended for reading the files. A reader that starts on the
 * first tasks of a stream needs both before the plan has ended: the credentials to open the files, the plan id to
 * load fresh credentials for them ({@code GET …/credentials?planId=…}).
 *
 * @param planId the catalog's id for the plan, or {@code null} when it gave none
 * @param storageCredentials credentials the catalog vended with the completed plan (may be empty)
 * @param tasks the tasks, at least one
 */
public record TaskBatch(@Nullable String planId, List<StorageCredential> storageCredentials,
    List<FileScanTask> tasks) {

  public TaskBatch {
    storageCredentials = List.copyOf(storageCredentials);
    tasks = List.copyOf(tasks);
    if (tasks.isEmpty()) {
      throw new IllegalArgumentException("a batch holds at least one task");
    }
  }
}
