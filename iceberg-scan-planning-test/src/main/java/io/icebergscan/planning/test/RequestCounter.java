package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;

import org.jspecify.annotations.Nullable;

/**
 * Counts requests by planning route, and credentials and metrics requests; {@code /tasks} also by how many are
 * answered at once, and metrics reports by how many are being answered now. Times the plan, poll and {@code /tasks}
 * requests ({@link AnsweringTime}): from {@link #started}, which the adapter calls once a request is authenticated,
 * to {@link #answered}, which the servlet calls once it has written the answer, on the same thread (Jetty answers a
 * request on one thread), so that the time includes writing the answer and a request refused before it was counted
 * is not timed either.
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

  /** The timed request this thread is answering, between {@link #started} and {@link #answered}. */
  private final ThreadLocal<@Nullable Answer> answering = new ThreadLocal<>();

  // The time figures change together under this lock: a busy period starts with the first request of an overlap
  // and ends with its last, which needs the count of requests being answered and the sums to agree.
  private final Object timeLock = new Object();
  /** When the counts were last reset: time before it is not counted, for requests answered across a reset too. */
  private long resetAt = System.nanoTime();
  private long planNanos;
  private long pollNanos;
  private long tasksNanos;
  private long tasksLatencyNanos;
  private long busyNanos;
  private int timedInFlight;
  private long busySince;

  private record Answer(PlanningRoute route, long startedAt) {
  }

  void started(PlanningRoute route) {
    if (route == PlanningRoute.PLAN || route == PlanningRoute.POLL || route == PlanningRoute.TASKS) {
      synchronized (this.timeLock) {
        long now = System.nanoTime();
        if (this.timedInFlight++ == 0) {
          this.busySince = now;
        }
        this.answering.set(new Answer(route, now));
      }
    }
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

  /** A {@code /tasks} request of this thread waited out its simulated latency, from {@code startedAt} until now. */
  void waited(long startedAt) {
    synchronized (this.timeLock) {
      this.tasksLatencyNanos += sinceReset(startedAt, System.nanoTime());
    }
  }

  /** The servlet has written its answer to this thread's request: the end of its time if it was timed. */
  void answered() {
    Answer answer = this.answering.get();
    if (answer == null) {
      return;
    }
    this.answering.remove();
    synchronized (this.timeLock) {
      long now = System.nanoTime();
      long took = sinceReset(answer.startedAt(), now);
      switch (answer.route()) {
        case PLAN -> this.planNanos += took;
        case POLL -> this.pollNanos += took;
        case TASKS -> this.tasksNanos += took;
        default -> throw new IllegalStateException("not a timed route: " + answer.route());
      }
      if (--this.timedInFlight == 0) {
        this.busyNanos += sinceReset(this.busySince, now);
      }
    }
  }

  /** The time from {@code startedAt} to {@code now}, less any of it before the last reset. */
  private long sinceReset(long startedAt, long now) {
    return now - Math.max(startedAt, this.resetAt);
  }

  RequestCounts snapshot() {
    AnsweringTime time;
    synchronized (this.timeLock) {
      time = new AnsweringTime(Duration.ofNanos(this.planNanos), Duration.ofNanos(this.pollNanos),
          Duration.ofNanos(this.tasksNanos), Duration.ofNanos(this.tasksLatencyNanos), Duration.ofNanos(this.busyNanos));
    }
    return new RequestCounts(this.config.get(), this.plan.get(), this.poll.get(), this.cancel.get(), this.tasks.get(),
        this.maxTasksInFlight.get(), this.credentials.get(), this.metrics.get(), this.metricsInFlight.get(), time);
  }

  /**
   * Zeroes the counts and the times; the in-flight gauges keep counting requests still being answered, and those
   * requests count from the reset on.
   */
  void reset() {
    synchronized (this.timeLock) {
      this.resetAt = System.nanoTime();
      this.planNanos = 0;
      this.pollNanos = 0;
      this.tasksNanos = 0;
      this.tasksLatencyNanos = 0;
      this.busyNanos = 0;
    }
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
