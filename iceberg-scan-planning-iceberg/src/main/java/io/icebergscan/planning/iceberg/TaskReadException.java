package io.icebergscan.planning.iceberg;

import io.icebergscan.planning.exceptions.ScanPlanningException;

/**
 * A planned task could not be read: its data file or one of its delete files is missing, unreadable or corrupt.
 * The rows read so far are not the task's rows, so none are returned as if whole.
 */
public final class TaskReadException extends ScanPlanningException {

  private final String dataFile;

  public TaskReadException(String dataFile, Throwable cause) {
    super("the task of data file " + dataFile + " could not be read: " + describe(cause), null, cause);
    this.dataFile = dataFile;
  }

  /** The location of the task's data file. */
  public String dataFile() {
    return this.dataFile;
  }

  private static String describe(Throwable cause) {
    return cause instanceof TaskReadException ? String.valueOf(cause.getMessage())
        : cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
  }
}
