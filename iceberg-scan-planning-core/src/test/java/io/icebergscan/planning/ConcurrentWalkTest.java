package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScriptedCatalog.Gate;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.model.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.error;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The walk's timing guarantees, observed by a real HTTP server. */
class ConcurrentWalkTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final List<ScanPlanner> planners = new ArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  private ScanPlanner planner(int maxConcurrency) {
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(maxConcurrency).build();
    this.planners.add(planner);
    return planner;
  }

  private static List<String> handles(String prefix, int count) {
    List<String> handles = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      handles.add(prefix + i);
    }
    return handles;
  }

  @Test
  void theInFlightBoundIsReachedAndNeverExceeded() {
    List<String> handles = handles("h", 40);
    this.catalog.plan(json(200, completed("p", List.of(), handles)));
    Gate gate = new Gate();
    handles.forEach(h -> this.catalog.task(h, tasks(List.of(h + ".parquet"), List.of()).gated(gate)));
    ScanPlanner planner = planner(5);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    await(() -> this.catalog.inFlight() == 5);
    gate.open();

    assertThat(TestTasks.paths(plan.join().tasks())).hasSize(40);
    assertThat(this.catalog.maxInFlight()).isEqualTo(5);
  }

  @Test
  void plansRunningTogetherShareThePlannersBound() {
    Gate gate = new Gate();
    List<CompletableFuture<ScanPlan>> plans = new ArrayList<>();
    ScanPlanner planner = planner(3);
    for (int p = 0; p < 4; p++) {
      List<String> handles = handles("p" + p + "-", 12);
      handles.forEach(h -> this.catalog.task(h, tasks(List.of(h), List.of()).gated(gate)));
      this.catalog.plan(json(200, completed("plan-" + p, List.of(), handles)));
    }
    for (int p = 0; p < 4; p++) {
      plans.add(CompletableFuture.supplyAsync(() -> planner.plan(TABLE, ScanRequest.builder().maxConcurrency(3).build())));
    }
    await(() -> this.catalog.inFlight() == 3);
    gate.open();

    plans.forEach(plan -> assertThat(plan.join().tasks()).hasSize(12));
    assertThat(this.catalog.maxInFlight()).isEqualTo(3);
  }

  @Test
  void aRequestsOwnLimitBoundsItsPlan() {
    List<String> handles = handles("h", 20);
    this.catalog.plan(json(200, completed("p", List.of(), handles)));
    Gate gate = new Gate();
    handles.forEach(h -> this.catalog.task(h, tasks(List.of(h), List.of()).gated(gate)));
    ScanPlanner planner = planner(8);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(
        () -> planner.plan(TABLE, ScanRequest.builder().maxConcurrency(2).build()));
    await(() -> this.catalog.inFlight() == 2);
    gate.open();

    assertThat(plan.join().tasks()).hasSize(20);
    assertThat(this.catalog.maxInFlight()).isEqualTo(2);
  }

  @Test
  void childrenOfAFastHandleStartWhileASlowSiblingOfTheirParentIsInFlight() {
    Gate slow = new Gate();
    this.catalog.plan(json(200, completed("p", List.of("root.parquet"), List.of("slow", "fast"))))
        .task("slow", tasks(List.of("slow.parquet"), List.of("slow-child")).gated(slow))
        .task("fast", tasks(List.of("fast.parquet"), List.of("fast-child-1", "fast-child-2")))
        .task("fast-child-1", tasks(List.of("fc1.parquet"), List.of("grandchild")))
        .task("fast-child-2", tasks(List.of("fc2.parquet"), List.of()))
        .task("grandchild", tasks(List.of("gc.parquet"), List.of()))
        .task("slow-child", tasks(List.of("sc.parquet"), List.of()));
    ScanPlanner planner = planner(4);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    this.catalog.awaitAnswered("grandchild");
    assertThat(this.catalog.answered).doesNotContain("slow");
    slow.open();

    ScanPlan result = plan.join();
    assertThat(TestTasks.paths(result.tasks())).containsExactly("root.parquet", "slow.parquet", "fast.parquet",
        "sc.parquet", "fc1.parquet", "fc2.parquet", "gc.parquet");
    assertThat(result.statistics().planTasksFetched()).isEqualTo(6);
    assertThat(result.statistics().walkDepth()).isEqualTo(3);
    assertThat(result.statistics().requestsMade()).isEqualTo(7);
  }

  @Test
  void whenSlotsAreScarceTheEarliestWalkPositionGoesFirstNotTheEarliestDiscovered() {
    Gate aGate = new Gate();
    Gate bGate = new Gate();
    Gate b1Gate = new Gate();
    // b's children are known long before a's, but a's child comes first in walk order
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a", "b"))))
        .task("a", tasks(List.of(), List.of("a1")).gated(aGate))
        .task("b", tasks(List.of(), List.of("b1", "b2", "b3")).gated(bGate))
        .task("b1", tasks(List.of(), List.of()).gated(b1Gate))
        .task("a1", tasks(List.of(), List.of()))
        .task("b2", tasks(List.of(), List.of()))
        .task("b3", tasks(List.of(), List.of()));
    ScanPlanner planner = planner(2);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    // both on the catalog before b answers: a's request, on a connection of its own, could otherwise reach the
    // catalog after b1's, sent on b's connection as soon as b's answer freed the slot
    this.catalog.awaitStarted("a");
    this.catalog.awaitStarted("b");
    bGate.open();
    this.catalog.awaitStarted("b1");
    aGate.open();
    this.catalog.awaitAnswered("a1");
    b1Gate.open();
    plan.join();

    assertThat(this.catalog.fetchOrder.subList(0, 2)).containsExactlyInAnyOrder("a", "b");
    assertThat(this.catalog.fetchOrder.subList(2, 6)).containsExactly("b1", "a1", "b2", "b3");
  }

  @Test
  void anEarlierHandleFailingSlowlyBeatsALaterOneFailingFast() {
    Gate earlier = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("ok", "early", "late"))))
        .task("ok", tasks(List.of("ok.parquet"), List.of()))
        .task("early", error(404, "NoSuchPlanTaskException").gated(earlier))
        .task("late", error(500, "InternalServerError"));
    ScanPlanner planner = planner(4);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    this.catalog.awaitAnswered("late");
    earlier.open();

    NoSuchPlanTaskException failure = catchThrowableOfType(NoSuchPlanTaskException.class,
        () -> unwrap(plan));
    assertThat(failure.planTask()).isEqualTo("early");
    assertThat(failure.statusCode()).isEqualTo(404);
    assertThat(failure).hasMessageContaining("early");
  }

  @Test
  void aFailureAbortsLaterRequestsLetsEarlierOnesFinishAndReturnsWithoutWaitingForTheRest() {
    Gate earlier = new Gate();
    Gate failure = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("before", "broken", "after"))))
        .task("before", tasks(List.of("before.parquet"), List.of()).gated(earlier))
        // fails once all three reached the server, so that aborting "after" is something it can observe
        .task("broken", error(500, "InternalServerError").gated(failure))
        // would answer long after the test's bounded waits
        .task("after", tasks(List.of("after.parquet"), List.of()).after(Duration.ofMinutes(5)));
    ScanPlanner planner = planner(4);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    this.catalog.awaitStarted("after");
    this.catalog.awaitStarted("before");
    failure.open();
    this.catalog.awaitAbandoned("after");
    assertThat(plan).isNotDone();
    assertThat(this.catalog.abandoned).doesNotContain("before");
    earlier.open();

    RestException thrown = catchThrowableOfType(RestException.class, () -> unwrap(plan));
    assertThat(thrown.planTask()).isEqualTo("broken");
    assertThat(thrown.statusCode()).isEqualTo(500);
    assertThat(this.catalog.answered).contains("before");
    this.catalog.awaitDeletes(1);
  }

  @Test
  void onceTheOutcomeIsDecidedEveryRequestInFlightIsAbortedAndTheCallReturns() {
    Gate failure = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("broken", "slow-1", "slow-2"))))
        .task("broken", error(500, "InternalServerError").gated(failure))
        .task("slow-1", tasks(List.of(), List.of()).after(Duration.ofMinutes(5)))
        .task("slow-2", tasks(List.of(), List.of()).after(Duration.ofMinutes(5)));
    ScanPlanner planner = planner(4);

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    this.catalog.awaitStarted("slow-1");
    this.catalog.awaitStarted("slow-2");
    failure.open();

    assertThatThrownBy(() -> unwrap(plan)).isInstanceOf(RestException.class)
        .extracting(e -> ((RestException) e).planTask()).isEqualTo("broken");
    this.catalog.awaitAbandoned("slow-1");
    this.catalog.awaitAbandoned("slow-2");
  }

  @Test
  void eachHandleIsFetchedOnceAndCyclesEnd() {
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a", "b", "a"))))
        .task("a", tasks(List.of("a.parquet"), List.of("b", "a", "c")))
        .task("b", tasks(List.of("b.parquet"), List.of("a", "c")))
        .task("c", tasks(List.of("c.parquet"), List.of("c", "a")));
    ScanPlanner planner = planner(4);

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet", "b.parquet", "c.parquet");
    assertThat(this.catalog.fetchOrder).hasSize(3).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void streamingEqualsTheBlockingPlan() {
    List<String> handles = handles("h", 30);
    for (int i = 0; i < 2; i++) {
      this.catalog.plan(json(200, completed("p" + i, List.of("root.parquet"), handles)));
    }
    for (int i = 0; i < handles.size(); i++) {
      String handle = handles.get(i);
      List<String> children = i % 3 == 0 ? List.of(handle + "-x", handle + "-y") : List.of();
      this.catalog.task(handle, tasks(List.of(handle + ".parquet"), children).after(Duration.ofMillis(i % 7)));
      children.forEach(c -> this.catalog.task(c, tasks(List.of(c + ".parquet", c + "-2.parquet"), List.of())));
    }
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).streamBufferSize(4).build();
    this.planners.add(planner);

    List<String> blocking = TestTasks.paths(planner.plan(TABLE).tasks());
    List<String> streamed = TestTasks.paths(planner.planTasks(TABLE, ScanRequest.all()).collectList().block());

    assertThat(streamed).isEqualTo(blocking).hasSize(1 + 30 + 2 * 10 * 2);
  }

  @Test
  void eachSubscriptionToAStreamIsAPlanOfItsOwn() {
    this.catalog.everyPlan(json(200, completed("p", List.of("root.parquet"), List.of("a"))))
        .task("a", tasks(List.of("a.parquet"), List.of()));
    reactor.core.publisher.Flux<String> stream = planner(2).planTasks(TABLE, ScanRequest.all())
        .map(task -> task.dataFile().filePath());

    assertThat(stream.collectList().block(Duration.ofSeconds(30))).containsExactly("root.parquet", "a.parquet");
    assertThat(stream.collectList().block(Duration.ofSeconds(30))).containsExactly("root.parquet", "a.parquet");
    assertThat(this.catalog.requestsMatching("POST /v1/namespaces/db/tables/events/plan")).hasSize(2);
    assertThat(this.catalog.fetchOrder).containsExactly("a", "a");
  }

  @Test
  void cancellingTheSubscriptionAbortsInFlightRequestsAndAbandonsThePlan() {
    this.catalog.plan(json(200, completed("plan-7", List.of("root.parquet"), List.of("x", "y"))))
        .task("x", tasks(List.of(), List.of()).after(Duration.ofMinutes(5)))
        .task("y", tasks(List.of(), List.of()).after(Duration.ofMinutes(5)));
    ScanPlanner planner = planner(4);

    List<String> received = new java.util.concurrent.CopyOnWriteArrayList<>();
    Disposable subscription = planner.planTasks(TABLE, ScanRequest.all())
        .subscribe(task -> received.add(task.dataFile().filePath()));
    this.catalog.awaitStarted("x");
    this.catalog.awaitStarted("y");
    subscription.dispose();

    this.catalog.awaitAbandoned("x");
    this.catalog.awaitAbandoned("y");
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly("/v1/namespaces/db/tables/events/plan/plan-7");
    assertThat(received).containsExactly("root.parquet");
  }

  @Test
  void aSlowConsumerHoldsABoundedNumberOfResponses() {
    List<String> handles = handles("h", 50);
    this.catalog.plan(json(200, completed("p", List.of(), handles)));
    handles.forEach(h -> this.catalog.task(h, tasks(List.of(h + ".parquet"), List.of())));
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(2).streamBufferSize(3).build();
    this.planners.add(planner);

    reactor.test.StepVerifier.create(planner.planTasks(TABLE, ScanRequest.all()), 1)
        .expectNextCount(1)
        .then(() -> await(() -> this.catalog.fetchOrder.size() >= 3))
        // an observation window, not a synchronisation: an unbounded walk fetches all 50 well within it
        .expectNoEvent(Duration.ofMillis(300))
        // the buffer, plus the list being emitted and the one the flattening operator prefetches
        .then(() -> assertThat(this.catalog.fetchOrder).hasSizeLessThanOrEqualTo(3 + 2))
        .thenRequest(Long.MAX_VALUE)
        .expectNextCount(49)
        .verifyComplete();
  }

  private static ScanPlan unwrap(CompletableFuture<ScanPlan> plan) throws Throwable {
    try {
      return plan.get(30, TimeUnit.SECONDS);
    }
    catch (java.util.concurrent.ExecutionException failed) {
      throw failed.getCause();
    }
  }

  private static void await(java.util.concurrent.Callable<Boolean> condition) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(condition);
  }
}
