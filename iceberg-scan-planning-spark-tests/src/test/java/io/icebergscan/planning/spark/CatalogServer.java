package io.icebergscan.planning.spark;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A {@link CatalogProcess} started for a test and driven from it: its URI, the plan-task handles of each plan, and the
 * catalog's request counts on demand. Closing it ends the process.
 */
final class CatalogServer implements AutoCloseable {

  /**
   * What the catalog counted since it started or was reset, and the time it spent answering: plans, {@code /tasks}
   * beyond the simulated latency, and with any of them under way.
   */
  record Counts(int plans, int tasks, int maxConcurrentTasks, int metrics, double planMillis, double tasksWorkMillis,
      double busyMillis) {
  }

  private static final long ANSWER_SECONDS = 60;

  private final Process process;
  private final Writer commands;
  private final BlockingQueue<String> answers = new ArrayBlockingQueue<>(16);
  private final String uri;
  private final int handles;

  private CatalogServer(Process process) throws IOException {
    this.process = process;
    this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    Thread reader = new Thread(() -> pump(process), "catalog-process-output");
    reader.setDaemon(true);
    reader.start();
    String[] ready = answer().split(" ");
    if (!ready[0].equals("READY")) {
      throw new IllegalStateException("the catalog process did not start: " + String.join(" ", ready));
    }
    this.uri = ready[1];
    this.handles = Integer.parseInt(ready[2]);
  }

  /**
   * Starts the catalog on the class path the build wrote for it, on the CPUs the system property {@code catalog.cpu}
   * names ({@code taskset -c}) when it is set.
   *
   * @param fanOut {@code levels:A,B,…} (as {@code FanOut.levels}) or {@code flat:N}
   * @param latencyMillis how long each {@code /tasks} answer takes
   * @param tables {@code differential} or {@code benchmark} (see {@link CatalogProcess})
   */
  static CatalogServer start(String fanOut, long latencyMillis, String tables) throws IOException {
    String classPath = Files.readString(Path.of(System.getProperty("catalog.classpath"))).strip()
        + java.io.File.pathSeparator + System.getProperty("catalog.classes");
    Path warehouse = Files.createTempDirectory(Files.createDirectories(Path.of(System.getProperty("catalog.warehouse"))),
        "warehouse");
    List<String> command = new ArrayList<>();
    String cpu = System.getProperty("catalog.cpu");
    if (cpu != null && Files.isExecutable(Path.of("/usr/bin/taskset"))) {
      // a remote catalog's stand-in: the catalog on a core of its own
      command.addAll(List.of("/usr/bin/taskset", "-c", cpu));
    }
    command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", classPath, CatalogProcess.class.getName(), warehouse.toString(), fanOut, Long.toString(latencyMillis), tables));
    return new CatalogServer(new ProcessBuilder(command).redirectErrorStream(true).start());
  }

  String uri() {
    return this.uri;
  }

  /** The plan-task handles of one plan. */
  int handles() {
    return this.handles;
  }

  Counts counts() {
    String[] counts = ask("counts").split(" ");
    return new Counts(Integer.parseInt(counts[1]), Integer.parseInt(counts[2]), Integer.parseInt(counts[3]),
        Integer.parseInt(counts[4]), Long.parseLong(counts[5]) / 1e3, Long.parseLong(counts[6]) / 1e3,
        Long.parseLong(counts[7]) / 1e3);
  }

  void reset() {
    ask("reset");
  }

  private synchronized String ask(String command) {
    try {
      this.commands.write(command + "\n");
      this.commands.flush();
      return answer();
    }
    catch (IOException failed) {
      throw new UncheckedIOException(failed);
    }
  }

  private String answer() {
    try {
      String answer = this.answers.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
      if (answer == null) {
        throw new IllegalStateException("the catalog process gave no answer within " + ANSWER_SECONDS + " s");
      }
      return answer;
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(interrupted);
    }
  }

  /** The process's output: its answers to the queue, its log to this JVM's standard output. */
  private void pump(Process process) {
    try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
        StandardCharsets.UTF_8))) {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(CatalogProcess.PREFIX)) {
          this.answers.put(line.substring(CatalogProcess.PREFIX.length()));
        }
        else {
          System.out.println("[catalog] " + line);
        }
      }
      this.answers.put("EXITED " + process.waitFor());
    }
    catch (IOException | InterruptedException ended) {
      // the process ended with the test
    }
  }

  @Override
  public void close() throws Exception {
    this.commands.close();
    if (!this.process.waitFor(30, TimeUnit.SECONDS)) {
      this.process.destroyForcibly();
    }
  }
}
