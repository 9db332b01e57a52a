package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/** The catalog answered with an HTTP error status. */
public class RestException extends ScanPlanningException {

  private final int statusCode;
  private final @Nullable String errorType;
  private final @Nullable Duration retryAfter;

  public RestException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask) {
    this(statusCode, errorType, message, planTask, null);
  }

  /** @param retryAfter the delay the catalog asked for in {@code Retry-After}, or {@code null} */
  public RestException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super("HTTP " + statusCode + (errorType != null ? " " + errorType : "") + ": " + message, planTask, null);
    this.statusCode = statusCode;
    this.errorType = errorType;
    this.retryAfter = retryAfter;
  }

  /** The HTTP status code of the error response. */
  public int statusCode() {
    return this.statusCode;
  }

  /** The delay the catalog asked for in {@code Retry-After}, or {@code null}. */
  public @Nullable Duration retryAfter() {
    return this.retryAfter;
  }

  /** The {@code error.type} of the error body, or {@code null} when the body had none. */
  public @Nullable String errorType() {
    return this.errorType;
  }
}
