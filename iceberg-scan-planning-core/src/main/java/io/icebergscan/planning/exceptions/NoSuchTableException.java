package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** The table does not exist. */
public class NoSuchTableException extends RestException {

  public NoSuchTableException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    this(statusCode, errorType, message, planTask, null);
  }

  public NoSuchTableException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super(statusCode, errorType, message, planTask, retryAfter);
  }
}
