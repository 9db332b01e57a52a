package io.icebergscan.planning;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Bounded waits on latches from inside the code under test (a reader, a refresh, a load), where no checked exception may pass. */
public final class Latches {

  private Latches() {
  }

  /** Waits up to 10 s for {@code latch}; fails naming {@code what} if it does not open, and keeps an interrupt. */
  public static void await(CountDownLatch latch, String what) {
    try {
      if (!latch.await(10, TimeUnit.SECONDS)) {
        throw new AssertionError(what + ": not within 10 s");
      }
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(interrupted);
    }
  }
}
