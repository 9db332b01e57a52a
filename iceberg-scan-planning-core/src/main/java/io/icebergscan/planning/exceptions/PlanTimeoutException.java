package io.icebergscan.planning.exceptions;

/** The plan did not finish within the configured plan timeout. */
public class PlanTimeoutException extends ScanPlanningException {

  public PlanTimeoutException(String message) {
    super(message, null, null);
  }
}
