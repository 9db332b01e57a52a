package io.icebergscan.planning.benchmarks;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The floor client: a blocking socket per connection, HTTP/1.1 written by hand, a response read by its
 * {@code Content-Length} and not parsed. Nothing can send the same requests with less work; a benchmark times it in
 * the same run as the planner, and reports the planner's ratio to it.
 */
final class RawSocketClient implements AutoCloseable {

  static final String TABLE_PATH = "/v1/namespaces/bench/tables/flat";
  /** The body of {@code POST /plan} every client of the flat benchmarks sends. */
  static final byte[] PLAN_BODY = "{}".getBytes(StandardCharsets.UTF_8);

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  RawSocketClient(String baseUri) throws IOException {
    URI base = URI.create(baseUri);
    this.socket = new Socket(base.getHost(), base.getPort());
    this.socket.setTcpNoDelay(true);
    this.in = new BufferedInputStream(this.socket.getInputStream(), 8192);
    this.out = this.socket.getOutputStream();
  }

  /** {@code POST /plan}: the bytes of the answer's body. */
  int plan() throws IOException {
    return post(TABLE_PATH + "/plan", PLAN_BODY);
  }

  /** {@code POST /tasks} for {@code handle}: the bytes of the answer's body. */
  int fetch(String handle) throws IOException {
    return post(TABLE_PATH + "/tasks", tasksBody(handle));
  }

  /** The body of {@code POST /tasks} for {@code handle}. */
  static byte[] tasksBody(String handle) {
    return ("{\"plan-task\":\"" + handle + "\"}").getBytes(StandardCharsets.UTF_8);
  }

  private int post(String path, byte[] body) throws IOException {
    String head = "POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n"
        + "Content-Type: application/json\r\nIdempotency-Key: " + UUID.randomUUID() + "\r\nContent-Length: "
        + body.length + "\r\n\r\n";
    byte[] headBytes = head.getBytes(StandardCharsets.US_ASCII);
    byte[] request = new byte[headBytes.length + body.length];
    System.arraycopy(headBytes, 0, request, 0, headBytes.length);
    System.arraycopy(body, 0, request, headBytes.length, body.length);
    this.out.write(request);
    this.out.flush();
    int contentLength = 0;
    String line;
    while (!(line = line(this.in)).isEmpty()) {
      int colon = line.indexOf(':');
      if (colon > 0 && line.substring(0, colon).trim().toLowerCase(Locale.ROOT).equals("content-length")) {
        contentLength = Integer.parseInt(line.substring(colon + 1).trim());
      }
    }
    return this.in.readNBytes(contentLength).length;
  }

  private static String line(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder(64);
    int c;
    while ((c = in.read()) != '\n') {
      if (c < 0) {
        throw new IOException("the connection ended");
      }
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }

  @Override
  public void close() throws IOException {
    this.socket.close();
  }

  /**
   * The floor of a flat fan-out: {@code POST /plan}, then {@code handles} fetches of {@code h0…}, {@code limit} at
   * a time, each of {@code limit} threads with a connection of its own taking the next handle as soon as its last
   * answer is in (the handles' names are known up front, as a walk learns them from the plan's answer).
   */
  static final class FlatFloor implements AutoCloseable {

    private final List<RawSocketClient> connections = new ArrayList<>();
    private final ExecutorService threads;
    private final int handles;

    FlatFloor(String baseUri, int handles, int limit) throws IOException {
      this.handles = handles;
      for (int i = 0; i < limit; i++) {
        this.connections.add(new RawSocketClient(baseUri));
      }
      this.threads = Executors.newFixedThreadPool(limit, task -> {
        Thread thread = new Thread(task, "floor");
        thread.setDaemon(true);
        return thread;
      });
    }

    /** One plan: the answers' bytes, all told. */
    int plan() throws Exception {
      int total = this.connections.get(0).plan();
      AtomicInteger next = new AtomicInteger();
      List<Future<Integer>> workers = new ArrayList<>();
      for (RawSocketClient connection : this.connections) {
        workers.add(this.threads.submit(() -> {
          int bytes = 0;
          for (int handle = next.getAndIncrement(); handle < this.handles; handle = next.getAndIncrement()) {
            bytes += connection.fetch("h" + handle);
          }
          return bytes;
        }));
      }
      for (Future<Integer> worker : workers) {
        total += worker.get();
      }
      return total;
    }

    @Override
    public void close() {
      this.threads.shutdownNow();
      this.connections.forEach(connection -> {
        try {
          connection.close();
        }
        catch (IOException failure) {
          throw new UncheckedIOException(failure);
        }
      });
    }
  }
}
