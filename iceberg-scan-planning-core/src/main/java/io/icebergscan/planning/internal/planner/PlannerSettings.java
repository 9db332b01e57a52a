package io.icebergscan.planning.internal.planner;

import java.time.Duration;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.internal.http.RetryPolicy;
import org.jspecify.annotations.Nullable;

/**
 * How a planner plans: limits, polling, time bounds and re-plans. Built and checked by {@link ScanPlanner.Builder}.
 *
 * @param replans how often a plan may start over after the catalog forgot it or one of its handles
 */
public record PlannerSettings(int maxConcurrency, Duration planTimeout, Duration pollInitialDelay, Duration pollMaxDelay,
    Duration cancelTimeout, int streamBufferSize, int replans) {

  /**
   * The wait before poll number {@code attempt} (from 0): the {@linkplain RetryPolicy#backoff backoff}
   * from the initial delay to the cap, so that many plans submitted together do not poll in lock step;
   * never shorter than the catalog's {@code Retry-After}.
   */
  public Duration pollDelay(int attempt, @Nullable Duration retryAfter) {
    Duration delay = RetryPolicy.backoff(this.pollInitialDelay, this.pollMaxDelay, attempt);
    return retryAfter != null && retryAfter.compareTo(delay) > 0 ? retryAfter : delay;
  }
}
