package io.icebergscan.planning.benchmarks;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;

/**
 * A catalog on a loopback socket that serves one {@link PlanTree}: {@code POST /plan} answers at once
 * with the root handles, and {@code POST /tasks} answers handle {@code h<i>} after the tree's latency for
 * node {@code i}, with one file scan task and the node's children.
 *
 * <p><b>Why blocking.</b> The ideals assume a catalog that answers after exactly the latency and costs
 * nothing else, so that every millisecond above them is the planner's. This server comes as close as
 * this machine allows: one thread per connection reads a request, parks until its deadline and writes
 * a precomputed response (headers and body) in one write; it parses no JSON and allocates little. Its
 * predecessor, a Reactor Netty server delaying answers with {@code Mono.delay}, added about 1 ms to every
 * 10 ms request on the 2-core benchmark machine (a raw socket client measured 11.3 ms per request, this
 * server 10.3 ms): after each idle wait its HTTP pipeline ran 3 to 4 times slower than back to back, and
 * with one event loop it serialised the work of all concurrent requests. The planner's pool holds at most
 * {@code 2 * maxConcurrency} connections, so the threads stay few; a parked thread costs no CPU.
 */
public final class LatencyCatalog implements AutoCloseable {

  static final String CONFIG = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  private static final String NO_SUCH_PLAN_TASK =
      "{\"error\":{\"message\":\"no such plan task\",\"type\":\"NoSuchPlanTaskException\",\"code\":404}}";

  private final PlanTree tree;
  private final byte[] config;
  private final byte[] plan;
  private final byte[][] tasks;
  private final byte[] noSuchPlanTask;
  private final long[] latencyNanos;
  private final ServerSocket serverSocket;
  private final Set<Socket> connections = ConcurrentHashMap.newKeySet();
  private final AtomicInteger connectionCount = new AtomicInteger();
  private final AtomicInteger fetches = new AtomicInteger();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicInteger maxInFlight = new AtomicInteger();
  private volatile @Nullable Queue<String> timeline;
  private volatile boolean closed;

  public LatencyCatalog(PlanTree tree) {
    this.tree = tree;
    this.config = response(200, CONFIG);
    this.plan = response(200, "{\"status\":\"completed\",\"plan-id\":\"bench\",\"file-scan-tasks\":[],\"plan-tasks\":"
        + handles(tree.roots()) + "}");
    this.tasks = new byte[tree.size()][];
    this.latencyNanos = new long[tree.size()];
    for (int node = 0; node < tree.size(); node++) {
      this.tasks[node] = response(200, "{\"file-scan-tasks\":[" + taskJson("s3://bench/data/" + node + ".parquet")
          + "],\"plan-tasks\":" + handles(tree.children(node)) + "}");
      this.latencyNanos[node] = tree.latencyNanos(node);
    }
    this.noSuchPlanTask = response(404, NO_SUCH_PLAN_TASK);
    try {
      this.serverSocket = new ServerSocket(0, 1024, InetAddress.getByName("127.0.0.1"));
    }
    catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
    Thread acceptor = new Thread(this::accept, "latency-catalog-accept");
    acceptor.setDaemon(true);
    acceptor.start();
  }

