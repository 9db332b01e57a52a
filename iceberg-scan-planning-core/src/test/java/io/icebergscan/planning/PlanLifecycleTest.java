package io.icebergscan.planning;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.icebergscan.planning.ScriptedCatalog.Gate;
import io.icebergscan.planning.ScriptedCatalog.Reply;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanFailedException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.internal.planner.PlannerSettings;
import io.icebergscan.planning.model.Endpoint;
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
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

/**
 * Contract point 7, the plan lifecycle: submitted plans are polled with capped, jittered backoff that
 * honours {@code Retry-After}, until completed, failed, cancelled or timed out; an abandoned plan with a
 * {@code plan-id} gets one best-effort {@code DELETE}, only when the catalog advertises it.
 *
 * <p>A {@code DELETE} is sent asynchronously, so "no DELETE" cannot be observed by waiting for nothing.
 * Tests that need it abandon a later <em>marker</em> plan, await its {@code DELETE}, and then require the
 * marker's to be the only one (or the only one after the expected ones).
 */
class PlanLifecycleTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");
  private static final String PLAN_PATH = "/v1/namespaces/db/tables/events/plan";
  private static final String MARKER = "marker-plan";

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final List<ScanPlanner> planners = new ArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  /** Fast polling, and a plan timeout that keeps a broken test from blocking for minutes. */
  private ScanPlanner planner() {
    return planner(builder -> builder);
  }

  private ScanPlanner planner(UnaryOperator<ScanPlanner.Builder> customizer) {
    ScanPlanner.Builder builder = ScanPlanner.builder()
        .uri(this.catalog.uri())
        .maxConcurrency(4)
        .planTimeout(Duration.ofSeconds(20))
        .pollInitialDelay(Duration.ofMillis(5))
        .pollMaxDelay(Duration.ofMillis(10));
    ScanPlanner planner = customizer.apply(builder).build();
    this.planners.add(planner);
    return planner;
  }

  private static Reply submitted(String planId) {
    return json(200, "{\"status\":\"submitted\",\"plan-id\":\"" + planId + "\"}");
  }

  /**
   * A poll answer that keeps the plan submitted. It repeats the plan-id, which the spec's
   * {@code EmptyPlanningResult} does not require (a bare one is accepted too, see
   * {@link #aSubmittedPollAnswerWithoutAPlanIdKeepsThePlanPolling}); these tests pin the lifecycle.
   */
  private static Reply stillSubmitted(String planId) {
    return submitted(planId);
  }

  /**
   * Gets class loading (on a planner with a roomy timeout), then the tight planner's discovery and
   * connection out of the way of tests with tight time bounds.
   */
  private void warmUp(ScanPlanner tight) {
    for (ScanPlanner planner : List.of(planner(), tight)) {
      this.catalog.plan(json(200, completed("warm-up", List.of(), List.of())));
      assertThat(planner.plan(TABLE).tasks()).isEmpty();
    }
  }

  private static String deletePath(String planId) {
    return PLAN_PATH + "/" + planId;
  }

  private static String config(Endpoint... endpoints) {
    return "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
        + Stream.of(endpoints).map(e -> "\"" + e + "\"").collect(Collectors.joining(",")) + "]}";
  }

  private List<String> pollsOf(String planId) {
    return this.catalog.requestsMatching("GET " + PLAN_PATH + "/" + planId);
  }

  /**
   * Abandons a marker plan (completed with a plan-id, its only plan-task unknown to the catalog: 404)
   * and waits for its DELETE, so that every DELETE of earlier plans has had its chance to arrive.
   */
  private void abandonMarkerPlan(ScanPlanner planner) {
    int before = this.catalog.deletes.size();
    this.catalog.plan(json(200, completed(MARKER, List.of(), List.of("marker-task"))));
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(NoSuchPlanTaskException.class);
    this.catalog.awaitDeletes(before + 1);
  }

  // ---- 1. polling to completion -------------------------------------------------------------------

  @Test
  void aSubmittedPlanIsPolledUntilCompletedAndThenWalkedWithoutADelete() {
    this.catalog.plan(submitted("plan-42"))
        .polls(stillSubmitted("plan-42"), stillSubmitted("plan-42"),
            json(200, completed("plan-42", List.of("root.parquet"), List.of("t1"))))
        .task("t1", tasks(List.of("t1.parquet"), List.of()));
    ScanPlanner planner = planner();

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("root.parquet", "t1.parquet");
    assertThat(plan.planId()).isEqualTo("plan-42");
    assertThat(this.catalog.pollTimes).hasSize(3);
    assertThat(pollsOf("plan-42")).hasSize(3);
    // submit + 3 polls + 1 fetch; discovery is not the plan's
    assertThat(plan.statistics().requestsMade()).isEqualTo(5);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(1);
    assertThat(this.catalog.requests).hasSize(1 + 5);
    assertThat(this.catalog.deletes).isEmpty();

    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  // ---- 2. Retry-After --------------------------------------------------------------------------------

  @Test
  void retryAfterInSecondsOnAPollAnswerDelaysTheNextPoll() {
    this.catalog.plan(submitted("ra-1"))
        .polls(stillSubmitted("ra-1").header("Retry-After", "1"),
            json(200, completed("ra-1", List.of("a.parquet"), List.of())));
    ScanPlanner planner = planner(b -> b.pollInitialDelay(Duration.ofMillis(2)).pollMaxDelay(Duration.ofMillis(5)));

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet");
    assertThat(this.catalog.pollTimes).hasSize(2);
    assertThat(gap(0)).isGreaterThanOrEqualTo(Duration.ofMillis(950));
  }

  @Test
  void retryAfterAsAnHttpDateOnAPollAnswerDelaysTheNextPoll() {
    // between 2 and 3 seconds ahead when scripted; the poll that carries it comes well under a second later
    String date = DateTimeFormatter.RFC_1123_DATE_TIME.format(
        ZonedDateTime.now(ZoneOffset.UTC).truncatedTo(ChronoUnit.SECONDS).plusSeconds(3));
    this.catalog.plan(submitted("ra-2"))
        .polls(stillSubmitted("ra-2").header("Retry-After", date),
            json(200, completed("ra-2", List.of("a.parquet"), List.of())));
    ScanPlanner planner = planner(b -> b.pollInitialDelay(Duration.ofMillis(2)).pollMaxDelay(Duration.ofMillis(5)));

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet");
    assertThat(this.catalog.pollTimes).hasSize(2);
    assertThat(gap(0)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void aRetryAfterBeyondThePlanTimeoutFailsAtOnceAsATimeoutEvenWhenNoDurationCanHoldIt() {
    // found by HttpFuzzTest: Mono.delay overflowed on these, and plan() threw an ArithmeticException
    for (String retryAfter : List.of("9223372036854775807", "Fri, 31 Dec 9999 23:59:59 GMT", "3600")) {
      this.catalog.plan(submitted("ra-far").header("Retry-After", retryAfter));
      ScanPlanner planner = planner();
      long started = System.nanoTime();

      assertThatThrownBy(() -> planner.plan(TABLE)).as(retryAfter).isInstanceOf(PlanTimeoutException.class)
          .hasMessageContaining("the catalog asked to poll plan ra-far");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).as(retryAfter).isLessThan(Duration.ofSeconds(10));
    }
    assertThat(this.catalog.pollTimes).isEmpty();
  }

  /** The time between poll {@code index} and the next, as the server saw them. */
  private Duration gap(int index) {
    return Duration.ofNanos(this.catalog.pollTimes.get(index + 1) - this.catalog.pollTimes.get(index));
  }

  // ---- 3. backoff --------------------------------------------------------------------------------------

  @Test
  void pollBackoffGrowsToTheCapAndNoFurther() {
    Reply[] script = new Reply[16];
    for (int i = 0; i < 15; i++) {
      script[i] = stillSubmitted("slow");
    }
    script[15] = json(200, completed("slow", List.of("a.parquet"), List.of()));
    this.catalog.plan(submitted("slow")).polls(script);
    // uncapped, poll 15 would wait 10 ms << 15 (several minutes): the plan timeout would end the test
    ScanPlanner planner = planner(b -> b.pollInitialDelay(Duration.ofMillis(10)).pollMaxDelay(Duration.ofMillis(40)));

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet");
    assertThat(this.catalog.pollTimes).hasSize(16);
    for (int i = 0; i < 15; i++) {
      assertThat(gap(i)).as("gap after poll %d", i).isLessThan(Duration.ofSeconds(1));
    }
    // from poll 2 on the un-jittered delay is the cap (40 ms): at least its lower half is waited
    for (int i = 1; i < 15; i++) {
      assertThat(gap(i)).as("gap after poll %d", i).isGreaterThanOrEqualTo(Duration.ofMillis(20));
    }
  }

  @Test
  void pollDelayIsCappedJitteredInTheUpperHalfAndNeverBelowRetryAfter() {
    PlannerSettings settings = new PlannerSettings(4, Duration.ofMinutes(1), Duration.ofMillis(10),
        Duration.ofMillis(40), Duration.ofSeconds(1), 16, 0);
    Set<Duration> seen = new HashSet<>();
    for (int attempt : new int[] {2, 3, 10, 30, 31, 61, 62, 100, 10_000, Integer.MAX_VALUE}) {
      for (int i = 0; i < 50; i++) {
        Duration delay = settings.pollDelay(attempt, null);
        assertThat(delay).as("attempt %d", attempt).isBetween(Duration.ofMillis(20), Duration.ofMillis(40));
        seen.add(delay);
      }
    }
    assertThat(seen).as("jitter").hasSizeGreaterThan(1);
    for (int i = 0; i < 50; i++) {
      assertThat(settings.pollDelay(0, null)).isBetween(Duration.ofMillis(5), Duration.ofMillis(10));
      assertThat(settings.pollDelay(1, null)).isBetween(Duration.ofMillis(10), Duration.ofMillis(20));
    }
    assertThat(settings.pollDelay(100, Duration.ofSeconds(3))).isEqualTo(Duration.ofSeconds(3));
    assertThat(settings.pollDelay(100, Duration.ofMillis(1))).isBetween(Duration.ofMillis(20), Duration.ofMillis(40));
  }

  // ---- 4, 5. plan timeout ------------------------------------------------------------------------------

  @Test
  void aPlanStillSubmittedAtThePlanTimeoutFailsAndIsDeletedOnce() {
    ScanPlanner planner = planner(b -> b.planTimeout(Duration.ofMillis(300)));
    warmUp(planner);
    // polls answer "submitted" forever (the last scripted answer repeats)
    this.catalog.plan(submitted("p-timeout")).polls(stillSubmitted("p-timeout"));

    long started = System.nanoTime();
    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    assertThat(catchThrowable(() -> unwrap(plan))).isInstanceOf(PlanTimeoutException.class);
    assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(10));
    assertThat(pollsOf("p-timeout")).isNotEmpty();
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-timeout"));

    // the marker gets a planner of its own: the tight plan timeout above is not its to meet
    abandonMarkerPlan(planner());
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-timeout"), deletePath(MARKER));
  }

  @Test
  void thePlanTimeoutDuringTheWalkAbandonsTheFetchInFlightAndDeletesThePlanOnce() {
    Gate never = new Gate();
    ScanPlanner planner = planner(b -> b.planTimeout(Duration.ofMillis(500)));
    warmUp(planner);
    this.catalog.plan(json(200, completed("p-walk", List.of("root.parquet"), List.of("held"))))
        .task("held", tasks(List.of("held.parquet"), List.of()).gated(never));

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    this.catalog.awaitStarted("held");
    assertThat(catchThrowable(() -> unwrap(plan))).isInstanceOf(PlanTimeoutException.class);
    this.catalog.awaitAbandoned("held");
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-walk"));

    // the marker gets a planner of its own: the tight plan timeout above is not its to meet
    abandonMarkerPlan(planner());
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-walk"), deletePath(MARKER));
    never.open();
  }

  // ---- 6. caller cancellation -------------------------------------------------------------------------

  @Test
  void disposingTheStreamWhilePollingDeletesThePlanAndStopsPolling() {
    this.catalog.plan(submitted("p-stream")).polls(stillSubmitted("p-stream"));
    // delays of 10..40 ms: a plan that kept polling would poll several times during the later plan
    ScanPlanner planner = planner(b -> b.pollInitialDelay(Duration.ofMillis(20)).pollMaxDelay(Duration.ofMillis(40)));

    List<String> received = new CopyOnWriteArrayList<>();
    Disposable subscription = planner.planTasks(TABLE, ScanRequest.all())
        .subscribe(task -> received.add(task.dataFile().filePath()));
    await().atMost(Duration.ofSeconds(10)).until(() -> pollsOf("p-stream").size() >= 3);
    subscription.dispose();

    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-stream"));
    int pollsAtDelete = pollsOf("p-stream").size();

    // a later plan that polls five times (at least 90 ms of backoff) on the same planner
    this.catalog.plan(submitted("p-after"))
        .polls(stillSubmitted("p-after"), stillSubmitted("p-after"), stillSubmitted("p-after"),
            stillSubmitted("p-after"),
            json(200, completed("p-after", List.of("after.parquet"), List.of())));
    assertThat(TestTasks.paths(planner.plan(TABLE).tasks())).containsExactly("after.parquet");

    assertThat(pollsOf("p-after")).hasSize(5);
    assertThat(pollsOf("p-stream")).hasSize(pollsAtDelete);
    assertThat(received).isEmpty();
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-stream"));
  }

  @Test
  void interruptingAThreadBlockedInPlanCancelsThePlanAndDeletesIt() throws InterruptedException {
    this.catalog.plan(submitted("p-int")).polls(stillSubmitted("p-int"));
    ScanPlanner planner = planner();

    AtomicReference<Throwable> thrown = new AtomicReference<>();
    AtomicBoolean interruptFlag = new AtomicBoolean();
    AtomicReference<ScanPlan> returned = new AtomicReference<>();
    Thread caller = new Thread(() -> {
      try {
        returned.set(planner.plan(TABLE));
      }
      catch (Throwable failure) {
        thrown.set(failure);
      }
      interruptFlag.set(Thread.currentThread().isInterrupted());
    }, "plan-caller");
    caller.start();
    await().atMost(Duration.ofSeconds(10)).until(() -> !pollsOf("p-int").isEmpty());
    caller.interrupt();
    caller.join(10_000);

    assertThat(caller.isAlive()).isFalse();
    assertThat(returned.get()).isNull();
    assertThat(thrown.get()).isInstanceOf(PlanCancelledException.class);
    assertThat(interruptFlag.get()).as("the caller's interrupt flag is restored").isTrue();
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-int"));

    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-int"), deletePath(MARKER));
  }

  // ---- 7. plans the catalog ends ------------------------------------------------------------------------

  @Test
  void failedFromTheSubmissionIsAPlanFailureWithoutADelete() {
    this.catalog.plan(json(200, "{\"status\":\"failed\",\"plan-id\":\"p-failed\",\"error\":"
        + "{\"message\":\"the planner ran out of memory\",\"type\":\"PlanningOutOfMemory\",\"code\":500}}"));
    ScanPlanner planner = planner();

    PlanFailedException failure = catchThrowableOfType(PlanFailedException.class, () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.errorType()).isEqualTo("PlanningOutOfMemory");
    assertThat(failure).hasMessageContaining("the planner ran out of memory");
    assertThat(this.catalog.pollTimes).isEmpty();
    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  @Test
  void failedFromAPollIsAPlanFailureWithoutADelete() {
    this.catalog.plan(submitted("p-poll-failed"))
        .polls(stillSubmitted("p-poll-failed"), json(200, "{\"status\":\"failed\",\"error\":"
            + "{\"message\":\"snapshot expired while planning\",\"type\":\"SnapshotExpired\",\"code\":500}}"));
    ScanPlanner planner = planner();

    PlanFailedException failure = catchThrowableOfType(PlanFailedException.class, () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.errorType()).isEqualTo("SnapshotExpired");
    assertThat(failure).hasMessageContaining("snapshot expired while planning");
    assertThat(pollsOf("p-poll-failed")).hasSize(2);
    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  @Test
  void cancelledFromAPollIsAPlanCancellationWithoutADelete() {
    this.catalog.plan(submitted("p-poll-cancelled"))
        .polls(stillSubmitted("p-poll-cancelled"), json(200, "{\"status\":\"cancelled\"}"));
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(PlanCancelledException.class);

    assertThat(pollsOf("p-poll-cancelled")).hasSize(2);
    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  // ---- 8. protocol errors in the status --------------------------------------------------------------

  @Test
  void cancelledAsTheAnswerToTheSubmissionIsAProtocolError() {
    this.catalog.plan(json(200, "{\"status\":\"cancelled\",\"plan-id\":\"p-x\"}"));
    ScanPlanner planner = planner();

    MalformedResponseException failure = catchThrowableOfType(MalformedResponseException.class,
        () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.field()).isEqualTo("status");
    assertThat(this.catalog.pollTimes).isEmpty();
  }

  @Test
  void aSubmittedPlanWithoutAPlanIdIsAProtocolError() {
    this.catalog.plan(json(200, "{\"status\":\"submitted\"}"));
    ScanPlanner planner = planner();

    MalformedResponseException failure = catchThrowableOfType(MalformedResponseException.class,
        () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.field()).isEqualTo("plan-id");
    assertThat(this.catalog.pollTimes).isEmpty();
  }

  // ---- 9. walk errors ----------------------------------------------------------------------------------

  @Test
  void aWalkErrorOnACompletedPlanWithAnIdDeletesItOnce() {
    this.catalog.plan(json(200, completed("p-broken", List.of("root.parquet"), List.of("bad"))))
        .task("bad", error(500, "InternalServerError"));
    ScanPlanner planner = planner();

    RestException failure = catchThrowableOfType(RestException.class, () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.planTask()).isEqualTo("bad");
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-broken"));
    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath("p-broken"), deletePath(MARKER));
  }

  @Test
  void aWalkErrorOnACompletedPlanWithoutAnIdSendsNoDelete() {
    this.catalog.plan(json(200, completed(null, List.of("root.parquet"), List.of("bad"))))
        .task("bad", error(500, "InternalServerError"));
    ScanPlanner planner = planner();

    RestException failure = catchThrowableOfType(RestException.class, () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.planTask()).isEqualTo("bad");
    abandonMarkerPlan(planner);
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  // ---- 10. advertised endpoints ------------------------------------------------------------------------

  @Test
  void aSubmittedPlanNeedsTheAdvertisedPollEndpoint() {
    this.catalog.config = config(Endpoint.SUBMIT_PLAN, Endpoint.CANCEL_PLAN, Endpoint.FETCH_PLAN_TASKS);
    this.catalog.plan(submitted("p-no-poll"));
    ScanPlanner planner = planner();

    UnsupportedEndpointException failure = catchThrowableOfType(UnsupportedEndpointException.class,
        () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.endpoint()).hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}");
    assertThat(failure).hasMessageContaining("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}");
    assertThat(this.catalog.pollTimes).isEmpty();
  }

  @Test
  void withoutTheAdvertisedDeleteEndpointAnAbandonedPlanIsNotDeleted() {
    this.catalog.config = config(Endpoint.SUBMIT_PLAN, Endpoint.FETCH_PLAN, Endpoint.FETCH_PLAN_TASKS);
    this.catalog.plan(json(200, completed("p-no-delete", List.of(), List.of("bad"))))
        .task("bad", error(500, "InternalServerError"));
    ScanPlanner withoutDelete = planner();

    assertThatThrownBy(() -> withoutDelete.plan(TABLE)).isInstanceOf(RestException.class);

    // discovery is per planner: a new one sees the full config
    this.catalog.config = ScriptedCatalog.ALL_ENDPOINTS;
    abandonMarkerPlan(planner());
    assertThat(this.catalog.deletes).containsExactly(deletePath(MARKER));
  }

  @Test
  void planTasksNeedTheAdvertisedTasksEndpointAndInlineTasksDoNot() {
    this.catalog.config = config(Endpoint.SUBMIT_PLAN, Endpoint.FETCH_PLAN, Endpoint.CANCEL_PLAN);
    this.catalog.plan(json(200, completed("p-inline", List.of("inline.parquet"), List.of())))
        .plan(json(200, completed("p-no-tasks", List.of("root.parquet"), List.of("t1"))))
        .task("t1", tasks(List.of("t1.parquet"), List.of()));
    ScanPlanner planner = planner();

    assertThat(TestTasks.paths(planner.plan(TABLE).tasks())).containsExactly("inline.parquet");
    UnsupportedEndpointException failure = catchThrowableOfType(UnsupportedEndpointException.class,
        () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.endpoint()).hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks");
    assertThat(this.catalog.fetchOrder).isEmpty();
    assertThat(this.catalog.requests).noneMatch(request -> request.endsWith("/tasks"));
  }

  @Test
  void aCatalogAdvertisingNoEndpointsCannotPlanAndIsNotAsked() {
    this.catalog.config = "{\"defaults\":{},\"overrides\":{}}";
    ScanPlanner planner = planner();

    UnsupportedEndpointException failure = catchThrowableOfType(UnsupportedEndpointException.class,
        () -> planner.plan(TABLE));

    assertThat(failure).isNotNull();
    assertThat(failure.endpoint()).hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan");
    assertThat(this.catalog.requests).containsExactly("GET /v1/config");
    assertThat(this.catalog.requestsMatching("POST")).isEmpty();
  }

  // ---- the poll answer of the spec ------------------------------------------------------------------

  // The answer to GET …/plan/{plan-id} is a FetchPlanningResult: its `submitted` case has no plan-id.
  @Test
  void aSubmittedPollAnswerWithoutAPlanIdKeepsThePlanPolling() {
    this.catalog.plan(submitted("p-spec"))
        .polls(json(200, "{\"status\":\"submitted\"}"), json(200, "{\"status\":\"submitted\"}"),
            json(200, completed("p-spec", List.of("a.parquet"), List.of())));
    ScanPlanner planner = planner();

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet");
    assertThat(pollsOf("p-spec")).hasSize(3);
  }

  // ---- 11. Idempotency-Key ----------------------------------------------------------------------------

  @Test
  void everyPostCarriesItsOwnVersion7IdempotencyKey() {
    this.catalog.plan(submitted("p-keys"))
        .polls(json(200, completed("p-keys", List.of(), List.of("a", "b"))))
        .task("a", tasks(List.of("a.parquet"), List.of("c")))
        .task("b", tasks(List.of("b.parquet"), List.of()))
        .task("c", tasks(List.of("c.parquet"), List.of()));
    ScanPlanner planner = planner();
    long before = System.currentTimeMillis();

    ScanPlan plan = planner.plan(TABLE);
    long after = System.currentTimeMillis();

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet", "b.parquet", "c.parquet");
    // one POST /plan and three POST /tasks; the GETs (config, poll) carry none
    assertThat(this.catalog.requestsMatching("POST")).hasSize(4);
    assertThat(this.catalog.idempotencyKeys).hasSize(4).doesNotHaveDuplicates();
    for (String key : this.catalog.idempotencyKeys) {
      UUID uuid = UUID.fromString(key);
      assertThat(uuid.version()).as(key).isEqualTo(7);
      assertThat(uuid.variant()).as(key).isEqualTo(2);
      // the 48-bit Unix milliseconds of version 7
      assertThat(uuid.getMostSignificantBits() >>> 16).as(key).isBetween(before, after);
    }
  }

  private static ScanPlan unwrap(CompletableFuture<ScanPlan> plan) throws Throwable {
    try {
      return plan.get(30, TimeUnit.SECONDS);
    }
    catch (ExecutionException failed) {
      throw failed.getCause();
    }
  }
}
