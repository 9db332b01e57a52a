package io.icebergscan.planning.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import reactor.netty.resources.LoopResources;

/**
 * A catalog on a loopback socket that serves one {@link PlanTree}: {@code POST /plan} answers at once
 * with the root handles, and {@code POST /tasks} answers handle {@code h<i>} after the tree's latency for
 * node {@code i}, with one file scan task and the node's children. Delays are {@code Mono.delay} timers:
 * no thread is held per delayed request. The server has its own event loop, so it does not share the
 * client's.
 */
public final class LatencyCatalog implements AutoCloseable {

  static final String CONFIG = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  private final PlanTree tree;
  private final byte[] config = CONFIG.getBytes(StandardCharsets.UTF_8);
  private final byte[] plan;
  private final byte[][] tasks;
  private final Duration[] latency;
  private final LoopResources loops = LoopResources.create("latency-catalog", 1, true);
  private final DisposableServer server;
  private final AtomicInteger fetches = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private volatile java.util.@org.jspecify.annotations.Nullable Queue<String> timeline;

  public LatencyCatalog(PlanTree tree) {
    this.tree = tree;
    this.plan = ("{\"status\":\"completed\",\"plan-id\":\"bench\",\"file-scan-tasks\":[],\"plan-tasks\":"
        + handles(tree.roots()) + "}").getBytes(StandardCharsets.UTF_8);
    this.tasks = new byte[tree.size()][];
    this.latency = new Duration[tree.size()];
    for (int node = 0; node < tree.size(); node++) {
      this.tasks[node] = ("{\"file-scan-tasks\":[" + taskJson("s3://bench/data/" + node + ".parquet")
          + "],\"plan-tasks\":" + handles(tree.children(node)) + "}").getBytes(StandardCharsets.UTF_8);
      this.latency[node] = Duration.ofNanos(tree.latencyNanos(node));
    }
    this.server = HttpServer.create().host("127.0.0.1").port(0).runOn(this.loops).handle(this::route).bindNow();
  }

  public String uri() {
    return "http://127.0.0.1:" + this.server.port();
  }

  public PlanTree tree() {
    return this.tree;
  }

  /** {@code /tasks} requests answered or started since the last call. */
  public int takeFetches() {
    return this.fetches.getAndSet(0);
  }

  /** The most {@code /tasks} requests in flight at once since the last call (a check of the limit). */
  public int takeMaxInFlight() {
    return this.maxInFlight.getAndSet(0);
  }

  /** Starts recording "+h<i> t" / "-h<i> t" lines (nanoTime) of each /tasks request (diagnostics only). */
  public java.util.Queue<String> recordTimeline() {
    java.util.Queue<String> events = new java.util.concurrent.ConcurrentLinkedQueue<>();
    this.timeline = events;
    return events;
  }

  private static String handles(java.util.List<Integer> nodes) {
    return nodes.stream().map(n -> "\"h" + n + "\"").collect(Collectors.joining(",", "[", "]"));
  }

  static String taskJson(String path) {
    return "{\"data-file\":{\"spec-id\":0,\"partition\":[],\"content\":\"data\",\"file-path\":\"" + path
        + "\",\"file-format\":\"parquet\",\"file-size-in-bytes\":100,\"record-count\":10}}";
  }

  private Mono<Void> route(HttpServerRequest request, HttpServerResponse response) {
    String method = request.method().name();
    String uri = request.uri();
    if (method.equals("GET") && uri.startsWith("/v1/config")) {
      return send(response, this.config);
    }
    if (method.equals("POST") && uri.endsWith("/plan")) {
      return request.receive().then(send(response, this.plan));
    }
    if (method.equals("POST") && uri.endsWith("/tasks")) {
      return request.receive().aggregate().asString().flatMap(body -> {
        int node = node(body);
        this.fetches.incrementAndGet();
        if (node < 0 || node >= this.tasks.length) {
          return response.status(404).header("Content-Type", "application/json")
              .sendString(Mono.just("{\"error\":{\"message\":\"no such plan task\",\"type\":\"NoSuchPlanTaskException\",\"code\":404}}"))
              .then();
        }
        this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
        java.util.Queue<String> events = this.timeline;
        if (events != null) {
          events.add("+h" + node + " " + System.nanoTime());
        }
        return Mono.delay(this.latency[node]).then(Mono.defer(() -> {
          this.inFlight.decrementAndGet();
          if (events != null) {
            events.add("-h" + node + " " + System.nanoTime());
          }
          return send(response, this.tasks[node]);
        }));
      });
    }
    if (method.equals("DELETE")) {
      return response.status(204).send();
    }
    return response.status(404).send();
  }

  /** The node of a {@code {"plan-task":"h<i>"}} body, without a JSON parser in the server's path. */
  static int node(String body) {
    int start = body.indexOf("\"h");
    if (start < 0) {
      return -1;
    }
    int end = body.indexOf('"', start + 2);
    try {
      return Integer.parseInt(body, start + 2, end, 10);
    }
    catch (RuntimeException malformed) {
      return -1;
    }
  }

  private static Mono<Void> send(HttpServerResponse response, byte[] body) {
    return response.status(200).header("Content-Type", "application/json")
        .header("Content-Length", Integer.toString(body.length))
        .sendByteArray(Mono.just(body)).then();
  }

  @Override
  public void close() {
    this.server.disposeNow();
    this.loops.disposeLater().block(Duration.ofSeconds(5));
  }
}
