package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/** A catalog response broke the protocol: the whole plan is rejected, never returned in part. */
public class MalformedResponseException extends ScanPlanningException {

  private final @Nullable String field;

  public MalformedResponseException(String message, @Nullable String field, @Nullable String planTask) {
    this(message, field, planTask, null);
  }

  public MalformedResponseException(String message, @Nullable String field, @Nullable String planTask,
      @Nullable Throwable cause) {
    super(field != null ? "malformed response at '" + field + "': " + message : "malformed response: " + message,
        planTask, cause);
    this.field = field;
  }

  /** The JSON path of the offending field, such as {@code file-scan-tasks[3].data-file.record-count}. */
  public @Nullable String field() {
    return this.field;
  }
}
