package io.icebergscan.planning.benchmarks;

import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The "plan call" term of the ideals: a plan whose response holds no plan-task, on the same latency
 * server (which answers {@code /plan} at once). {@link Report} adds it to every ideal.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 3, time = 1)
public class PlanCall {

  private LatencyCatalog catalog;
  private ScanPlanner planner;

  @Setup(Level.Trial)
  public void start() {
    this.catalog = new LatencyCatalog(PlanTree.flat(0, 0));
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).build();
  }

  @Benchmark
  public ScanPlan plan() {
    return this.planner.plan(FlatFanOut.TABLE, ScanRequest.all());
  }

  @TearDown(Level.Trial)
  public void stop() {
    this.planner.close();
    this.catalog.close();
  }
}
