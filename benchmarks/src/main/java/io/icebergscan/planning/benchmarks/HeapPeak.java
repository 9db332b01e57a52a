package io.icebergscan.planning.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The most heap used while it runs, sampled every 2 ms on a daemon thread of its own: for the memory benchmarks, whose
 * point is a heap limit, not a JMH score.
 */
final class HeapPeak {

  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  private final AtomicLong peak = new AtomicLong();
  private final Thread sampler = new Thread(this::sample, "heap-sampler");

  HeapPeak() {
    this.sampler.setDaemon(true);
  }

  /** The heap used now. */
  long used() {
    return this.memory.getHeapMemoryUsage().getUsed();
  }

  /** Starts sampling, the peak so far being {@code from}. */
  void start(long from) {
    this.peak.set(from);
    this.sampler.start();
  }

  /** Stops sampling: the peak seen. */
  long stop() {
    this.sampler.interrupt();
    return this.peak.get();
  }

  private void sample() {
    while (!Thread.currentThread().isInterrupted()) {
      this.peak.accumulateAndGet(used(), Math::max);
      try {
        Thread.sleep(2);
      }
      catch (InterruptedException stop) {
        return;
      }
    }
  }
}