  public String uri() {
    return "http://127.0.0.1:" + this.serverSocket.getLocalPort();
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
  public Queue<String> recordTimeline() {
    Queue<String> events = new ConcurrentLinkedQueue<>();
    this.timeline = events;
    return events;
  }

  private static String handles(List<Integer> nodes) {
    return nodes.stream().map(n -> "\"h" + n + "\"").collect(Collectors.joining(",", "[", "]"));
  }

  static String taskJson(String path) {
    return "{\"data-file\":{\"spec-id\":0,\"partition\":[],\"content\":\"data\",\"file-path\":\"" + path
        + "\",\"file-format\":\"parquet\",\"file-size-in-bytes\":100,\"record-count\":10}}";
  }

  /** A whole HTTP/1.1 response, status line to body, written with one call. */
  private static byte[] response(int status, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    byte[] head = ("HTTP/1.1 " + status + (status == 200 ? " OK" : " Not Found")
        + "\r\nContent-Type: application/json\r\nContent-Length: " + body.length + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
    byte[] whole = new byte[head.length + body.length];
    System.arraycopy(head, 0, whole, 0, head.length);
    System.arraycopy(body, 0, whole, head.length, body.length);
    return whole;
  }

  private void accept() {
    while (!this.closed) {
      Socket socket;
      try {
        socket = this.serverSocket.accept();
        socket.setTcpNoDelay(true);
      }
      catch (IOException closedOrFailed) {
        continue; // the loop ends once close() has set closed
      }
      this.connections.add(socket);
      Thread connection = new Thread(() -> serve(socket),
          "latency-catalog-" + this.connectionCount.incrementAndGet());
      connection.setDaemon(true);
      connection.start();
    }
  }

  /** One keep-alive connection: requests are read, answered and written in turn. */
  private void serve(Socket socket) {
    try (socket) {
      InputStream in = new BufferedInputStream(socket.getInputStream(), 8192);
      OutputStream out = socket.getOutputStream();
      Request request;
      while ((request = Request.read(in)) != null) {
        out.write(answer(request));
        out.flush();
        if (request.close) {
          return;
        }
      }
    }
    catch (IOException endedOrClosed) {
      // the client went away or the catalog closed
    }
    finally {
      this.connections.remove(socket);
    }
  }

  private byte[] answer(Request request) {
    String method = request.method;
    String target = request.target;
    if (method.equals("GET") && target.startsWith("/v1/config")) {
      return this.config;
    }
    if (method.equals("POST") && target.endsWith("/plan")) {
      return this.plan;
    }
    if (method.equals("POST") && target.endsWith("/tasks")) {
      long received = System.nanoTime();
      int node = node(new String(request.body, StandardCharsets.UTF_8));
      this.fetches.incrementAndGet();
      if (node < 0 || node >= this.tasks.length) {
        return this.noSuchPlanTask;
      }
      this.maxInFlight.accumulateAndGet(this.inFlight.incrementAndGet(), Math::max);
      Queue<String> events = this.timeline;
      if (events != null) {
        events.add("+h" + node + " " + received);
      }
      long deadline = received + this.latencyNanos[node];
      for (long left = deadline - System.nanoTime(); left > 0; left = deadline - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      this.inFlight.decrementAndGet();
      if (events != null) {
        events.add("-h" + node + " " + System.nanoTime());
      }
      return this.tasks[node];
    }
    if (method.equals("DELETE")) {
      return "HTTP/1.1 204 No Content\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
    }
    return "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
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

  @Override
  public void close() {
    this.closed = true;
    try {
      this.serverSocket.close();
    }
    catch (IOException ignored) {
      // closing anyway
    }
    for (Socket socket : this.connections) {
      try {
        socket.close();
      }
      catch (IOException ignored) {
        // closing anyway
      }
    }
  }

  /** An HTTP/1.1 request as far as this catalog reads it: method, target, body and whether to close. */
  static final class Request {

    final String method;
    final String target;
    final byte[] body;
    final boolean close;

    private Request(String method, String target, byte[] body, boolean close) {
      this.method = method;
      this.target = target;
      this.body = body;
      this.close = close;
    }

    /** The next request on the connection, or {@code null} when the client closed it between requests. */
    static @Nullable Request read(InputStream in) throws IOException {
      String requestLine = line(in);
      if (requestLine == null) {
        return null;
      }
      String[] parts = requestLine.split(" ");
      if (parts.length < 3) {
        throw new IOException("malformed request line: " + requestLine);
      }
      int contentLength = 0;
      boolean chunked = false;
      boolean close = false;
      String header;
      while ((header = line(in)) != null && !header.isEmpty()) {
        int colon = header.indexOf(':');
        if (colon < 0) {
          continue;
        }
        String name = header.substring(0, colon).trim();
        String value = header.substring(colon + 1).trim();
        if (name.equalsIgnoreCase("Content-Length")) {
          contentLength = Integer.parseInt(value);
        }
        else if (name.equalsIgnoreCase("Transfer-Encoding")) {
          chunked = value.toLowerCase(Locale.ROOT).contains("chunked");
        }
        else if (name.equalsIgnoreCase("Connection")) {
          close = value.equalsIgnoreCase("close");
        }
      }
      if (header == null) {
        throw new IOException("the connection ended within the headers");
      }
      byte[] body = chunked ? chunkedBody(in) : in.readNBytes(contentLength);
      if (body.length < contentLength) {
        throw new IOException("the connection ended within the body");
      }
      return new Request(parts[0], parts[1], body, close);
    }

    private static byte[] chunkedBody(InputStream in) throws IOException {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      while (true) {
        String size = line(in);
        if (size == null) {
          throw new IOException("the connection ended within a chunked body");
        }
        int semicolon = size.indexOf(';');
        int length = Integer.parseInt((semicolon < 0 ? size : size.substring(0, semicolon)).trim(), 16);
        if (length == 0) {
          String trailer;
          while ((trailer = line(in)) != null && !trailer.isEmpty()) {
            // trailers are ignored
          }
          return body.toByteArray();
        }
        body.write(in.readNBytes(length));
        line(in); // the CRLF after the chunk
      }
    }

    /** One line without its CRLF, or {@code null} at the end of the stream before any byte of it. */
    private static @Nullable String line(InputStream in) throws IOException {
      StringBuilder line = new StringBuilder(64);
      int c;
      while ((c = in.read()) != '\n') {
        if (c < 0) {
          return line.length() == 0 ? null : line.toString();
        }
        if (c != '\r') {
          line.append((char) c);
        }
      }
      return line.toString();
    }
  }
}
