package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 1: one flat level of {@code handles} plan-tasks, {@code latencyMillis} per {@code /tasks}
 * request, planned with {@code limit} fetches in flight. Ideal: {@code plan call + ceil(N / c) * L}
 * ({@link IdealSchedule#flat}); {@link Report} prints the ratio.
 *
 * <p>Warm-up is 30 s: in a fresh fork the HTTP stack (Reactor Netty, WebClient) and the planner reach
 * steady state only after about 2,000 requests. With the former 2 x 2 s (a few plans at limit 1) the
 * planner still ran 1.3 ms per fetch slower than it does warm, and every iteration was faster than the last.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 6, time = 5)
@Measurement(iterations = 3, time = 2)
public class FlatFanOut {

  static final TableIdentifier TABLE = TableIdentifier.of("bench", "flat");

  @Param({ "64", "256" })
  public int handles;

  @Param({ "1", "2", "4", "8", "16", "32", "64", "128" })
  public int limit;

  @Param({ "10" })
  public int latencyMillis;

  private LatencyCatalog catalog;
  private ScanPlanner planner;
  private RawSocketClient.FlatFloor floor;

  @Setup(Level.Trial)
  public void start() throws IOException {
    this.catalog = new LatencyCatalog(PlanTree.flat(this.handles, this.latencyMillis * 1_000_000L));
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.limit).build();
    this.floor = new RawSocketClient.FlatFloor(this.catalog.uri(), this.handles, this.limit);
  }

  @Benchmark
  public ScanPlan plan() {
    ScanPlan plan = this.planner.plan(TABLE, ScanRequest.all());
    if (plan.tasks().size() != this.handles) {
      throw new IllegalStateException("expected " + this.handles + " tasks, got " + plan.tasks().size());
    }
    return plan;
  }

  /** The same requests from {@link RawSocketClient}s, {@code limit} at a time: the floor, in the same run. */
  @Benchmark
  @Warmup(iterations = 3, time = 2)
  public int floor() throws Exception {
    return this.floor.plan();
  }

  @TearDown(Level.Trial)
  public void stop() {
    this.floor.close();
    this.planner.close();
    this.catalog.close();
  }
}
