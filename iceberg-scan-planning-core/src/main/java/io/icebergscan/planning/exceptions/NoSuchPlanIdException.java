package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** The catalog does not know the plan id (expired, cancelled or never issued). */
public class NoSuchPlanIdException extends RestException {

  public NoSuchPlanIdException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    this(statusCode, errorType, message, planTask, null);
  }

  public NoSuchPlanIdException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super(statusCode, errorType, message, planTask, retryAfter);
  }
}
