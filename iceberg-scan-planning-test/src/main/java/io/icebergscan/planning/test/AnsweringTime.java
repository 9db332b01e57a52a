package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.Objects;

/**
 * The time an {@link EmbeddedIcebergCatalog} spent answering plans since it started or since
 * {@link EmbeddedIcebergCatalog#resetRequestCounts()}: its {@code POST …/plan}, {@code GET …/plan/{plan-id}} and
 * {@code POST …/tasks} requests, each from the moment it is counted (authenticated, its body read) to the moment its
 * answer is written, the simulated {@link EmbeddedIcebergCatalog#tasksLatency} included. Of the requests counted in
 * the same {@link RequestCounts}, those answered by then: one still being answered counts once it is. Other requests
 * (config, table loads, cancels, credentials, metrics) are not timed.
 *
 * <p>Requests answered at the same time each count in full in the sums, which can so exceed the wall time;
 * {@link #busy()} counts their overlap once, and is what a client's wall time compares with.
 *
 * @param plan summed over the {@code POST …/plan} requests: Iceberg planning the scan, and the answer
 * @param poll summed over the polls, {@code GET …/plan/{plan-id}}
 * @param tasks summed over the {@code POST …/tasks} requests, their {@code tasksLatency} included
 * @param tasksLatency the part of {@code tasks} spent waiting out the simulated {@code tasksLatency}
 * @param busy the time during which at least one of these requests was being answered: never more than the wall
 *     time from the first one's arrival to the last one's answer, however many were answered at once
 */
public record AnsweringTime(Duration plan, Duration poll, Duration tasks, Duration tasksLatency, Duration busy) {

  /** No time: no request answered yet. */
  public static final AnsweringTime NONE =
      new AnsweringTime(Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO);

  public AnsweringTime {
    Objects.requireNonNull(plan, "plan");
    Objects.requireNonNull(poll, "poll");
    Objects.requireNonNull(tasks, "tasks");
    Objects.requireNonNull(tasksLatency, "tasksLatency");
    Objects.requireNonNull(busy, "busy");
  }

  /** The time summed over every request timed: {@code plan + poll + tasks}. */
  public Duration total() {
    return this.plan.plus(this.poll).plus(this.tasks);
  }
}
