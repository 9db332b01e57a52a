package io.icebergscan.planning;

import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.netty.channel.EventLoop;
import io.netty.channel.epoll.Epoll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpMethod;
import org.springframework.web.reactive.function.client.ClientRequestObservationContext;
import reactor.netty.resources.LoopResources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * An answer read on a Netty event loop must not be acted on inline, while that loop is still handing out the
 * events of one {@code epoll_wait}: Netty dispatches them by file-descriptor number, so a connection closed
 * and another opened inline (a failed plan cancelling its other fetch, then sending its DELETE) hands the new
 * connection the stale events of the old one, whose number it took.
 *
 * <p>The planner runs on a single epoll event loop; the catalog is a plain blocking socket server on threads of
 * its own, so that the test knows when an answer's bytes are in the client's socket. With both of a plan's
 * fetches in flight, the test holds the event loop with a task, has the catalog write the 404 of the first
 * handle and then the answer of the second, and lets the loop go: one {@code epoll_wait} returns both
 * connections readable, the first's in front. Handled inline, the 404 fails the plan, whose cancelled second
 * fetch frees its descriptor and whose DELETE opens a connection that takes it (the test fills the holes of the
 * descriptor table first, so that the lowest free number is that one); the second connection's event, next in
 * the batch, then reaches the DELETE's connection, which reads a socket not yet connected and fails with
 * {@code NotYetConnectedException}. The DELETE is sent in the background and its failure swallowed, so the test
 * reads it from the DELETE's client observation.
 */
class EventLoopFdReuseTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");
  private static final Pattern PLAN_TASK = Pattern.compile("\"plan-task\"\\s*:\\s*\"([^\"]+)\"");
  private static final String CONFIG = ScriptedCatalog.ALL_ENDPOINTS;

  private final LoopResources loops = LoopResources.create("one-loop", 1, true);
  private final ExecutorService caller = Executors.newSingleThreadExecutor();
  private final List<Closeable> fillers = new ArrayList<>();
  private RawCatalog catalog;
  private ScanPlanner planner;

  @AfterEach
  void close() throws IOException {
    if (this.planner != null) {
      this.planner.close();
    }
    if (this.catalog != null) {
      this.catalog.close();
    }
    this.caller.shutdownNow();
    for (Closeable filler : this.fillers) {
      filler.close();
    }
    this.loops.disposeLater(Duration.ZERO, Duration.ofSeconds(5)).block(Duration.ofSeconds(10));
  }

  @Test
  void aPlanFailedByAnAnswerOfOneEpollBatchStillSendsItsDelete() throws Exception {
    assumeThat(Epoll.isAvailable()).as("the epoll transport").isTrue();
    this.catalog = new RawCatalog();
    // how the DELETE ended, as its client observation saw it: sent in the background, its failure is not thrown
    CompletableFuture<Optional<Throwable>> deleteOutcome = new CompletableFuture<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<ClientRequestObservationContext>() {
      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ClientRequestObservationContext;
      }

      @Override
      public void onStop(ClientRequestObservationContext context) {
        if (context.getRequest() != null && context.getRequest().method() == HttpMethod.DELETE) {
          deleteOutcome.complete(Optional.ofNullable(context.getError()));
        }
      }
    });
    this.planner = ScanPlanner.builder()
        .uri(this.catalog.uri())
        .maxConcurrency(4)
        .maxRetries(0) // a failed DELETE is not sent again: it must get through the first time
        .planTimeout(Duration.ofSeconds(20))
        .httpClient(client -> client.runOn(this.loops))
        .observationRegistry(registry)
        .build();
    EventLoop loop = this.loops.onClient(true).next();

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> this.planner.plan(TABLE), this.caller);
    await(this.catalog.fetched("task-1"), "the fetch of task-1");
    await(this.catalog.fetched("task-2"), "the fetch of task-2");

    // hold the event loop while both answers land in its sockets: one epoll_wait then returns both
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    loop.execute(() -> {
      held.countDown();
      try {
        release.await(10, TimeUnit.SECONDS);
      }
      catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      await(held, "the event loop held");
      this.catalog.answer("task-1");
      await(this.catalog.answered("task-1"), "the 404 of task-1 written");
      this.catalog.answer("task-2");
      await(this.catalog.answered("task-2"), "the answer of task-2 written");
      fillDescriptorHoles();
    }
    finally {
      release.countDown();
    }

    Throwable failure = catchThrowable(() -> plan.get(20, TimeUnit.SECONDS));
    assertThat(failure).hasCauseInstanceOf(NoSuchPlanTaskException.class);
    assertThat(deleteOutcome.get(10, TimeUnit.SECONDS)).as("the failure of the failed plan's DELETE").isEmpty();
    assertThat(this.catalog.deleted.await(10, TimeUnit.SECONDS))
        .as("the DELETE of the failed plan reached the catalog (requests: %s)", this.catalog.requests)
        .isTrue();
  }

  /**
   * Occupies every free descriptor number below the highest open one, so that the next socket the event loop
   * opens takes the number of the next one it closes, as in a process whose descriptor table is dense; in a
   * test JVM it has holes (class files, jars and sockets closed by earlier work), which a new socket would take.
   */
  private void fillDescriptorHoles() throws IOException {
    for (int round = 0; round < 5; round++) {
      BitSet used = new BitSet();
      try (DirectoryStream<Path> fds =
          Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
        for (Path fd : fds) {
          // not the descriptor this listing reads through, free again once it is done
          if (!Files.isDirectory(fd)) {
            used.set(Integer.parseInt(fd.getFileName().toString()));
          }
        }
      }
      int holes = used.length() - used.cardinality();
      if (holes == 0) {
        return;
      }
      for (int i = 0; i < holes; i++) {
        this.fillers.add(new FileInputStream("/dev/null"));
      }
    }
  }

  private static void await(CountDownLatch latch, String what) throws InterruptedException {
    assertThat(latch.await(10, TimeUnit.SECONDS)).as(what + " within 10 s").isTrue();
  }

  /**
   * A catalog on blocking sockets, a thread per connection: a plan completed with two plan-tasks, whose
   * fetches are answered only when the test says, the first with a 404, the second with an empty page.
   */
  private static final class RawCatalog implements AutoCloseable {

    private final ServerSocket server;
    private final ExecutorService threads = Executors.newCachedThreadPool(runnable -> {
      Thread thread = new Thread(runnable, "raw-catalog");
      thread.setDaemon(true);
      return thread;
    });
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Map<String, CountDownLatch> fetched = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> gates = new ConcurrentHashMap<>();
    private final Map<String, CountDownLatch> answered = new ConcurrentHashMap<>();
    final List<String> requests = new CopyOnWriteArrayList<>();
    final CountDownLatch deleted = new CountDownLatch(1);

    RawCatalog() throws IOException {
      this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      this.threads.execute(this::accept);
    }

    String uri() {
      return "http://127.0.0.1:" + this.server.getLocalPort();
    }

    CountDownLatch fetched(String handle) {
      return this.fetched.computeIfAbsent(handle, h -> new CountDownLatch(1));
    }

    CountDownLatch answered(String handle) {
      return this.answered.computeIfAbsent(handle, h -> new CountDownLatch(1));
    }

    void answer(String handle) {
      this.gates.computeIfAbsent(handle, h -> new CountDownLatch(1)).countDown();
    }

    private void accept() {
      while (!this.server.isClosed()) {
        try {
          Socket socket = this.server.accept();
          socket.setTcpNoDelay(true);
          this.sockets.add(socket);
          this.threads.execute(() -> serve(socket));
        }
        catch (IOException closed) {
          return;
        }
      }
    }

    /**
     * Serves one connection; its socket is closed only where the script says or when the test ends: a server
     * closing its side when the client goes away would free a descriptor number of this process while the
     * client's event loop opens a connection, which would then take that number.
     */
    private void serve(Socket socket) {
      try {
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        while (true) {
          String head = readHead(in);
          if (head == null) {
            return;
          }
          String[] lines = head.split("\r\n");
          String[] requestLine = lines[0].split(" ");
          String method = requestLine[0];
          String uri = requestLine[1];
          int length = 0;
          for (String line : lines) {
            if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
              length = Integer.parseInt(line.substring(line.indexOf(':') + 1).trim());
            }
          }
          String body = new String(in.readNBytes(length), StandardCharsets.UTF_8);
          this.requests.add(method + " " + uri);
          if (method.equals("GET") && uri.startsWith("/v1/config")) {
            write(out, 200, CONFIG, false);
          }
          else if (method.equals("POST") && uri.endsWith("/plan")) {
            // and closes: no connection idle in the pool, so the DELETE opens one of its own
            write(out, 200, ScriptedCatalog.completed("plan-1", List.of(), List.of("task-1", "task-2")), true);
            socket.close();
            return;
          }
          else if (method.equals("POST") && uri.endsWith("/tasks")) {
            Matcher matcher = PLAN_TASK.matcher(body);
            String handle = matcher.find() ? matcher.group(1) : "?";
            fetched(handle).countDown();
            CountDownLatch gate = this.gates.computeIfAbsent(handle, h -> new CountDownLatch(1));
            if (!gate.await(20, TimeUnit.SECONDS)) {
              return;
            }
            if (handle.equals("task-1")) {
              write(out, 404, "{\"error\":{\"message\":\"no such plan task\",\"type\":\"NoSuchPlanTaskException\","
                  + "\"code\":404}}", false);
              answered(handle).countDown();
            }
            else {
              // once written here (loopback), its bytes are in the client's socket, ready for the same
              // epoll_wait as the 404 above
              write(out, 200, ScriptedCatalog.scanTasksJson(List.of(), List.of()), false);
              answered(handle).countDown();
            }
          }
          else if (method.equals("DELETE")) {
            write(out, 204, "", false);
            this.deleted.countDown();
          }
          else {
            write(out, 404, "{\"error\":{\"message\":\"no\",\"type\":\"NoSuchEndpoint\",\"code\":404}}", false);
          }
        }
      }
      catch (IOException | InterruptedException ended) {
        // the client went away, or the test is over
      }
    }

    private static String readHead(InputStream in) throws IOException {
      ByteArrayOutputStream head = new ByteArrayOutputStream();
      int matched = 0;
      while (matched < 4) {
        int b = in.read();
        if (b < 0) {
          return null;
        }
        head.write(b);
        matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
      }
      return head.toString(StandardCharsets.ISO_8859_1);
    }

    private static void write(OutputStream out, int status, String body, boolean close) throws IOException {
      byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
      String head = "HTTP/1.1 " + status + " " + (status == 200 ? "OK" : status == 204 ? "No Content" : "Not Found")
          + "\r\n" + (status == 204 ? "" : "Content-Type: application/json\r\nContent-Length: " + bytes.length + "\r\n")
          + (close ? "Connection: close\r\n" : "") + "\r\n";
      out.write(head.getBytes(StandardCharsets.ISO_8859_1));
      out.write(bytes);
      out.flush();
    }

    @Override
    public void close() throws IOException {
      this.server.close();
      for (Socket socket : this.sockets) {
        socket.close();
      }
      this.threads.shutdownNow();
    }
  }
}
