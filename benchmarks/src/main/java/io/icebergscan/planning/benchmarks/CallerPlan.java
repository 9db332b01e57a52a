package io.icebergscan.planning.benchmarks;

import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
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
 * What planning as a caller costs (issue #38): a flat plan of {@code handles} plan-tasks, {@code limit} fetches at a
 * time, {@code latencyMillis} per {@code /tasks} answer, planned in one run by three clients of one planner:
 * {@link #service} as the planner's own identity (a static bearer token header), {@link #caller} as a caller passed
 * through ({@code planner.as(CatalogCredentials.bearer(token))}, a new view per plan as a service makes one per
 * request), and {@link #callers} by a planner that plans as its callers, finding the caller on the calling thread as
 * the Spring Boot starter's caller mode does. {@link ClientCost} gives each one's CPU time and allocation.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 5, time = 4)
@Measurement(iterations = 5, time = 4)
public class CallerPlan {

  /** A JWT-sized token: what pass-through sends with every request. */
  static final String TOKEN = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9." + "x".repeat(600) + ".signature";

  @Param({ "64" })
  public int handles;

  @Param({ "16" })
  public int limit;

  @Param({ "0", "10" })
  public int latencyMillis;

  private LatencyCatalog catalog;
  private ScanPlanner planner;
  private ScanPlanner callersPlanner;
  /** The calling thread's caller, found as Spring Security's context is: a bearer made from its token per call. */
  private final ThreadLocal<String> onThread = ThreadLocal.withInitial(() -> TOKEN);

  @Setup(Level.Trial)
  public void start() throws Exception {
    this.catalog = new LatencyCatalog(PlanTree.flat(this.handles, this.latencyMillis * 1_000_000L));
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.limit)
        .header("Authorization", "Bearer " + TOKEN).build();
    Callers callers = () -> CatalogCredentials.bearer(this.onThread.get());
    this.callersPlanner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.limit).callers(callers)
        .build();
  }

  @Benchmark
  public long service(ClientCost cost) {
    return cost.measure(() -> checked(this.planner.plan(FlatFanOut.TABLE, ScanRequest.all())));
  }

  @Benchmark
  public long caller(ClientCost cost) {
    return cost.measure(() -> checked(this.planner.as(CatalogCredentials.bearer(TOKEN)).plan(FlatFanOut.TABLE,
        ScanRequest.all())));
  }

  @Benchmark
  public long callers(ClientCost cost) {
    return cost.measure(() -> checked(this.callersPlanner.plan(FlatFanOut.TABLE, ScanRequest.all())));
  }

  private long checked(ScanPlan plan) {
    if (plan.tasks().size() != this.handles) {
      throw new IllegalStateException("expected " + this.handles + " tasks, got " + plan.tasks().size());
    }
    return plan.tasks().size();
  }

  @TearDown(Level.Trial)
  public void stop() {
    this.planner.close();
    this.callersPlanner.close();
    this.catalog.close();
  }
}
