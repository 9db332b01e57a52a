package io.icebergscan.planning;

import org.jspecify.annotations.Nullable;

/** The catalog does not know the plan id (expired, cancelled or never issued). */
public class NoSuchPlanIdException extends RestException {

  public NoSuchPlanIdException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    super(statusCode, errorType, message, planTask);
  }
}
