package io.icebergscan.planning;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

import org.jspecify.annotations.Nullable;

/** How a planner plans: limits, polling and time bounds. Built and checked by {@link ScanPlanner.Builder}. */
record PlannerSettings(int maxConcurrency, Duration planTimeout, Duration pollInitialDelay, Duration pollMaxDelay,
    Duration cancelTimeout, int streamBufferSize) {

  /**
   * The wait before poll number {@code attempt} (from 0): exponential from the initial delay, capped,
   * with "equal jitter" (uniform in the upper half) so that many plans submitted together do not poll
   * in lock step; never shorter than the catalog's {@code Retry-After}.
   */
  Duration pollDelay(int attempt, @Nullable Duration retryAfter) {
    long initial = this.pollInitialDelay.toMillis();
    long cap = this.pollMaxDelay.toMillis();
    long exponential = attempt >= 62 ? cap : Math.min(cap, initial << Math.min(attempt, 30));
    long jittered = exponential / 2 + ThreadLocalRandom.current().nextLong(exponential / 2 + 1);
    Duration delay = Duration.ofMillis(jittered);
    return retryAfter != null && retryAfter.compareTo(delay) > 0 ? retryAfter : delay;
  }
}
