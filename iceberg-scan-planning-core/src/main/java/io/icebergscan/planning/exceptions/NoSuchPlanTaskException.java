package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** The catalog does not know a plan-task handle. */
public class NoSuchPlanTaskException extends RestException {

  public NoSuchPlanTaskException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    this(statusCode, errorType, message, planTask, null);
  }

  public NoSuchPlanTaskException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super(statusCode, errorType, message, planTask, retryAfter);
  }
}
