package io.icebergscan.planning.exceptions;

/**
 * A planner that plans as its callers ({@code ScanPlanner.Builder#callers}) was called with no caller to plan as: no
 * authenticated user on the calling thread or in the reactive call's context. Nothing was sent. Not the catalog's
 * failure nor the application's credentials: the call needs a caller, so a web application answers 401.
 */
public class MissingCallerException extends ScanPlanningException {

  public MissingCallerException(String call) {
    super(call + " runs as its caller, and there is none: no authenticated caller on this thread "
        + Thread.currentThread().getName() + " or in the call's reactive context", null, null);
  }
}
