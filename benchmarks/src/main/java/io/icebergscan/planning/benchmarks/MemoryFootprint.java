package io.icebergscan.planning.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Benchmark 5 (not JMH: one run per JVM, since the point is the heap limit): a flat plan of
 * {@code handles} plan-tasks of {@code tasksPerHandle} tasks each (full column stats and deletes, as in
 * {@link ParseTasks}), consumed either by streaming ({@code planTasks}, counting) or by collecting
 * ({@code plan}). Prints whether it completed and the peak heap used (sampled every 2 ms).
 *
 * <pre>
 * java -Xmx96m -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.MemoryFootprint stream
 * java -Xmx96m -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.MemoryFootprint collect
 * </pre>
 */
public final class MemoryFootprint {

  private MemoryFootprint() {
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "stream";
    int handles = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int tasksPerHandle = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int concurrency = args.length > 3 ? Integer.parseInt(args[3]) : 8;
    byte[] config = LatencyCatalog.CONFIG.getBytes(StandardCharsets.UTF_8);
    byte[] plan = ("{\"status\":\"completed\",\"plan-id\":\"mem\",\"plan-tasks\":"
        + IntStream.range(0, handles).mapToObj(i -> "\"h" + i + "\"").collect(Collectors.joining(",", "[", "]")) + "}")
        .getBytes(StandardCharsets.UTF_8);
    // the same body for every handle: tasks are not deduplicated, so each answer adds tasksPerHandle tasks
    byte[] tasks = TasksJson.body(tasksPerHandle, 5);
    LoopResources loops = LoopResources.create("memory-catalog", 1, true);
    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).runOn(loops)
        .handle((request, response) -> {
          String uri = request.uri();
          byte[] body = uri.startsWith("/v1/config") ? config : uri.endsWith("/plan") ? plan : tasks;
          return request.receive().then(response.header("Content-Type", "application/json")
              .header("Content-Length", Integer.toString(body.length)).sendByteArray(Mono.just(body)).then());
        }).bindNow();
    HeapPeak heap = new HeapPeak();
    long max = Runtime.getRuntime().maxMemory();
    String outcome;
    long count = 0;
    long start = System.nanoTime();
    try (ScanPlanner planner = ScanPlanner.builder().uri("http://127.0.0.1:" + server.port())
        .maxConcurrency(concurrency).planTimeout(Duration.ofMinutes(10)).build()) {
      System.gc();
      heap.start(0);
      io.icebergscan.planning.model.TableIdentifier table = io.icebergscan.planning.model.TableIdentifier.of("bench", "memory");
      if (mode.equals("collect")) {
        ScanPlan whole = planner.plan(table, ScanRequest.all());
        count = whole.tasks().size();
      }
      else {
        AtomicLong seen = new AtomicLong();
        planner.planTasks(table, ScanRequest.all()).doOnNext(task -> seen.incrementAndGet()).blockLast();
        count = seen.get();
      }
      outcome = "completed";
    }
    catch (OutOfMemoryError | RuntimeException failure) {
      outcome = "failed: " + failure;
    }
    long elapsed = (System.nanoTime() - start) / 1_000_000;
    long peak = heap.stop();
    System.out.printf("mode=%s handles=%d tasksPerHandle=%d tasks=%d maxHeapMiB=%d peakHeapUsedMiB=%.1f elapsedMs=%d outcome=%s%n",
        mode, handles, tasksPerHandle, count, max >> 20, peak / 1048576.0, elapsed, outcome);
    server.disposeNow();
    loops.disposeLater().block(Duration.ofSeconds(5));
  }
}
