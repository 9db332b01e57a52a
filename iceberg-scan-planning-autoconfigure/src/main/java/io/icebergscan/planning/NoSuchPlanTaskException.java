package io.icebergscan.planning;

import org.jspecify.annotations.Nullable;

/** The catalog does not know a plan-task handle. */
public class NoSuchPlanTaskException extends RestException {

  public NoSuchPlanTaskException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    super(statusCode, errorType, message, planTask);
  }
}
