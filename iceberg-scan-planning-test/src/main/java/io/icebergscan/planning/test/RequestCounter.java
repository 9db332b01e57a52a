package io.icebergscan.planning.test;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts requests by planning route, and credentials requests; {@code /tasks} also by how many are answered at once.
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
      case OTHER -> {
      }
    }
  }

  void finished(PlanningRoute route) {
    if (route == PlanningRoute.TASKS) {
      this.tasksInFlight.decrementAndGet();
    }
  }

  RequestCounts snapshot() {
    return new RequestCounts(this.config.get(), this.plan.get(), this.poll.get(), this.cancel.get(), this.tasks.get(),
        this.maxTasksInFlight.get(), this.credentials.get());
  }

  /** Zeroes the counts; the in-flight gauge keeps counting requests still being answered. */
  void reset() {
    this.config.set(0);
    this.plan.set(0);
    this.poll.set(0);
    this.cancel.set(0);
    this.tasks.set(0);
    this.maxTasksInFlight.set(this.tasksInFlight.get());
    this.credentials.set(0);
  }
}
