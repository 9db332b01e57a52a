package io.icebergscan.planning;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.icebergscan.planning.ScriptedCatalog.ALL_ENDPOINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Misbehaving servers on real sockets: each fault ends in a typed exception within a bounded time, and
 * once the planner is closed no planner thread and no connection is left.
 */
class FaultInjectionTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String PLAN = "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"h1\"]}";

  private final FaultyServer server = new FaultyServer();

  @AfterEach
  void close() throws IOException {
    this.server.close();
  }

  private ScanPlanner planner(String uri) {
    return ScanPlanner.builder().uri(uri).maxConcurrency(2).maxRetries(1)
        .retryInitialDelay(Duration.ofMillis(1)).responseTimeout(Duration.ofMillis(500))
        .requestTimeout(Duration.ofMillis(1500)).planTimeout(Duration.ofSeconds(15))
        .maxResponseBytes(64 * 1024).build();
  }

  private Throwable planAndClose() throws Exception {
    return planAndClose(this.server.uri());
  }

  /** Plans on a fresh planner, closes it, and checks what it left behind. */
  private Throwable planAndClose(String uri) throws Exception {
    ScanPlanner planner = planner(uri);
    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    Throwable failure;
    try {
      plan.get(20, TimeUnit.SECONDS);
      failure = null;
    }
    catch (java.util.concurrent.ExecutionException failed) {
      failure = failed.getCause();
    }
    finally {
      planner.close();
    }
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
      assertThat(plannerThreads()).as("planner threads alive after close").isZero();
      assertThat(this.server.openConnections()).as("connections still open after close").isZero();
    });
    return failure;
  }

  private static long plannerThreads() {
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.isAlive() && thread.getName().startsWith("iceberg-scan-planning-"))
        .count();
  }

  @Test
  void aServerThatAcceptsAndNeverAnswersTimesOut() throws Exception {
    this.server.script((request, out) -> {
      // read the request, answer nothing, keep the connection open
    });
    Throwable failure = planAndClose();
    assertThat(failure).isInstanceOf(TransportException.class).hasMessageContaining("/v1/config")
        .hasMessageContaining("no response within the response timeout");
    assertThat(((TransportException) failure).timedOut()).as("reached, and too late").isTrue();
    assertThat(this.server.requests()).as("a timeout is not retried").containsExactly("GET /v1/config");
  }

  @Test
  void aResetInTheMiddleOfABodyIsATransportFailureNamingTheHandle() throws Exception {
    this.server.script(planThenTasks((request, out) -> {
      write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n"
          + "{\"file-scan-tasks\":[");
      throw new IOException("reset");
    }));
    Throwable failure = planAndClose();
    assertThat(failure).isInstanceOf(TransportException.class);
    assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("h1");
    assertThat(((TransportException) failure).timedOut()).as("cut off, not late").isFalse();
    assertThat(this.server.requests()).as("a reset is retried once, then the plan is abandoned")
        .containsExactly("GET /v1/config", "POST /v1/namespaces/db/tables/t/plan",
            "POST /v1/namespaces/db/tables/t/tasks", "POST /v1/namespaces/db/tables/t/tasks",
            "DELETE /v1/namespaces/db/tables/t/plan/p");
  }

  @Test
  void truncatedJsonIsMalformedNotPartial() throws Exception {
    this.server.script(planThenTasks(
        (request, out) -> respond(out, 200, "{\"file-scan-tasks\":[" + TestTasks.json("a.parquet"))));
    Throwable failure = planAndClose();
    assertThat(failure).isInstanceOf(MalformedResponseException.class);
    assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("h1");
  }

  @Test
  void aTricklingBodyEndsAtTheRequestTimeoutNotThePlanTimeout() throws Exception {
    this.server.script((request, out) -> {
      if (request.contains("/v1/config")) {
        respond(out, 200, ALL_ENDPOINTS);
        return;
      }
      write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n");
      for (int i = 0; i < 1000; i++) {
        write(out, " ");
        try {
          // the fault being injected is slowness; the test itself waits on futures and bounded awaits
          TimeUnit.MILLISECONDS.sleep(100);
        }
        catch (InterruptedException stop) {
          return;
        }
      }
    });
    long started = System.nanoTime();
    // each byte comes well within the response timeout (500 ms): only the request timeout (1.5 s) ends it
    Throwable failure = planAndClose();
    assertThat(failure).isInstanceOf(TransportException.class).hasMessageContaining("request timeout")
        .hasMessageContaining("/plan");
    assertThat(((TransportException) failure).timedOut()).as("reached, and too late").isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(15));
    assertThat(this.server.requests()).as("a request timeout is not retried")
        .containsExactly("GET /v1/config", "POST /v1/namespaces/db/tables/t/plan");
  }

  @Test
  void aRefusedPortIsATransportFailure() throws Exception {
    String closedPort;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closedPort = "http://127.0.0.1:" + socket.getLocalPort();
    }
    Throwable failure = planAndClose(closedPort);
    assertThat(failure).isInstanceOf(TransportException.class).hasMessageContaining("/v1/config");
    assertThat(((TransportException) failure).timedOut()).as("not reached at all").isFalse();
  }

  @Test
  void anOversizedAnswerIsMalformedAtTheLimitInsteadOfFillingTheHeap() throws Exception {
    this.server.script(planThenTasks((request, out) -> {
      write(out, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 10000000\r\n\r\n"
          + "{\"file-scan-tasks\":[");
      byte[] chunk = (TestTasks.json("a.parquet") + ",").getBytes(StandardCharsets.UTF_8);
      for (int written = 0; written < 10_000_000 - chunk.length; written += chunk.length) {
        out.write(chunk);
      }
      out.flush();
    }));
    Throwable failure = planAndClose();
    assertThat(failure).isInstanceOf(MalformedResponseException.class).hasMessageContaining("larger than the limit of "
        + 64 * 1024 + " bytes");
    assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("h1");
  }

  @Test
  void anHtmlErrorPageIsARestException() throws Exception {
    this.server.script((request, out) -> {
      if (request.contains("/v1/config")) {
        respond(out, 200, ALL_ENDPOINTS);
      }
      else {
        write(out, "HTTP/1.1 500 Server Error\r\nContent-Type: text/html\r\nContent-Length: 44\r\n\r\n"
            + "<html><body>HTTP ERROR 500</body></html>\r\n\r\n");
      }
    });
    assertThat(planAndClose()).isExactlyInstanceOf(RestException.class).hasMessageContaining("500");
  }

  /** A catalog whose plan has one plan-task, {@code h1}, answered by {@code tasks}. */
  private static FaultyServer.Script planThenTasks(FaultyServer.Script tasks) {
    return (request, out) -> {
      if (request.contains("/v1/config")) {
        respond(out, 200, ALL_ENDPOINTS);
      }
      else if (request.contains("/tasks")) {
        tasks.answer(request, out);
      }
      else {
        respond(out, 200, PLAN);
      }
    };
  }

  private static void respond(OutputStream out, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    write(out, "HTTP/1.1 " + status + " X\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length
        + "\r\n\r\n");
    out.write(bytes);
    out.flush();
  }

  private static void write(OutputStream out, String text) throws IOException {
    out.write(text.getBytes(StandardCharsets.UTF_8));
    out.flush();
  }

  /** One thread per connection, a scripted answer per request, and a count of connections still open. */
  private static final class FaultyServer implements AutoCloseable {

    interface Script {
      void answer(String request, OutputStream out) throws IOException;
    }

    private final ServerSocket socket;
    private final ExecutorService connections = Executors.newCachedThreadPool();
    private final AtomicInteger open = new AtomicInteger();
    /** Method and path of every request read, in order. */
    private final List<String> requests = new CopyOnWriteArrayList<>();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile Script script = (request, out) -> { };

    FaultyServer() {
      try {
        this.socket = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      }
      catch (IOException failed) {
        throw new IllegalStateException(failed);
      }
      this.connections.execute(this::accept);
    }

    String uri() {
      return "http://127.0.0.1:" + this.socket.getLocalPort();
    }

    void script(Script script) {
      this.script = script;
    }

    int openConnections() {
      return this.open.get();
    }

    List<String> requests() {
      return this.requests;
    }

    private void accept() {
      while (!this.socket.isClosed()) {
        try {
          Socket connection = this.socket.accept();
          this.sockets.add(connection);
          this.open.incrementAndGet();
          this.connections.execute(() -> serve(connection));
        }
        catch (IOException closed) {
          return;
        }
      }
    }

    private void serve(Socket connection) {
      try (connection; InputStream in = connection.getInputStream(); OutputStream out = connection.getOutputStream()) {
        while (true) {
          String request = readRequest(in);
          if (request == null) {
            return;
          }
          String[] line = request.substring(0, request.indexOf("\r\n")).split(" ");
          this.requests.add(line[0] + " " + line[1]);
          this.script.answer(request, out);
        }
      }
      catch (IOException | RuntimeException gone) {
        // the fault, or the client went away
      }
      finally {
        this.open.decrementAndGet();
      }
    }

    /** The request line and headers, with the body skipped; null at end of stream. */
    private static String readRequest(InputStream in) throws IOException {
      StringBuilder head = new StringBuilder();
      int b;
      while ((b = in.read()) != -1) {
        head.append((char) b);
        if (head.length() >= 4 && head.substring(head.length() - 4).equals("\r\n\r\n")) {
          int length = 0;
          for (String line : head.toString().split("\r\n")) {
            if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(15).trim());
            }
          }
          in.readNBytes(length);
          return head.toString();
        }
      }
      return null;
    }

    @Override
    public void close() throws IOException {
      this.socket.close();
      for (Socket connection : this.sockets) {
        connection.close();
      }
      this.connections.shutdownNow();
    }
  }
}
