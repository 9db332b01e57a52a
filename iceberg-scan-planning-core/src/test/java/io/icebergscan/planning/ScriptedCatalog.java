package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.json.JsonMapper;

import static org.awaitility.Awaitility.await;

/**
 * A catalog on a real loopback socket whose answers the test scripts per plan-task handle, with
 * delays that hold no thread and gates the test opens. It observes what a server can: requests in
 * flight, their order, and requests the client abandoned (the connection closed before the answer).
 */
final class ScriptedCatalog implements AutoCloseable {

  static final String ALL_ENDPOINTS = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  /** One scripted answer. */
  record Reply(int status, String body, Duration delay, Mono<Void> gate, Map<String, String> headers) {

    Reply after(Duration delay) {
      return new Reply(this.status, this.body, delay, this.gate, this.headers);
    }

    /** Answers only once {@code gate} is opened. */
    Reply gated(Gate gate) {
      return new Reply(this.status, this.body, this.delay, gate.mono(), this.headers);
    }

    Reply header(String name, String value) {
      Map<String, String> more = new java.util.LinkedHashMap<>(this.headers);
      more.put(name, value);
      return new Reply(this.status, this.body, this.delay, this.gate, more);
    }
  }

  /** Holds answers back until the test opens it. */
  static final class Gate {
    private final Sinks.Empty<Void> sink = Sinks.empty();

    Mono<Void> mono() {
      return this.sink.asMono();
    }

    void open() {
      this.sink.tryEmitEmpty();
    }
  }

  static Reply json(int status, String body) {
    return new Reply(status, body, Duration.ZERO, Mono.empty(), Map.of());
  }

  /** A {@code /tasks} answer with data files named {@code tasks} and the given child handles. */
  static Reply tasks(List<String> tasks, List<String> planTasks) {
    return json(200, scanTasksJson(tasks, planTasks));
  }

  /** No answer: the connection is closed once the request is read (after the reply's delay). */
  static Reply closed() {
    return json(0, "");
  }

  static Reply error(int status, String type) {
    return json(status, "{\"error\":{\"message\":\"scripted " + type + "\",\"type\":\"" + type + "\",\"code\":"
        + status + "}}");
  }

  static String scanTasksJson(List<String> tasks, List<String> planTasks) {
    return "{\"file-scan-tasks\":[" + tasks.stream().map(TestTasks::json).collect(Collectors.joining(","))
        + "],\"plan-tasks\":[" + planTasks.stream().map(h -> "\"" + h + "\"").collect(Collectors.joining(",")) + "]}";
  }

  static String completed(String planId, List<String> tasks, List<String> planTasks) {
    String inner = scanTasksJson(tasks, planTasks);
    return "{\"status\":\"completed\"," + (planId != null ? "\"plan-id\":\"" + planId + "\"," : "")
        + inner.substring(1);
  }

  private final JsonMapper mapper = JsonMapper.builder().build();
  private final DisposableServer server;

  volatile String config = ALL_ENDPOINTS;
  private final ConcurrentLinkedQueue<Reply> planReplies = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Reply> pollReplies = new ConcurrentLinkedQueue<>();
  private volatile Reply lastPollReply = json(200, "{\"status\":\"submitted\"}");
  private volatile Reply defaultPlanReply = json(200, completed("plan-1", List.of(), List.of()));
  private final Map<String, Reply> taskReplies = new ConcurrentHashMap<>();

  final List<String> requests = new CopyOnWriteArrayList<>();
  final List<String> fetchOrder = new CopyOnWriteArrayList<>();
  final Set<String> answered = ConcurrentHashMap.newKeySet();
  final Set<String> abandoned = ConcurrentHashMap.newKeySet();
  final List<Long> pollTimes = new CopyOnWriteArrayList<>();
  final List<String> deletes = new CopyOnWriteArrayList<>();
  /** The bodies of plan submissions, in order. */
  final List<String> submissions = new CopyOnWriteArrayList<>();
  final List<String> idempotencyKeys = new CopyOnWriteArrayList<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();

  ScriptedCatalog() {
    this.server = HttpServer.create().host("127.0.0.1").port(0).handle(this::route).bindNow();
  }

  String uri() {
    return "http://127.0.0.1:" + this.server.port();
  }

