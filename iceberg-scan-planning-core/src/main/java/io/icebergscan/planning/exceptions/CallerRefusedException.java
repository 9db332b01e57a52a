package io.icebergscan.planning.exceptions;

import java.time.Duration;

import org.jspecify.annotations.Nullable;

/**
 * The catalog refused a caller's request ({@code ScanPlanner#as}, or a planner that plans as its callers): 401 or the
 * spec's 419, the caller's credentials are not (or no longer) accepted; 403, the caller may not do what was asked.
 * The caller's to fix, not the application's: a web application answers 401 or 403. The same request of the
 * planner's own identity is a plain {@link RestException}.
 */
public class CallerRefusedException extends RestException {

  public CallerRefusedException(int statusCode, @Nullable String errorType, String message, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    super(statusCode, errorType, message, planTask, retryAfter);
  }

  /** Whether the catalog refused the caller's credentials (401, 419) rather than what the caller asked (403). */
  public boolean notAuthenticated() {
    return statusCode() != 403;
  }
}
