package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.internal.http.CatalogClient;
import io.icebergscan.planning.internal.http.CatalogClient.Handoff;
import io.icebergscan.planning.internal.http.DiscoveredCatalog;
import io.icebergscan.planning.internal.http.ResponseTimeout;
import io.icebergscan.planning.internal.http.RetryPolicy;
import io.icebergscan.planning.internal.http.TablePaths;
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
import org.springframework.http.MediaType;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import tools.jackson.databind.json.JsonMapper;

/**
 * The flat overhead of one fetch, layer by layer, on the same {@link LatencyCatalog}: each operation is one
 * {@code POST /plan} and {@code handles} serial {@code POST /tasks}, sent by
 * <ul>
 * <li>{@code socket}: a blocking socket writing the request and reading the response by its Content-Length
 * (the floor);</li>
 * <li>{@code netty}: Reactor Netty's {@code HttpClient}, blocking on each response's bytes;</li>
 * <li>{@code webclient}: WebClient on that HttpClient, {@code retrieve().bodyToMono(byte[].class)};</li>
 * <li>{@code catalogclient}: the planner's {@code CatalogClient} on a WebClient built as the planner builds
 * its own, parsing on a one-thread executor: the planner's HTTP path without its walk (the caller blocks on
 * each answer, so a request crosses one thread more than in the planner, where the executor sends the next);</li>
 * <li>{@code planner}: a plan at limit 1 (the discovery is cached after the first plan).</li>
 * </ul>
 * Overhead per request is {@code (time - handles * latency) / (handles + 1)}. All clients keep one keep-alive
 * connection, so none pays a connect per request.
 *
 * <p>Run the 10 ms rows with {@code -p primeOps=3000}: unprimed, a few seconds of warm-up at 10 ms leave the
 * HTTP stack partly in the JIT's lower tiers, and the figures fall every iteration.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 6, time = 5)
@Measurement(iterations = 5, time = 2)
public class PerFetchOverhead {

  @Param({ "socket", "netty", "webclient", "catalogclient", "planner" })
  public String client;

  @Param({ "10", "0" })
  public int latencyMillis;

  @Param({ "16" })
  public int handles;

  /**
   * Operations run back to back on a catalog without latency before the trial ({@code 0}: none): at 10 ms a
   * warm-up of a few seconds makes only about 2,000 requests, which leaves much of the HTTP stack in the JIT's
   * lower tiers; primed, the figures show what an idle wait itself costs.
   */
  @Param({ "0" })
  public int primeOps;

  private LatencyCatalog catalog;
  private byte[][] bodies;

  private RawSocketClient socket;

  private ConnectionProvider connections;
  private HttpClient httpClient;
  private WebClient webClient;
  private ExecutorService parseExecutor;
  private CatalogClient catalogClient;
  private TablePaths paths;
  private DiscoveredCatalog discovered;
  private ScanPlanner planner;

  @Setup(Level.Trial)
  public void start() throws IOException {
    if (this.primeOps > 0) {
      open(new LatencyCatalog(PlanTree.flat(this.handles, 0)));
      for (int i = 0; i < this.primeOps; i++) {
        fetch();
      }
      stop();
    }
    open(new LatencyCatalog(PlanTree.flat(this.handles, this.latencyMillis * 1_000_000L)));
  }

  private void open(LatencyCatalog server) throws IOException {
    this.catalog = server;
    this.bodies = new byte[this.handles][];
    for (int i = 0; i < this.handles; i++) {
      this.bodies[i] = RawSocketClient.tasksBody("h" + i);
    }
    switch (this.client) {
      case "socket" -> this.socket = new RawSocketClient(this.catalog.uri());
      case "netty", "webclient", "catalogclient" -> {
        this.connections = ConnectionProvider.builder("per-fetch").maxConnections(16).pendingAcquireMaxCount(-1)
            .build();
        // the response timeout as the planner sets it, once per connection
        this.httpClient = ResponseTimeout.on(HttpClient.create(this.connections), Duration.ofSeconds(60));
        this.webClient = WebClient.builder().clientConnector(new ReactorClientHttpConnector(this.httpClient)).build();
        if (this.client.equals("catalogclient")) {
          this.parseExecutor = Executors.newSingleThreadExecutor(task -> {
            Thread thread = new Thread(task, "per-fetch-parse");
            thread.setDaemon(true);
            return thread;
          });
          Scheduler scheduler = Schedulers.fromExecutor(this.parseExecutor);
          this.catalogClient = new CatalogClient(this.webClient, this.catalog.uri(), null, null,
              JsonMapper.builder().build(), scheduler, 64 * 1024 * 1024, Duration.ofMinutes(2),
              new RetryPolicy(3, Duration.ofMillis(100), Duration.ofSeconds(10)));
          this.discovered = this.catalogClient.catalog().block();
          this.paths = this.catalogClient.paths(this.discovered, List.of("bench"), "flat");
        }
      }
      case "planner" -> this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(1).build();
      default -> throw new IllegalArgumentException(this.client);
    }
  }

  @Benchmark
  public int fetch() throws IOException {
    return switch (this.client) {
      case "socket" -> socket();
      case "netty" -> netty();
      case "webclient" -> webclient();
      case "catalogclient" -> catalogclient();
      case "planner" -> planner();
      default -> throw new IllegalArgumentException(this.client);
    };
  }

  private int socket() throws IOException {
    int total = this.socket.plan();
    for (int i = 0; i < this.handles; i++) {
      total += this.socket.fetch("h" + i);
    }
    return total;
  }

  private int netty() {
    String base = this.catalog.uri() + "/v1/namespaces/bench/tables/flat";
    int total = nettyPost(base + "/plan", RawSocketClient.PLAN_BODY);
    for (byte[] body : this.bodies) {
      total += nettyPost(base + "/tasks", body);
    }
    return total;
  }

  private int nettyPost(String uri, byte[] body) {
    return NettyRequests.post(this.httpClient, uri, body).block().length;
  }

  private int webclient() {
    String base = this.catalog.uri() + "/v1/namespaces/bench/tables/flat";
    int total = webclientPost(base + "/plan", RawSocketClient.PLAN_BODY);
    for (byte[] body : this.bodies) {
      total += webclientPost(base + "/tasks", body);
    }
    return total;
  }

  private int webclientPost(String uri, byte[] body) {
    byte[] answer = this.webClient.post().uri(URI.create(uri)).accept(MediaType.APPLICATION_JSON)
        .header("Idempotency-Key", UUID.randomUUID().toString())
        .contentType(MediaType.APPLICATION_JSON).bodyValue(body)
        .retrieve().bodyToMono(byte[].class).block();
    return answer.length;
  }

  private int catalogclient() {
    // as a whole plan's requests go
    int total = this.catalogClient.submit(this.discovered, this.paths, RawSocketClient.PLAN_BODY,
        Handoff.LARGE_ANSWERS).block().value().tasks().planTasks().size();
    for (int i = 0; i < this.handles; i++) {
      total += this.catalogClient.fetchTasks(this.paths, "h" + i, this.bodies[i], Handoff.LARGE_ANSWERS, true).block()
          .fileScanTasks().size();
    }
    return total;
  }

  private int planner() {
    ScanPlan plan = this.planner.plan(FlatFanOut.TABLE, ScanRequest.all());
    if (plan.tasks().size() != this.handles) {
      throw new IllegalStateException("expected " + this.handles + " tasks, got " + plan.tasks().size());
    }
    return plan.tasks().size();
  }

  @TearDown(Level.Trial)
  public void stop() throws IOException {
    if (this.socket != null) {
      this.socket.close();
      this.socket = null;
    }
    if (this.planner != null) {
      this.planner.close();
      this.planner = null;
    }
    if (this.connections != null) {
      this.connections.dispose();
      this.connections = null;
    }
    if (this.parseExecutor != null) {
      this.parseExecutor.shutdownNow();
      this.parseExecutor = null;
    }
    this.catalog.close();
  }
}
