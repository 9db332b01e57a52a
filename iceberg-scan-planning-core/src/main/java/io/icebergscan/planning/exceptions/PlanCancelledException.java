package io.icebergscan.planning.exceptions;

/** The plan was cancelled: by the catalog ({@code cancelled} status) or by the caller (interrupt). */
public class PlanCancelledException extends ScanPlanningException {

  public PlanCancelledException(String message) {
    super(message, null, null);
  }
}
