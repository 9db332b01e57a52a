package io.icebergscan.planning;

import org.jspecify.annotations.Nullable;

/** The namespace does not exist. */
public class NoSuchNamespaceException extends RestException {

  public NoSuchNamespaceException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    super(statusCode, errorType, message, planTask);
  }
}
