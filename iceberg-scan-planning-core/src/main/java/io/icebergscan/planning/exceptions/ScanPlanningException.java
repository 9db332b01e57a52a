package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/**
 * Base of every failure the planner reports. When the failure belongs to one plan-task fetch,
 * {@link #planTask()} names that handle and the message names it too.
 */
public class ScanPlanningException extends RuntimeException {

  private static final int MAX_HANDLE_IN_MESSAGE = 200;

  private final @Nullable String planTask;

  public ScanPlanningException(String message, @Nullable String planTask, @Nullable Throwable cause) {
    super(withHandle(message, planTask), cause);
    this.planTask = planTask;
  }

  public ScanPlanningException(String message) {
    this(message, null, null);
  }

  /** The plan-task handle whose fetch failed, or {@code null} when the failure is not a fetch's. */
  public @Nullable String planTask() {
    return this.planTask;
  }

  private static String withHandle(String message, @Nullable String planTask) {
    if (planTask == null) {
      return message;
    }
    String shown = planTask.length() <= MAX_HANDLE_IN_MESSAGE
        ? planTask
        : planTask.substring(0, MAX_HANDLE_IN_MESSAGE) + "…(" + planTask.length() + " chars)";
    return message + " [plan task '" + shown + "']";
  }
}
