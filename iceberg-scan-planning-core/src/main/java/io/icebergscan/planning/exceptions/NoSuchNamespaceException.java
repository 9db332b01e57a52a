package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** The namespace does not exist. */
public class NoSuchNamespaceException extends RestException {

  public NoSuchNamespaceException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    this(statusCode, errorType, message, planTask, null);
  }

  public NoSuchNamespaceException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super(statusCode, errorType, message, planTask, retryAfter);
  }
}
