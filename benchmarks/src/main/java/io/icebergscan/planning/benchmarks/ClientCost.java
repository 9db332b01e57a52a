package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What an operation costs the client, apart from a catalog serving it in the same JVM: CPU time (the process's, less
 * the catalog's Jetty threads') and bytes allocated (by every live thread but the catalog's). A catalog in a process
 * of its own ({@link RemoteCatalog}) leaves the whole JVM to the client. Secondary results per iteration, which the
 * report divides by {@link #operations}.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class ClientCost {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private static final com.sun.management.OperatingSystemMXBean SYSTEM =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  /** The thread-name prefixes of the catalogs a benchmark may run in its own JVM: their work is the server's. */
  private static final String[] SERVER_THREADS = { "embedded-iceberg-catalog", "plain-fan-out-catalog" };

  /** Client CPU nanoseconds in the iteration. */
  public long clientCpuNanos;
  /**
   * Bytes the client's threads allocated in the iteration. A thread that ends within an operation takes what it
   * allocated with it: the pools of both clients here keep theirs.
   */
  public long clientAllocatedBytes;
  /** Operations in the iteration, to divide the others by. */
  public long operations;

  @Setup(Level.Iteration)
  public void reset() {
    this.clientCpuNanos = 0;
    this.clientAllocatedBytes = 0;
    this.operations = 0;
  }

  /** Runs one operation, counting what it costs the client. Not public: JMH would take it for a counter. */
  long measure(Operation operation) {
    long[] started = sample();
    try {
      return operation.run();
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    finally {
      long[] ended = sample();
      this.clientCpuNanos += ended[0] - started[0];
      this.clientAllocatedBytes += ended[1] - started[1];
      this.operations++;
    }
  }

  /** One benchmark operation. */
  interface Operation {
    long run() throws IOException;
  }

  /** The client's CPU time and allocated bytes so far: the process's, less the catalog threads'. */
  private static long[] sample() {
    long[] ids = THREADS.getAllThreadIds();
    long[] allocated = THREADS.getThreadAllocatedBytes(ids);
    long serverCpu = 0;
    long clientBytes = 0;
    ThreadInfo[] infos = THREADS.getThreadInfo(ids);
    for (int i = 0; i < ids.length; i++) {
      if (infos[i] == null) {
        continue;
      }
      if (server(infos[i].getThreadName())) {
        serverCpu += Math.max(THREADS.getThreadCpuTime(ids[i]), 0);
      }
      else {
        clientBytes += Math.max(allocated[i], 0);
      }
    }
    return new long[] { SYSTEM.getProcessCpuTime() - serverCpu, clientBytes };
  }

  private static boolean server(String thread) {
    for (String prefix : SERVER_THREADS) {
      if (thread.startsWith(prefix)) {
        return true;
      }
    }
    return false;
  }
}
