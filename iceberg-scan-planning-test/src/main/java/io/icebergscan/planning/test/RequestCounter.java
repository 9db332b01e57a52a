package io.icebergscan.planning.test;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts requests by planning route, and credentials and metrics requests; {@code /tasks} also by how many are
 * answered at once, and metrics reports by how many are being answered now.
 */
final class RequestCounter {

  private final AtomicInteger config = new AtomicInteger();
  private final AtomicInteger plan = new AtomicInteger();
  private final AtomicInteger poll = new AtomicInteger();
  private final AtomicInteger cancel = new AtomicInteger();
  private final AtomicInteger tasks = new AtomicInteger();
  private final AtomicInteger tasksInFlight = new AtomicInteger();
  private final AtomicInteger maxTasksInFlight = new AtomicInteger();
  private final AtomicInteger credentials = new AtomicInteger();
  private final AtomicInteger metrics = new AtomicInteger();
  private final AtomicInteger metricsInFlight = new AtomicInteger();

  void started(PlanningRoute route) {
    switch (route) {
      case CREDENTIALS -> this.credentials.incrementAndGet();
      case CONFIG -> this.config.incrementAndGet();
      case PLAN -> this.plan.incrementAndGet();
      case POLL -> this.poll.incrementAndGet();
      case CANCEL -> this.cancel.incrementAndGet();
      case TASKS -> {
        this.tasks.incrementAndGet();
        this.maxTasksInFlight.accumulateAndGet(this.tasksInFlight.incrementAndGet(), Math::max);
      }
      case METRICS -> {
        this.metrics.incrementAndGet();
        this.metricsInFlight.incrementAndGet();
      }
      case OTHER -> {
      }
    }
  }

  void finished(PlanningRoute route) {
    if (route == PlanningRoute.TASKS) {
      this.tasksInFlight.decrementAndGet();
    }
    if (route == PlanningRoute.METRICS) {
      this.metricsInFlight.decrementAndGet();
    }
  }

  RequestCounts snapshot() {
    return new RequestCounts(this.config.get(), this.plan.get(), this.poll.get(), this.cancel.get(), this.tasks.get(),
        this.maxTasksInFlight.get(), this.credentials.get(), this.metrics.get(), this.metricsInFlight.get());
  }

  /** Zeroes the counts; the in-flight gauges keep counting requests still being answered. */
  void reset() {
    this.config.set(0);
    this.plan.set(0);
    this.poll.set(0);
    this.cancel.set(0);
    this.tasks.set(0);
    this.maxTasksInFlight.set(this.tasksInFlight.get());
    this.credentials.set(0);
    this.metrics.set(0);
  }
}
