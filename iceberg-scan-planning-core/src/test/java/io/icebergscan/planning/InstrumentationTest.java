package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.ScriptedCatalog.Gate;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.Outcome;
import io.icebergscan.planning.observation.PlanTaskFetchObservationContext;
import io.icebergscan.planning.observation.ScanPlanningObservationContext;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.error;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/** The plan and fetch observations, the in-flight figure and the catalog check. */
class InstrumentationTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final List<ScanPlanner> planners = new ArrayList<>();
  /** Every observation context, in the order its observation stopped. */
  private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  private final ObservationRegistry registry = ObservationRegistry.create();

  private ScanPlanner planner() {
    ObservationRegistry registry = this.registry;
    registry.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStop(Observation.Context context) {
        InstrumentationTest.this.stopped.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ScanPlanningObservationContext || context instanceof PlanTaskFetchObservationContext;
      }
    });
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4)
        .observationRegistry(registry).build();
    this.planners.add(planner);
    return planner;
  }

  private ScanPlanningObservationContext plan() {
    await().atMost(Duration.ofSeconds(10))
        .until(() -> this.stopped.stream().anyMatch(ScanPlanningObservationContext.class::isInstance));
    return this.stopped.stream().filter(ScanPlanningObservationContext.class::isInstance)
        .map(ScanPlanningObservationContext.class::cast).findFirst().orElseThrow();
  }

  private List<PlanTaskFetchObservationContext> fetches() {
    return this.stopped.stream().filter(PlanTaskFetchObservationContext.class::isInstance)
        .map(PlanTaskFetchObservationContext.class::cast).toList();
  }

  @Test
  void aSuccessfulPlanIsObservedWithAChildObservationPerFetch() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a", "b"))))
        .task("a", tasks(List.of("a1", "a2"), List.of()))
        .task("b", tasks(List.of("b1"), List.of()));

    planner().plan(TABLE);

    ScanPlanningObservationContext plan = plan();
    assertThat(plan.getName()).isEqualTo("iceberg.scan.planning");
    assertThat(plan.getContextualName()).isEqualTo("plan scan");
    assertThat(plan.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("outcome", "SUCCESS"),
        KeyValue.of("exception", "none"), KeyValue.of("restricted", "false"), KeyValue.of("identity", "service"));
    assertThat(plan.getHighCardinalityKeyValues()).containsExactly(KeyValue.of("iceberg.table", "db.t"));
    assertThat(plan.tasks()).isEqualTo(4);
    assertThat(plan.planTasksFetched()).isEqualTo(2);
    assertThat(plan.requestsMade()).isEqualTo(3);
    assertThat(fetches()).hasSize(2).allSatisfy(fetch -> {
      assertThat(fetch.getName()).isEqualTo("iceberg.scan.planning.plan.task.fetches");
      assertThat(fetch.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("outcome", "SUCCESS"),
          KeyValue.of("exception", "none"));
      assertThat(fetch.getParentObservation().getContextView()).isSameAs(plan);
    });
    assertThat(fetches()).extracting(PlanTaskFetchObservationContext::planTask).containsExactlyInAnyOrder("a", "b");
  }

  @Test
  void aPlanForARestrictedReadSaysSoAsALowCardinalityKeyAndNothingOfTheRestrictions() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of())));

    planner().plan(TABLE, ScanRequest.builder().restricted(true).build());

    ScanPlanningObservationContext plan = plan();
    assertThat(plan.restricted()).isTrue();
    assertThat(plan.getLowCardinalityKeyValues()).contains(KeyValue.of("restricted", "true"));
    assertThat(plan.getHighCardinalityKeyValues()).containsExactly(KeyValue.of("iceberg.table", "db.t"));
    assertThat(fetches()).allSatisfy(fetch -> assertThat(fetch.getLowCardinalityKeyValues())
        .extracting(KeyValue::getKey).doesNotContain("restricted"));
    // not sent: the catalog's request has no such member
    assertThat(this.catalog.submissions).singleElement().asString().doesNotContain("restricted");
  }

  @Test
  void aCallersPlanSaysSoAsALowCardinalityKeyAndNeverWhoTheCallerIs() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a"))))
        .task("a", tasks(List.of("a1"), List.of()));

    CatalogCredentials alice = CatalogCredentials.bearer("alice-token");
    planner().as(alice).plan(TABLE);

    ScanPlanningObservationContext plan = plan();
    assertThat(plan.caller()).isTrue();
    assertThat(plan.getLowCardinalityKeyValues()).contains(KeyValue.of("identity", "caller"));
    assertThat(plan.getAllKeyValues()).extracting(KeyValue::getValue)
        .noneMatch(value -> value.contains("alice") || value.contains(alice.principal()));
    assertThat(fetches()).singleElement().satisfies(fetch -> assertThat(fetch.getAllKeyValues())
        .extracting(KeyValue::getKey).doesNotContain("identity"));
  }

  @Test
  void aFailedPlanAndItsFailedFetchAreObservedWithTheExceptionType() {
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a"))))
        .task("a", error(500, "ServerError"));

    assertThatThrownBy(() -> planner().plan(TABLE)).isInstanceOf(RestException.class);

    assertThat(plan().getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "FAILURE"),
        KeyValue.of("exception", "RestException"));
    assertThat(fetches()).singleElement().satisfies(fetch -> {
      assertThat(fetch.planTask()).isEqualTo("a");
      assertThat(fetch.getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "FAILURE"),
          KeyValue.of("exception", "RestException"));
    });
  }

  @Test
  void aFetchAbortedAfterAnEarlierFailureIsObservedAsCancelled() {
    Gate never = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a", "b"))))
        .task("a", error(500, "ServerError"))
        .task("b", tasks(List.of("b1"), List.of()).gated(never));

    assertThatThrownBy(() -> planner().plan(TABLE)).isInstanceOf(RestException.class);

    await().atMost(Duration.ofSeconds(10)).until(() -> fetches().size() == 2);
    assertThat(fetches()).filteredOn(fetch -> fetch.planTask().equals("b")).singleElement()
        .satisfies(fetch -> assertThat(fetch.getLowCardinalityKeyValues()).contains(
            KeyValue.of("outcome", "CANCELLED"), KeyValue.of("exception", "none")));
    never.open();
  }

  @Test
  void aPlanTheCallerAbandonsIsObservedAsCancelled() {
    Gate gate = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a"))))
        .task("a", tasks(List.of("a1"), List.of()).gated(gate));
    ScanPlanner planner = planner();

    reactor.core.Disposable subscription = planner.planTasks(TABLE, ScanRequest.all()).subscribe();
    this.catalog.awaitStarted("a");
    subscription.dispose();

    assertThat(plan().getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "CANCELLED"));
    await().atMost(Duration.ofSeconds(10)).until(() -> fetches().size() == 1);
    assertThat(fetches().get(0).getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "CANCELLED"));
    assertThat(this.stopped.indexOf(fetches().get(0))).as("the fetch ends before its plan")
        .isLessThan(this.stopped.indexOf(plan()));
    gate.open();
  }

  @Test
  void anObservationHandlerThatThrowsDisturbsNeitherThePlanNorItsObservations() {
    this.catalog.everyPlan(json(200, completed("p", List.of("root"), List.of("a", "b"))))
        .task("a", tasks(List.of("a1"), List.of()))
        .task("b", tasks(List.of("b1"), List.of()));
    ObservationRegistry registry = ObservationRegistry.create();
    List<Observation.Context> stops = new CopyOnWriteArrayList<>();
    registry.observationConfig()
        // stops are notified in the reverse order of registration: the counter hears each before the failure
        .observationHandler(new ObservationHandler<>() {
          @Override
          public void onStart(Observation.Context context) {
            throw new IllegalStateException("handler bug at start");
          }

          @Override
          public void onStop(Observation.Context context) {
            throw new IllegalStateException("handler bug at stop");
          }

          @Override
          public boolean supportsContext(Observation.Context context) {
            // ours: WebClient's observations are Spring's to guard
            return context instanceof ScanPlanningObservationContext
                || context instanceof PlanTaskFetchObservationContext;
          }
        })
        .observationHandler(new ObservationHandler<>() {
          @Override
          public void onStop(Observation.Context context) {
            stops.add(context);
          }

          @Override
          public boolean supportsContext(Observation.Context context) {
            return true;
          }
        });
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).observationRegistry(registry).build()) {
      assertThat(planner.plan(TABLE).tasks()).hasSize(3);
      assertThat(planner.plan(TABLE).tasks()).as("the planner still plans").hasSize(3);
    }
    // an answered fetch whose stop threw is not stopped again as aborted or failed
    await().atMost(Duration.ofSeconds(10)).until(() -> stops.stream()
        .filter(ScanPlanningObservationContext.class::isInstance).count() == 2);
    assertThat(stops).filteredOn(PlanTaskFetchObservationContext.class::isInstance).hasSize(4).doesNotHaveDuplicates()
        .allSatisfy(fetch -> assertThat(((PlanTaskFetchObservationContext) fetch).outcome()).isEqualTo(Outcome.SUCCESS));
  }

  @Test
  void aPlanThatEndsAtOnceLeavesNoObservationCurrentForTheCallersNextStep() {
    this.catalog.config = "{\"defaults\":{},\"overrides\":{},\"endpoints\":[]}";
    ScanPlanner planner = planner();
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(UnsupportedEndpointException.class);
    List<Object> current = new CopyOnWriteArrayList<>();

    // discovery is cached now: the missing endpoint is found while the stream is being subscribed
    planner.planTasks(TABLE, ScanRequest.all())
        .onErrorResume(failure -> {
          Observation observation = this.registry.getCurrentObservation();
          current.add(observation == null ? "none" : observation.getContextView().getName());
          return reactor.core.publisher.Flux.empty();
        })
        .blockLast(Duration.ofSeconds(10));

    assertThat(current).containsExactly("none");
  }

  @Test
  void requestsInFlightCountsFetchesUnderway() {
    Gate gate = new Gate();
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a", "b", "c"))));
    List.of("a", "b", "c").forEach(h -> this.catalog.task(h, tasks(List.of(h), List.of()).gated(gate)));
    ScanPlanner planner = planner();

    CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> planner.plan(TABLE));
    await().atMost(Duration.ofSeconds(10)).until(() -> planner.requestsInFlight() == 3);
    gate.open();
    plan.join();
    assertThat(planner.requestsInFlight()).isZero();
  }

  @Test
  void theCatalogCheckReportsAdvertisedEndpointsWithoutCredentials() {
    this.catalog.config = "{\"defaults\":{},\"overrides\":{\"prefix\":\"wh\"},\"endpoints\":["
        + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\"]}";
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri().replace("http://", "http://user:secret@"))
        .build();
    this.planners.add(planner);

    CatalogCheck check = planner.checkCatalog(Duration.ofSeconds(5));

    assertThat(check.uri()).isEqualTo(this.catalog.uri()).doesNotContain("secret");
    assertThat(check.prefix()).isEqualTo("wh");
    assertThat(check.supportsPlanning()).isFalse();
    assertThat(check.planningEndpoints())
        .containsEntry(Endpoint.SUBMIT_PLAN, true)
        .containsEntry(Endpoint.FETCH_PLAN_TASKS, false);
  }

  /** A check refused on a non-blocking thread is reported as such, not as a catalog that did not answer. */
  @Test
  void aCatalogCheckOnANonBlockingThreadIsRefusedNotReportedAsATimeout() {
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).build();
    this.planners.add(planner);

    assertThatThrownBy(() -> reactor.core.publisher.Mono.fromCallable(() -> planner.checkCatalog(Duration.ofSeconds(5)))
        .subscribeOn(reactor.core.scheduler.Schedulers.parallel()).block(Duration.ofSeconds(10)))
        .isInstanceOf(IllegalStateException.class).isNotInstanceOf(TransportException.class)
        .hasMessageContaining("non-blocking");
    assertThat(planner.checkCatalog(Duration.ofSeconds(5)).supportsPlanning()).isTrue();
  }

  @Test
  void theCatalogCheckGivesUpAtItsTimeout() throws Exception {
    try (java.net.ServerSocket silent = new java.net.ServerSocket(0)) {
      ScanPlanner planner = ScanPlanner.builder().uri("http://127.0.0.1:" + silent.getLocalPort()).build();
      this.planners.add(planner);
      CompletableFuture<CatalogCheck> check = CompletableFuture.supplyAsync(
          () -> planner.checkCatalog(Duration.ofMillis(300)));
      assertThatThrownBy(() -> check.get(10, java.util.concurrent.TimeUnit.SECONDS))
          .hasCauseInstanceOf(TransportException.class)
          .hasMessageContaining("within PT0.3S");
    }
  }
}
