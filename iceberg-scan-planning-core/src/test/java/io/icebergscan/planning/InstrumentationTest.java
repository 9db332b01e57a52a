package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.ScanPlanningListener.Outcome;
import io.icebergscan.planning.ScanPlanningListener.PlanSummary;
import io.icebergscan.planning.ScriptedCatalog.Gate;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
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

/** Observations, listener callbacks, the in-flight figure and the catalog check. */
class InstrumentationTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final List<ScanPlanner> planners = new ArrayList<>();
  private final List<ScanPlanningObservationContext> observed = new CopyOnWriteArrayList<>();
  private final List<PlanSummary> summaries = new CopyOnWriteArrayList<>();
  private final List<String> fetches = new CopyOnWriteArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  private ScanPlanner planner(ScanPlanningListener... extra) {
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<ScanPlanningObservationContext>() {
      @Override
      public void onStop(ScanPlanningObservationContext context) {
        InstrumentationTest.this.observed.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ScanPlanningObservationContext;
      }
    });
    ScanPlanner.Builder builder = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4)
        .observationRegistry(registry)
        .listener(new ScanPlanningListener() {
          @Override
          public void planTaskFetched(TableIdentifier table, Duration duration, ScanPlanningException failure) {
            InstrumentationTest.this.fetches.add(table + (failure == null ? " ok" : " " + failure.planTask()));
          }

          @Override
          public void planFinished(PlanSummary summary) {
            InstrumentationTest.this.summaries.add(summary);
          }
        });
    for (ScanPlanningListener listener : extra) {
      builder.listener(listener);
    }
    ScanPlanner planner = builder.build();
    this.planners.add(planner);
    return planner;
  }

  @Test
  void aSuccessfulPlanIsObservedAndSummarised() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a", "b"))))
        .task("a", tasks(List.of("a1", "a2"), List.of()))
        .task("b", tasks(List.of("b1"), List.of()));

    planner().plan(TABLE);

    await().atMost(Duration.ofSeconds(10)).until(() -> this.summaries.size() == 1);
    ScanPlanningObservationContext context = this.observed.get(0);
    assertThat(context.getName()).isEqualTo("iceberg.scan.planning");
    assertThat(context.getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "SUCCESS"),
        KeyValue.of("exception", "none"));
    assertThat(context.getHighCardinalityKeyValues()).contains(KeyValue.of("iceberg.table", "db.t"));
    assertThat(context.tasks()).isEqualTo(4);
    PlanSummary summary = this.summaries.get(0);
    assertThat(summary.outcome()).isEqualTo(Outcome.SUCCESS);
    assertThat(summary.tasks()).isEqualTo(4);
    assertThat(summary.planTasksFetched()).isEqualTo(2);
    assertThat(summary.requestsMade()).isEqualTo(3);
    assertThat(this.fetches).containsExactlyInAnyOrder("db.t ok", "db.t ok");
  }

  @Test
  void aFailedPlanIsObservedWithItsExceptionType() {
    this.catalog.plan(json(200, completed("p", List.of(), List.of("a"))))
        .task("a", error(500, "ServerError"));

    assertThatThrownBy(() -> planner().plan(TABLE)).isInstanceOf(RestException.class);

    await().atMost(Duration.ofSeconds(10)).until(() -> this.summaries.size() == 1);
    assertThat(this.observed.get(0).getLowCardinalityKeyValues()).contains(KeyValue.of("outcome", "FAILURE"),
        KeyValue.of("exception", "RestException"));
    assertThat(this.summaries.get(0).failure()).isInstanceOf(RestException.class);
    assertThat(this.fetches).containsExactly("db.t a");
  }

  @Test
  void aListenerThatThrowsDoesNotDisturbThePlan() {
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a"))))
        .task("a", tasks(List.of("a1"), List.of()));
    ScanPlanningListener broken = new ScanPlanningListener() {
      @Override
      public void planTaskFetched(TableIdentifier table, Duration duration, ScanPlanningException failure) {
        throw new IllegalStateException("listener bug");
      }

      @Override
      public void planFinished(PlanSummary summary) {
        throw new IllegalStateException("listener bug");
      }
    };

    assertThat(planner(broken).plan(TABLE).tasks()).hasSize(2);
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
        .containsEntry("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan", true)
        .containsEntry("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks", false);
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
