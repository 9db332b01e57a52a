package io.icebergscan.planning;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.SerialWalkOracle.Outcome;
import io.icebergscan.planning.model.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;

/** Many callers on one planner, and thousands of plans in a row, over real HTTP. */
class LoadTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final ExecutorService callers = Executors.newFixedThreadPool(64);
  private List<String> expected;

  /** A 1 -> 6 -> 36 tree with repeated handles (a diamond and a back edge) and tasks on every node. */
  @BeforeEach
  void serveOneShape() {
    Map<String, Outcome> graph = new LinkedHashMap<>();
    List<String> level1 = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      List<String> children = new ArrayList<>();
      for (int j = 0; j < 6; j++) {
        children.add("n" + i + "-" + j);
      }
      children.add("n0-0");
      level1.add("n" + i);
      graph.put("n" + i, Outcome.answer(List.of("n" + i + ".parquet"), children));
      for (int j = 0; j < 6; j++) {
        graph.put("n" + i + "-" + j, Outcome.answer(List.of("n" + i + "-" + j + ".parquet"), j == 5 ? List.of("n0") : List.of()));
      }
    }
    graph.forEach((handle, outcome) -> this.catalog.task(handle, tasks(outcome.tasks(), outcome.children())));
    this.catalog.everyPlan(json(200, completed("p", List.of("root.parquet"), level1)));
    this.expected = SerialWalkOracle.walk(List.of("root.parquet"), level1, graph).tasks();
  }

  @AfterEach
  void close() {
    this.callers.shutdownNow();
    this.catalog.close();
  }

  private static ThreadPoolTaskExecutor executor(int threads) {
    ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
    executor.setCorePoolSize(threads);
    executor.setMaxPoolSize(threads);
    executor.setThreadNamePrefix("load-");
    executor.initialize();
    return executor;
  }

  private List<CompletableFuture<ScanPlan>> planConcurrently(ScanPlanner planner, int plans) {
    List<CompletableFuture<ScanPlan>> futures = new ArrayList<>();
    for (int i = 0; i < plans; i++) {
      futures.add(CompletableFuture.supplyAsync(() -> planner.plan(TABLE), this.callers));
    }
    return futures;
  }

  @Test
  void sixtyFourCallersOnAPlannerOfEightStayWithinItsBoundAndEachGetsTheSerialWalk() throws Exception {
    ThreadPoolTaskExecutor executor = executor(2);
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(8).executor(executor)
        .build()) {
      List<CompletableFuture<ScanPlan>> plans = planConcurrently(planner, 64);
      CompletableFuture.allOf(plans.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);

      for (CompletableFuture<ScanPlan> plan : plans) {
        assertThat(TestTasks.paths(plan.join().tasks())).isEqualTo(this.expected);
      }
      assertThat(this.catalog.maxInFlight()).isLessThanOrEqualTo(8);
      assertThat(this.catalog.fetchOrder).hasSize(64 * 42);
    }
    finally {
      executor.shutdown();
    }
  }

  @Test
  void aSoakOfThousandsOfPlansLeavesNoThreadsOrHeapBehind() throws Exception {
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(8).build()) {
      soak(planner, 200);
      int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
      long heapBefore = retainedHeap();

      soak(planner, 2000);

      int threadsAfter = ManagementFactory.getThreadMXBean().getThreadCount();
      long heapAfter = retainedHeap();
      assertThat(threadsAfter).as("threads after 2,000 more plans").isLessThanOrEqualTo(threadsBefore + 2);
      assertThat(heapAfter - heapBefore).as("heap retained by 2,000 more plans (bytes)")
          .isLessThan(32L * 1024 * 1024);
    }
  }

  /** {@code plans} plans, eight callers at a time, each checked against the serial walk. */
  private void soak(ScanPlanner planner, int plans) throws Exception {
    for (int done = 0; done < plans; done += 8) {
      List<CompletableFuture<ScanPlan>> batch = planConcurrently(planner, 8);
      CompletableFuture.allOf(batch.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      for (CompletableFuture<ScanPlan> plan : batch) {
        assertThat(plan.join().tasks()).hasSize(this.expected.size());
        assertThat(TestTasks.paths(plan.join().tasks())).isEqualTo(this.expected);
      }
      this.catalog.fetchOrder.clear();
      this.catalog.requests.clear();
      this.catalog.answered.clear();
      this.catalog.idempotencyKeys.clear();
    }
  }

  private static long retainedHeap() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    for (int i = 0; i < 3; i++) {
      System.gc();
    }
    return memory.getHeapMemoryUsage().getUsed();
  }
}
