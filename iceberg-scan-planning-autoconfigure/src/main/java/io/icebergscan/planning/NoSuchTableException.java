package io.icebergscan.planning;

import org.jspecify.annotations.Nullable;

/** The table does not exist. */
public class NoSuchTableException extends RestException {

  public NoSuchTableException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    super(statusCode, errorType, message, planTask);
  }
}
