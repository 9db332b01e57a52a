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
 * What an operation costs the client, apart from a catalog serving it in the same JVM: the CPU time of its threads
 * and the bytes they allocate (every live Java thread but the catalog's). The JVM's own threads (the garbage
 * collector's, the JIT compilers') are not Java threads and are left out: allocation is counted instead. A catalog in
 * a process of its own ({@link RemoteCatalog}) leaves every Java thread to the client. A thread that ends within an
 * operation takes what it used with it; the pools of both clients here keep theirs. Secondary results per
 * iteration, which the report divides by {@link #operations}.
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.EVENTS)
public class ClientCost {

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  /** The thread-name prefixes of the catalogs a benchmark may run in its own JVM: their work is the server's. */
  private static final String[] SERVER_THREADS = { "embedded-iceberg-catalog", "plain-fan-out-catalog",
      "latency-catalog" };

  /** CPU nanoseconds of the client's threads in the iteration. */
  public long clientCpuNanos;
  /** Bytes the client's threads allocated in the iteration. */
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
    catch (RuntimeException failure) {
      throw failure;
    }
    catch (Exception failure) {
      throw new IllegalStateException(failure);
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
    long run() throws Exception;
  }

  /** The CPU time and allocated bytes of the client's threads so far. */
  private static long[] sample() {
    long[] ids = THREADS.getAllThreadIds();
    long[] cpu = THREADS.getThreadCpuTime(ids);
    long[] allocated = THREADS.getThreadAllocatedBytes(ids);
    ThreadInfo[] infos = THREADS.getThreadInfo(ids);
    long clientCpu = 0;
    long clientBytes = 0;
    for (int i = 0; i < ids.length; i++) {
      if (infos[i] != null && !server(infos[i].getThreadName())) {
        clientCpu += Math.max(cpu[i], 0);
        clientBytes += Math.max(allocated[i], 0);
      }
    }
    return new long[] { clientCpu, clientBytes };
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
