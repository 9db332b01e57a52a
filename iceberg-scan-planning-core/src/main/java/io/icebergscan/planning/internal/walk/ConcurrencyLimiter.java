package io.icebergscan.planning.internal.walk;

import java.util.ArrayDeque;

/**
 * The planner-wide bound on plan-task fetches in flight, shared by every plan running on one planner.
 *
 * <p>It never blocks a thread: a plan that finds no free permit is queued as a {@link Waiter} and is
 * handed a permit when one is released. Hand-off is first in, first out, so plans take turns and no
 * plan can starve another; and because nothing waits on a thread, a planner with more callers than
 * executor threads cannot deadlock. Invariant: waiters are queued only while every permit is in use.
 */
public final class ConcurrencyLimiter {

  /** Receives one permit that it now owns and must use or {@link #release()}. Called without locks held. */
  public interface Waiter {
    void permitGranted();
  }

  private final int permits;
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  private int used;

  /** @param permits at least 1, as {@code ScanPlanner.Builder} checked */
  public ConcurrencyLimiter(int permits) {
    this.permits = permits;
  }

  /** Takes a permit if one is free and nobody is queued before the caller; otherwise queues the caller. */
  public synchronized boolean tryAcquire(Waiter waiter) {
    if (this.used < this.permits && this.waiters.isEmpty()) {
      this.used++;
      return true;
    }
    this.waiters.add(waiter);
    return false;
  }

  /** Returns a permit: to the first queued waiter if there is one, else to the pool. */
  public void release() {
    Waiter next;
    synchronized (this) {
      next = this.waiters.poll();
      if (next == null) {
        this.used--;
      }
    }
    if (next != null) {
      next.permitGranted();
    }
  }

  /** Leaves the queue; a permit handed over concurrently still arrives and must be released. */
  public synchronized void stopWaiting(Waiter waiter) {
    this.waiters.remove(waiter);
  }

  public synchronized int inUse() {
    return this.used;
  }
}
