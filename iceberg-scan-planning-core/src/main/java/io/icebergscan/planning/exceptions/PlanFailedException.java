package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/** The catalog reported the plan as {@code failed}. */
public class PlanFailedException extends ScanPlanningException {

  private final @Nullable String errorType;

  public PlanFailedException(String message, @Nullable String errorType) {
    super(message, null, null);
    this.errorType = errorType;
  }

  /** The {@code error.type} the catalog gave for the failure, or {@code null}. */
  public @Nullable String errorType() {
    return this.errorType;
  }
}
