package io.icebergscan.planning;

import java.time.Duration;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import org.jspecify.annotations.Nullable;

/**
 * Hears what a planner does, for metrics and logs. Called on planner threads: keep it quick and never
 * block. Exceptions it throws are ignored.
 */
public interface ScanPlanningListener {

  /** One plan-task fetch answered, successfully or with {@code failure}; aborted fetches are not reported. */
  default void planTaskFetched(TableIdentifier table, Duration duration, @Nullable ScanPlanningException failure) {
  }

  /** A plan ended: completed, failed, or abandoned by its caller. */
  default void planFinished(PlanSummary summary) {
  }

  /**
   * How a plan ended.
   *
   * @param table the planned table
   * @param outcome how it ended
   * @param failure the failure, when the outcome is {@link Outcome#FAILURE}
   * @param tasks file scan tasks delivered to the caller
   * @param planTasksFetched distinct plan-task fetches started
   * @param requestsMade HTTP requests made for the plan
   * @param elapsed wall time from subscription to the end
   */
  record PlanSummary(TableIdentifier table, Outcome outcome, @Nullable Throwable failure, long tasks,
      int planTasksFetched, int requestsMade, Duration elapsed) {
  }

  /** How a plan ended. */
  enum Outcome {
    SUCCESS, FAILURE, CANCELLED
  }
}
