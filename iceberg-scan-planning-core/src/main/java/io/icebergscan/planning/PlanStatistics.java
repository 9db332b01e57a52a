package io.icebergscan.planning;

import java.time.Duration;
import java.util.Objects;

/**
 * How a plan was obtained: what it fetched and sent, and how long it took.
 *
 * @param planTasksFetched the number of distinct plan-task handles fetched
 * @param walkDepth the deepest level of plan-tasks fetched (0 when the plan needed no fetch)
 * @param requestsMade HTTP requests the plan sent: the submission, each poll and each plan-task fetch, every
 *     retry included; not the discovery a planner's plans share, nor the DELETE of an abandoned plan
 * @param replans how often the plan started over because the catalog forgot it or a handle (0 unless
 *     {@code replans} are allowed)
 * @param elapsed wall time from the first request to the last answer
 */
public record PlanStatistics(int planTasksFetched, int walkDepth, int requestsMade, int replans, Duration elapsed) {

  public PlanStatistics {
    Objects.requireNonNull(elapsed, "elapsed");
  }
}