  ScriptedCatalog plan(Reply reply) {
    this.planReplies.add(reply);
    return this;
  }

  /** What POST …/plan answers once the scripted replies are used up. */
  ScriptedCatalog everyPlan(Reply reply) {
    this.defaultPlanReply = reply;
    return this;
  }

  /** Polls answer these in turn, then repeat the last. */
  ScriptedCatalog polls(Reply... replies) {
    this.pollReplies.addAll(List.of(replies));
    if (replies.length > 0) {
      this.lastPollReply = replies[replies.length - 1];
    }
    return this;
  }

  ScriptedCatalog task(String handle, Reply reply) {
    this.taskReplies.put(handle, reply);
    return this;
  }

  int maxInFlight() {
    return this.maxInFlight.get();
  }

  int inFlight() {
    return this.inFlight.get();
  }

  void awaitStarted(String handle) {
    await().atMost(Duration.ofSeconds(10)).until(() -> this.fetchOrder.contains(handle));
  }

  void awaitAnswered(String handle) {
    await().atMost(Duration.ofSeconds(10)).until(() -> this.answered.contains(handle));
  }

  void awaitAbandoned(String handle) {
    await().atMost(Duration.ofSeconds(10)).until(() -> this.abandoned.contains(handle));
  }

  void awaitDeletes(int count) {
    await().atMost(Duration.ofSeconds(10)).until(() -> this.deletes.size() >= count);
  }

  private Mono<Void> route(HttpServerRequest request, HttpServerResponse response) {
    String method = request.method().name();
    String uri = request.uri();
    this.requests.add(method + " " + uri);
    String key = request.requestHeaders().get("Idempotency-Key");
    if (key != null) {
      this.idempotencyKeys.add(key);
    }
    if (method.equals("GET") && uri.startsWith("/v1/config")) {
      return send(response, json(200, this.config), null);
    }
    if (method.equals("POST") && uri.endsWith("/plan")) {
      return request.receive().aggregate().asString().defaultIfEmpty("").flatMap(body -> {
        this.submissions.add(body);
        Reply reply = this.planReplies.poll();
        return send(response, reply != null ? reply : this.defaultPlanReply, null);
      });
    }
    if (method.equals("GET") && uri.contains("/plan/")) {
      this.pollTimes.add(System.nanoTime());
      Reply reply = this.pollReplies.poll();
      return send(response, reply != null ? reply : this.lastPollReply, null);
    }
    if (method.equals("DELETE") && uri.contains("/plan/")) {
      this.deletes.add(uri);
      return response.status(204).send();
    }
    if (method.equals("POST") && uri.endsWith("/tasks")) {
      return request.receive().aggregate().asString().flatMap(body -> {
        String handle = this.mapper.readTree(body).get("plan-task").asString();
        this.fetchOrder.add(handle);
        int now = this.inFlight.incrementAndGet();
        this.maxInFlight.accumulateAndGet(now, Math::max);
        Reply reply = this.taskReplies.getOrDefault(handle, error(404, "NoSuchPlanTaskException"));
        return send(response, reply, handle);
      });
    }
    return send(response, error(404, "NoSuchEndpoint"), null);
  }

  private Mono<Void> send(HttpServerResponse response, Reply reply, String handle) {
    Mono<String> body = Mono.delay(reply.delay()).then(reply.gate()).thenReturn(reply.body());
    if (handle != null) {
      body = body
          .doOnSuccess(ignored -> {
            this.answered.add(handle);
            this.inFlight.decrementAndGet();
          })
          .doOnCancel(() -> {
            this.abandoned.add(handle);
            this.inFlight.decrementAndGet();
          });
    }
    return body.flatMap(text -> {
      if (reply.status() == 0) {
        response.withConnection(Connection::dispose);
        return Mono.<Void>empty();
      }
      response.status(reply.status()).header("Content-Type", "application/json");
      reply.headers().forEach(response::header);
      return response.sendString(Mono.just(text)).then();
    });
  }

  List<String> requestsMatching(String prefix) {
    List<String> matching = new ArrayList<>();
    for (String request : this.requests) {
      if (request.startsWith(prefix)) {
        matching.add(request);
      }
    }
    return Collections.unmodifiableList(matching);
  }

  @Override
  public void close() {
    this.server.disposeNow(Duration.ofSeconds(5));
  }
}
