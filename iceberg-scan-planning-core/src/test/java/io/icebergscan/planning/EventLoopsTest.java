package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.PlanTaskFetchObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.netty.channel.EventLoop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.blockhound.BlockHound;
import reactor.netty.http.HttpResources;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Where a plan's answers are handled: a whole plan's small answers on the Netty event loop that read them, its large
 * ones and every answer of a stream on the planner's executor; and, by BlockHound, that nothing the planner does on
 * an event loop blocks it. BlockHound instruments the JVM for good, so this class runs in a Surefire execution of
 * its own ({@code event-loops} in the core's POM).
 */
class EventLoopsTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  /** Every blocking call BlockHound saw on a non-blocking thread, with where it was made. */
  private static final List<String> BLOCKED = new CopyOnWriteArrayList<>();

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  /** The thread each fetch ended on, by handle: where its answer was handled. */
  private final Map<String, String> fetchEndedOn = new ConcurrentHashMap<>();
  private final ObservationRegistry observations = ObservationRegistry.create();

  @BeforeAll
  static void installBlockHound() {
    // Handing a task to the planner's ThreadPoolExecutor takes its lock for a moment (to start a worker, or when the
    // planner is being closed): the hand-off every executor-backed scheduler makes, not a wait on I/O
    BlockHound.install(builder -> builder.allowBlockingCallsInside(ThreadPoolExecutor.class.getName(), "execute")
        .blockingMethodCallback(method -> BLOCKED.add(method + " on "
        + Thread.currentThread().getName() + " at " + Arrays.stream(new Throwable().getStackTrace()).limit(25)
            .map(String::valueOf).collect(Collectors.joining(" < ")))));
  }

  @BeforeEach
  void recordWhereFetchesEnd() {
    BLOCKED.clear();
    this.observations.observationConfig().observationHandler(new ObservationHandler<PlanTaskFetchObservationContext>() {
      @Override
      public void onStop(PlanTaskFetchObservationContext context) {
        EventLoopsTest.this.fetchEndedOn.put(context.planTask(), Thread.currentThread().getName());
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof PlanTaskFetchObservationContext;
      }
    });
  }

  @AfterEach
  void close() {
    this.catalog.close();
  }

  private ScanPlanner planner() {
    return ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).observationRegistry(this.observations)
        .build();
  }

  @Test
  void blockHoundCatchesABlockingCallOnAnEventLoop() throws Exception {
    EventLoop eventLoop = HttpResources.get().onClient(true).next();
    CountDownLatch never = new CountDownLatch(1);

    eventLoop.submit(() -> never.await(1, TimeUnit.MILLISECONDS)).get(10, TimeUnit.SECONDS);

    assertThat(BLOCKED).as("what the other tests find nothing of is found")
        .anySatisfy(call -> assertThat(call).contains("Unsafe#park on reactor-http-"));
  }

  @Test
  void aWholePlansSmallAnswersAreHandledOnEventLoopsAndItsLargeOnesOnThePlannersExecutor() {
    List<String> small = List.of("a", "b", "c", "d", "e", "f");
    // about 200 bytes a task: over 8 KiB
    List<String> manyTasks = IntStream.range(0, 100).mapToObj(i -> "big-" + i).toList();
    List<String> handles = new ArrayList<>(small);
    handles.add("big");
    this.catalog.plan(json(200, completed("p", List.of("root"), handles)));
    small.forEach(handle -> this.catalog.task(handle, tasks(List.of(handle), List.of())));
    this.catalog.task("big", tasks(manyTasks, List.of()));
    assertThat(ScriptedCatalog.scanTasksJson(manyTasks, List.of()).length()).isGreaterThan(8 * 1024);

    try (ScanPlanner planner = planner()) {
      assertThat(planner.plan(TABLE).tasks()).hasSize(1 + small.size() + manyTasks.size());
    }

    small.forEach(handle -> assertThat(this.fetchEndedOn.get(handle)).as(handle).startsWith("reactor-http-"));
    assertThat(this.fetchEndedOn.get("big")).startsWith("iceberg-scan-planning-");
    assertThat(BLOCKED).isEmpty();
  }

  @Test
  void aStreamsAnswersAreHandledOnThePlannersExecutorWhereItsSubscriberMayBlock() {
    List<String> handles = List.of("a", "b", "c");
    this.catalog.plan(json(200, completed("p", List.of("root"), handles)));
    handles.forEach(handle -> this.catalog.task(handle, tasks(List.of(handle), List.of())));
    List<String> subscriberThreads = new CopyOnWriteArrayList<>();

    try (ScanPlanner planner = planner()) {
      assertThat(planner.planTasks(TABLE, ScanRequest.all())
          .doOnNext(task -> subscriberThreads.add(Thread.currentThread().getName()))
          .collectList().block(Duration.ofSeconds(30))).hasSize(4);
    }

    assertThat(this.fetchEndedOn).containsOnlyKeys(handles)
        .allSatisfy((handle, thread) -> assertThat(thread).startsWith("iceberg-scan-planning-"));
    assertThat(subscriberThreads).allSatisfy(thread -> assertThat(thread).startsWith("iceberg-scan-planning-"));
    assertThat(BLOCKED).isEmpty();
  }

  @Test
  void aStreamsFailedExchangeReachesItsSubscriberOnAPlannerThread() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a", "cut"))));
    this.catalog.task("a", tasks(List.of("a"), List.of())).task("cut", ScriptedCatalog.closed());
    List<String> failedOn = new CopyOnWriteArrayList<>();

    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).maxRetries(0)
        .observationRegistry(this.observations).build()) {
      assertThatThrownBy(() -> planner.planTasks(TABLE, ScanRequest.all())
          .doOnError(failure -> failedOn.add(Thread.currentThread().getName()))
          .blockLast(Duration.ofSeconds(30))).isInstanceOf(TransportException.class).hasMessageContaining("cut");
    }

    assertThat(this.fetchEndedOn.get("cut")).startsWith("iceberg-scan-planning-");
    assertThat(failedOn).singleElement().asString().startsWith("iceberg-scan-planning-");
    assertThat(BLOCKED).isEmpty();
  }

  @Test
  void aPlanThatFailsOnAnEventLoopCancelsItsFetchesAndDeletesThePlanWithoutBlocking() {
    this.catalog.plan(json(200, completed("p", List.of(), List.of("gone", "a", "b", "c"))));
    // the first handle in walk order fails; a, b and c, later in it, are cancelled in flight
    List.of("a", "b", "c").forEach(handle -> this.catalog.task(handle, tasks(List.of(handle), List.of())
        .after(Duration.ofSeconds(20))));

    try (ScanPlanner planner = planner()) {
      assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(NoSuchPlanTaskException.class)
          .hasMessageContaining("gone");
      this.catalog.awaitDeletes(1);
    }

    assertThat(this.fetchEndedOn.get("gone")).startsWith("reactor-http-");
    assertThat(BLOCKED).isEmpty();
  }
}
