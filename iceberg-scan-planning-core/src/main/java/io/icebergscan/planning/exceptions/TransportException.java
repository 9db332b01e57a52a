package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/** The request did not get an HTTP answer: connection refused or reset, I/O or protocol failure. */
public class TransportException extends ScanPlanningException {

  public TransportException(String message, @Nullable String planTask, @Nullable Throwable cause) {
    super(message, planTask, cause);
  }
}
