package io.icebergscan.planning.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
/**
 * {@link AgainstIceberg}'s catalog in a process of its own, a remote catalog's stand-in: started on one CPU
 * ({@code taskset -c}) while the benchmark's JVM, the client, keeps to the other, so that neither takes the other's
 * CPU and the client's JVM holds nothing of the server. It serves {@link AgainstIceberg#TABLE} over the shape's fan-out
 * on the embedded or the plain server, prints {@code READY <uri>} and runs until its standard input ends.
 */
public final class RemoteCatalog implements AutoCloseable {

  private static final String READY = "READY ";

  private final Process process;
  private final String uri;

  private RemoteCatalog(Process process, String uri) {
    this.process = process;
    this.uri = uri;
  }

  /**
   * Starts the catalog in a process of its own, on {@code cpu} ({@code taskset -c}) unless it is negative.
   *
   * @param server {@code embedded} or {@code plain}, as {@link AgainstIceberg#server}
   */
  static RemoteCatalog start(String shape, int latencyMillis, String server, int cpu) throws IOException {
    List<String> command = new ArrayList<>();
    if (cpu >= 0) {
      command.addAll(List.of("taskset", "-c", Integer.toString(cpu)));
    }
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
        System.getProperty("java.class.path"), RemoteCatalog.class.getName(), shape, Integer.toString(latencyMillis),
        server));
    Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      if (line.startsWith(READY)) {
        return new RemoteCatalog(process, line.substring(READY.length()));
      }
    }
    process.destroyForcibly();
    throw new IllegalStateException("the catalog process ended before it was ready");
  }

  /** Pins this JVM, every thread it has and every thread they start, to {@code cpu}. */
  static void pinThisJvm(int cpu) throws IOException {
    taskset("-a", "-p", "-c", Integer.toString(cpu), Long.toString(ProcessHandle.current().pid()));
  }

  String uri() {
    return this.uri;
  }

  @Override
  public void close() throws Exception {
    this.process.getOutputStream().close();
    if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
      this.process.destroyForcibly();
    }
  }

  private static void taskset(String... arguments) throws IOException {
    List<String> command = new ArrayList<>(List.of("taskset"));
    command.addAll(List.of(arguments));
    try {
      Process taskset = new ProcessBuilder(command).redirectErrorStream(true).start();
      String said = new String(taskset.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (taskset.waitFor() != 0) {
        throw new IllegalStateException(String.join(" ", command) + " failed: " + said);
      }
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(interrupted);
    }
  }

  /** {@code <shape> <latency ms> <embedded|plain>}. */
  public static void main(String[] args) throws Exception {
    String shape = args[0];
    int latencyMillis = Integer.parseInt(args[1]);
    try (EmbeddedIcebergCatalog catalog = AgainstIceberg.catalog(shape, latencyMillis);
        PlainFanOutCatalog plain = args[2].equals("plain") ? PlainFanOutCatalog.start(catalog.catalog(),
            AgainstIceberg.TABLE, AgainstIceberg.tree(shape, latencyMillis)) : null) {
      System.out.println(READY + (plain != null ? plain.uri() : catalog.uri()));
      System.out.flush();
      // until the benchmark closes its end
      System.in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }
}
