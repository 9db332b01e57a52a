package io.icebergscan.planning.benchmarks;

import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.FanOut;
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
 * Benchmark 2: uneven plan-task trees with mixed latencies. {@link Report} prints the ratio to the
 * work-conserving ideal ({@link IdealSchedule#workConserving}) and to the tier-barrier ideal
 * ({@link IdealSchedule#tierBarrier}), both from the latencies of {@link #tree(String)}. Warm-up as
 * {@link FlatFanOut} explains.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 6, time = 5)
@Measurement(iterations = 3, time = 2)
public class UnevenTree {

  /**
   * {@code tree-1-8-64}: 1 -> 8 -> 64, 10 ms per handle except every 9th (walk positions 4, 13, 22,
   * ...: one in level 2, seven in level 3) at 50 ms. {@code chain-16x4}: a chain of 16 handles at 10 ms,
   * each of the first 15 also holding 4 leaves at 30 ms.
   */
  @Param({ "tree-1-8-64", "chain-16x4" })
  public String shape;

  @Param({ "4", "8", "64" })
  public int limit;

  private LatencyCatalog catalog;
  private ScanPlanner planner;

  public static PlanTree tree(String shape) {
    return switch (shape) {
      case "tree-1-8-64" -> PlanTree.of(FanOut.levels(1, 8, 8), i -> (i % 9 == 4 ? 50 : 10) * 1_000_000L);
      case "chain-16x4" -> PlanTree.chainWithSideBranches(16, 4, 10, 30);
      default -> throw new IllegalArgumentException("unknown shape " + shape);
    };
  }

  @Setup(Level.Trial)
  public void start() {
    this.catalog = new LatencyCatalog(tree(this.shape));
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.limit).build();
  }

  @Benchmark
  public ScanPlan plan() {
    ScanPlan plan = this.planner.plan(FlatFanOut.TABLE, ScanRequest.all());
    if (plan.tasks().size() != this.catalog.tree().size()) {
      throw new IllegalStateException("expected " + this.catalog.tree().size() + " tasks, got " + plan.tasks().size());
    }
    return plan;
  }

  @TearDown(Level.Trial)
  public void stop() {
    this.planner.close();
    this.catalog.close();
  }
}
