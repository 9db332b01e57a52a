package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.walk.ConcurrencyLimiter;
import io.icebergscan.planning.internal.walk.PlanTaskWalk;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.PlanTaskFetchObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** Which threads do the work, and that neither big plans nor many callers can wedge them. */
class PlannerThreadsTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final ExecutorService callers = Executors.newFixedThreadPool(32);

  @AfterEach
  void close() {
    this.callers.shutdownNow();
    this.catalog.close();
  }

  private static ThreadPoolTaskExecutor singleThread() {
    ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
    executor.setCorePoolSize(1);
    executor.setMaxPoolSize(1);
    executor.setThreadNamePrefix("users-own-");
    executor.initialize();
    return executor;
  }

  @Test
  void manyCallersAndALargePlanFinishOnAOneThreadExecutor() throws Exception {
    List<String> handles = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      handles.add("h" + i);
      this.catalog.task("h" + i, tasks(List.of("f" + i), i < 200 ? List.of("h" + i + "-c") : List.of()));
      if (i < 200) {
        this.catalog.task("h" + i + "-c", tasks(List.of("f" + i + "-c"), List.of()));
      }
    }
    for (int p = 0; p < 32; p++) {
      this.catalog.plan(json(200, completed("plan-" + p, List.of(), p == 0 ? handles : handles.subList(0, 20))));
    }
    ThreadPoolTaskExecutor executor = singleThread();
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(8).executor(executor)
        .build()) {
      List<CompletableFuture<ScanPlan>> plans = new ArrayList<>();
      for (int p = 0; p < 32; p++) {
        plans.add(CompletableFuture.supplyAsync(() -> planner.plan(TABLE), this.callers));
      }
      CompletableFuture.allOf(plans.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      assertThat(plans).extracting(plan -> plan.join().tasks().size()).contains(2200).contains(20 + 20)
          .containsOnly(2200, 20 + 20).filteredOn(size -> size == 20 + 20).hasSize(31);
      assertThat(this.catalog.maxInFlight()).isLessThanOrEqualTo(8);
    }
    finally {
      executor.shutdown();
    }
  }

  @Test
  void answersAreHandledOnTheGivenExecutorAndPlansRunWithoutASpringContext() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a", "b"))))
        .task("a", tasks(List.of("a"), List.of()))
        .task("b", tasks(List.of("b"), List.of()));
    ThreadPoolTaskExecutor executor = singleThread();
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).executor(executor).build()) {
      List<String> paths = planner.planTasks(TABLE, ScanRequest.all())
          .doOnNext(task -> threads.add(Thread.currentThread().getName()))
          .map(task -> task.dataFile().filePath())
          .collectList().block(Duration.ofSeconds(30));
      assertThat(paths).containsExactly("root", "a", "b");
      assertThat(threads).allMatch(name -> name.startsWith("users-own-"));
    }
    finally {
      executor.shutdown();
    }
  }

  @Test
  void theDefaultExecutorsThreadsAreNamedForThePlanner() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of())));
    Set<String> threads = ConcurrentHashMap.newKeySet();
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(3).build()) {
      planner.planTasks(TABLE, ScanRequest.all()).doOnNext(task -> threads.add(Thread.currentThread().getName()))
          .blockLast(Duration.ofSeconds(30));
    }
    assertThat(threads).singleElement().asString().startsWith("iceberg-scan-planning-");
  }

  /**
   * A whole plan handles its small answers on the event loop that read them, its large ones on a planner thread
   * ({@code EventLoopsTest}): a fatal error must end the plan on either.
   */
  @ParameterizedTest(name = "{0} tasks an answer")
  @ValueSource(ints = { 1, 100 })
  void anOutOfMemoryErrorWhereAnAnswerIsHandledEndsThePlanInsteadOfLeavingItToTheTimeout(int tasksAnAnswer)
      throws Exception {
    List<String> a = IntStream.range(0, tasksAnAnswer).mapToObj(i -> "a" + i).toList();
    List<String> b = IntStream.range(0, tasksAnAnswer).mapToObj(i -> "b" + i).toList();
    this.catalog.everyPlan(json(200, completed("p", List.of("root"), List.of("a", "b"))))
        .task("a", tasks(a, List.of()))
        .task("b", tasks(b, List.of()));
    AtomicBoolean thrown = new AtomicBoolean();
    // Reactor rethrows JVM-fatal errors instead of signalling them; an observation handler is code run where an
    // answer is handled, when a fetch's observation stops
    ObservationRegistry outOfMemory = ObservationRegistry.create();
    outOfMemory.observationConfig().observationHandler(new ObservationHandler<PlanTaskFetchObservationContext>() {
      @Override
      public void onStop(PlanTaskFetchObservationContext context) {
        if (thrown.compareAndSet(false, true)) {
          throw new OutOfMemoryError("injected");
        }
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof PlanTaskFetchObservationContext;
      }
    });
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(2)
        .planTimeout(Duration.ofMinutes(5)).observationRegistry(outOfMemory).build()) {
      CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE), this.callers);

      assertThatThrownBy(() -> plan.get(30, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(ScanPlanningException.class).hasMessageContaining("OutOfMemoryError")
          .hasCauseInstanceOf(OutOfMemoryError.class);
      // the plan returns without waiting for its aborted fetches: on an event loop their slots are freed just after
      // (the injected error reaches a thread's handler: Awaitility must not rethrow it here)
      await("the walk was cancelled, its slots freed").dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(10))
          .until(() -> planner.requestsInFlight() == 0);
      assertThat(planner.plan(TABLE).tasks()).as("the planner still plans").hasSize(1 + 2 * tasksAnAnswer);
    }
  }

  @Test
  void anOutOfMemoryErrorInTheConsumerWhileTasksAreEmittedFreesTheWalksSlots() {
    this.catalog.everyPlan(json(200, completed("p", List.of(), List.of("a"))))
        .task("a", tasks(List.of("fa"), List.of("b")))
        .task("b", tasks(List.of("fb"), List.of()));
    AtomicBoolean thrown = new AtomicBoolean();
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(1)
        .planTimeout(Duration.ofSeconds(30)).build()) {
      // a's answer is emitted before b is fetched: b's fetch is decided (its slot taken) but not started.
      // Reactor rethrows the error from onNext instead of signalling it, so the stream itself is broken.
      planner.planTasks(TABLE, ScanRequest.all())
          .doOnNext(task -> {
            if (thrown.compareAndSet(false, true)) {
              throw new OutOfMemoryError("injected");
            }
          })
          .subscribe();

      // (the error reaches the planner thread's handler: Awaitility must not rethrow it here)
      await().dontCatchUncaughtExceptions().atMost(Duration.ofSeconds(20))
          .until(() -> thrown.get() && planner.requestsInFlight() == 0);
      assertThat(this.catalog.requestsMatching("POST /v1/namespaces/db/tables/t/tasks")).as("b was never fetched")
          .hasSize(1);
      assertThat(planner.plan(TABLE).tasks()).as("the slot is free for the next plan").hasSize(2);
    }
  }

  @Test
  void aPermitGrantedWhileTheWalkEndsAfterAFatalErrorIsGivenBack() {
    ConcurrencyLimiter limiter = new ConcurrencyLimiter(2);
    ConcurrencyLimiter.Waiter otherPlan = () -> { };
    assertThat(limiter.tryAcquire(otherPlan)).isTrue();
    PlanTaskWalk walk = new PlanTaskWalk(new ScanTasks(TestTasks.tasks(List.of("root")), List.of("a", "b")),
        // a never answers; aborting it is when the other plan releases its permit, which goes to this walk
        (handle, callback) -> limiter::release,
        new PlanTaskWalk.Listener() {
          @Override
          public void onTasks(List<io.icebergscan.planning.model.FileScanTask> tasks) {
            throw new OutOfMemoryError("injected");
          }

          @Override
          public void onComplete() {
          }

          @Override
          public void onError(ScanPlanningException failure) {
          }
        }, limiter, 2, 16);
    walk.start();
    assertThat(limiter.inUse()).as("a runs on the second permit, b waits").isEqualTo(2);

    assertThatThrownBy(() -> walk.request(1)).isInstanceOf(OutOfMemoryError.class);
    assertThat(limiter.inUse()).as("permits in use once everything ended").isZero();
  }

  @Test
  void closeStopsThePlannersThreadsWhateverTheCancelTimeout() {
    this.catalog.everyPlan(json(200, completed("p", List.of(), List.of("a", "b", "c", "d"))))
        .task("a", tasks(List.of("fa"), List.of())).task("b", tasks(List.of("fb"), List.of()))
        .task("c", tasks(List.of("fc"), List.of())).task("d", tasks(List.of("fd"), List.of()));
    for (int i = 0; i < 20; i++) {
      // the DELETEs' grace (the cancel timeout) must not also be all the time the connection pool gets to close
      ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4)
          .cancelTimeout(Duration.ofMillis(1)).build();
      planner.plan(TABLE);
      planner.close();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> Thread.getAllStackTraces().keySet().stream()
        .noneMatch(thread -> thread.isAlive() && thread.getName().startsWith("iceberg-scan-planning-")));
  }

  @Test
  void aPlanAfterCloseFailsTypedAtOnce() {
    this.catalog.everyPlan(json(200, completed("p", List.of("root"), List.of())));
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).build();
    assertThat(planner.plan(TABLE).tasks()).hasSize(1);
    planner.close();

    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("the planner is closed");
    assertThatThrownBy(() -> planner.planTasks(TABLE, ScanRequest.all()).blockLast(Duration.ofSeconds(10)))
        .isExactlyInstanceOf(ScanPlanningException.class).hasMessageContaining("the planner is closed");
  }

  @Test
  void aBlockingPlanOnANonBlockingThreadIsRefused() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of())));
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).build()) {
      // Reactor's parallel threads are non-blocking, as Reactor Netty's event loops (WebFlux handlers) are
      Throwable refused = Mono.fromCallable(() -> planner.plan(TABLE)).subscribeOn(Schedulers.parallel())
          .map(plan -> (Throwable) null).onErrorResume(Mono::just).block(Duration.ofSeconds(30));
      assertThat(refused).isInstanceOf(IllegalStateException.class).hasMessageContaining("non-blocking thread")
          .hasMessageContaining("planTasks()");
      assertThat(this.catalog.requestsMatching("")).as("nothing was sent").isEmpty();
    }
  }

  @Test
  void blockingOnAPlannerThreadIsRefusedInsteadOfDeadlocking() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of())));
    ThreadPoolTaskExecutor executor = singleThread();
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).executor(executor).build()) {
      List<Throwable> refused = new ArrayList<>();
      planner.planTasks(TABLE, ScanRequest.all()).doOnNext(task -> {
        try {
          planner.plan(TABLE);
        }
        catch (IllegalStateException expected) {
          refused.add(expected);
        }
      }).blockLast(Duration.ofSeconds(30));
      assertThat(refused).singleElement().extracting(Throwable::getMessage).asString().contains("planTasks()");
    }
    finally {
      executor.shutdown();
    }
  }
}
