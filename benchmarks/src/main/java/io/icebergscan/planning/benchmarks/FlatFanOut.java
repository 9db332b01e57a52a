package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.internal.http.ResponseTimeout;
import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
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
import org.openjdk.jmh.infra.BenchmarkParams;
import reactor.core.publisher.Flux;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;

/**
 * Benchmark 1: one flat level of {@code handles} plan-tasks, {@code latencyMillis} per {@code /tasks}
 * request, sent {@code limit} at a time by three clients, each timed in the same run: {@link #plan} (this planner),
 * {@link #netty} (Reactor Netty's {@code HttpClient} alone, the transport the planner's WebClient runs on, the
 * answers not parsed) and {@link #floor} (raw sockets). Ideal: {@code plan call + ceil(N / c) * L}
 * ({@link IdealSchedule#flat}); {@link Report} prints the ratios to it and to the floor. {@link ClientCost} gives
 * each client's CPU time and allocation, the catalog's threads left out.
 *
 * <p>Each trial first sends {@code primeFetches} fetches at 0 ms with the client it times: in a fresh fork the HTTP
 * stack (Reactor Netty, WebClient) and the planner reach steady state only after a few thousand requests, which
 * at 10 ms a warm-up of seconds does not make (at limit 1 every iteration was faster than the last). The warm-up
 * of 30 s follows.
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

  /** Fetches sent at 0 ms before the trial, by the client it times (0: none). */
  @Param({ "3000" })
  public int primeFetches;

  /**
   * Event loops of the planner's and Reactor Netty's connections: 0, Reactor Netty's shared default (as many as the
   * cores, at least 4); otherwise a group of that many for the trial's client alone.
   */
  @Param({ "0" })
  public int eventLoops;

  private LatencyCatalog catalog;
  private @Nullable LoopResources loops;
  private ScanPlanner planner;
  private RawSocketClient.FlatFloor floor;
  private ConnectionProvider connections;
  private HttpClient netty;

  @Setup(Level.Trial)
  public void start(BenchmarkParams params) throws Exception {
    String client = params.getBenchmark().substring(params.getBenchmark().lastIndexOf('.') + 1);
    if (this.primeFetches > 0) {
      open(client, PlanTree.flat(this.handles, 0));
      for (int fetched = 0; fetched < this.primeFetches; fetched += this.handles) {
        run(client);
      }
      stop();
    }
    open(client, PlanTree.flat(this.handles, this.latencyMillis * 1_000_000L));
  }

  private void open(String client, PlanTree tree) throws IOException {
    this.catalog = new LatencyCatalog(tree);
    UnaryOperator<HttpClient> onLoops = UnaryOperator.identity();
    if (this.eventLoops > 0) {
      LoopResources group = LoopResources.create("flat-loops", this.eventLoops, true);
      this.loops = group;
      onLoops = http -> http.runOn(group);
    }
    switch (client) {
      case "plan" -> this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(this.limit)
          .httpClient(onLoops).build();
      case "floor" -> this.floor = new RawSocketClient.FlatFloor(this.catalog.uri(), this.handles, this.limit);
      case "netty" -> {
        // as the planner sizes its own pool
        this.connections = ConnectionProvider.builder("flat-netty").maxConnections(Math.max(16, 2 * this.limit))
            .pendingAcquireMaxCount(-1).build();
        this.netty = onLoops.apply(ResponseTimeout.on(HttpClient.create(this.connections), Duration.ofSeconds(60)));
      }
      default -> throw new IllegalArgumentException(client);
    }
  }

  private Object run(String client) throws Exception {
    return switch (client) {
      case "plan" -> plan(new ClientCost());
      case "floor" -> floor(new ClientCost());
      case "netty" -> netty(new ClientCost());
      default -> throw new IllegalArgumentException(client);
    };
  }

  @Benchmark
  public long plan(ClientCost cost) {
    return cost.measure(() -> {
      ScanPlan plan = this.planner.plan(TABLE, ScanRequest.all());
      if (plan.tasks().size() != this.handles) {
        throw new IllegalStateException("expected " + this.handles + " tasks, got " + plan.tasks().size());
      }
      return plan.tasks().size();
    });
  }

  /** The same requests from {@link RawSocketClient}s, {@code limit} at a time: the floor, in the same run. */
  @Benchmark
  @Warmup(iterations = 3, time = 2)
  public long floor(ClientCost cost) {
    return cost.measure(this.floor::plan);
  }

  /** The same requests from Reactor Netty's {@code HttpClient}, {@code limit} at a time, answers not parsed. */
  @Benchmark
  public long netty(ClientCost cost) {
    return cost.measure(() -> {
      String base = this.catalog.uri() + RawSocketClient.TABLE_PATH;
      int plan = NettyRequests.post(this.netty, base + "/plan", RawSocketClient.PLAN_BODY).block().length;
      return plan + Flux.range(0, this.handles)
          .flatMap(handle -> NettyRequests.post(this.netty, base + "/tasks", RawSocketClient.tasksBody("h" + handle)),
              this.limit)
          .map(answer -> answer.length).reduce(0, Integer::sum).block();
    });
  }

  @TearDown(Level.Trial)
  public void stop() {
    if (this.floor != null) {
      this.floor.close();
      this.floor = null;
    }
    if (this.planner != null) {
      this.planner.close();
      this.planner = null;
    }
    if (this.connections != null) {
      this.connections.dispose();
      this.connections = null;
    }
    if (this.loops != null) {
      this.loops.disposeLater().block();
      this.loops = null;
    }
    this.catalog.close();
  }
}
