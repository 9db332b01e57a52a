package io.icebergscan.planning.iceberg;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import org.jspecify.annotations.Nullable;

/**
 * A planned task could not be read: its data file or one of its delete files is missing, unreadable or corrupt.
 * The rows read so far are not the task's rows, so none are returned as if whole.
 *
 * <p>For a table whose reads the catalog restricts, the exception withholds the data file and the failure's message
 * and carries no cause: a path may hold the raw value of a masked partition column, and a reader's message may quote
 * a value. It names the table and the kind of failure.
 */
public final class TaskReadException extends ScanPlanningException {

  /** What {@link #dataFile()} is when the table's reads are restricted. */
  public static final String WITHHELD = "(withheld)";

  private final String dataFile;

  public TaskReadException(String dataFile, Throwable cause) {
    this(dataFile, "the task of data file " + dataFile + " could not be read: " + describe(cause), cause);
  }

  private TaskReadException(String dataFile, String message, @Nullable Throwable cause) {
    super(message, null, cause);
    this.dataFile = dataFile;
  }

  /**
   * A task of a restricted table could not be read: named by its table and the failure's kind only.
   *
   * @param table the table, as {@code namespace.table}
   */
  static TaskReadException withheld(String table, Throwable cause) {
    String kind = cause instanceof TaskReadException ? "" : ": " + cause.getClass().getSimpleName();
    return new TaskReadException(WITHHELD, "a task of " + table + " could not be read" + kind + " (its file and the "
        + "failure's message are withheld, since the catalog restricts reads of " + table + ")", null);
  }

  /** The location of the task's data file, or {@link #WITHHELD} for a table whose reads are restricted. */
  public String dataFile() {
    return this.dataFile;
  }

  private static String describe(Throwable cause) {
    return cause instanceof TaskReadException ? String.valueOf(cause.getMessage())
        : cause.getClass().getSimpleName() + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
  }
}
