package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.stream.Collectors;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.TestCatalogs;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.DefaultPlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.DefaultScanPlanningObservationConvention;
import io.icebergscan.planning.observation.PlanTaskFetchObservationConvention;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webclient.autoconfigure.WebClientObservationAutoConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Meters after real plans against a scripted catalog, in contexts with and without Micrometer's pieces: the
 * planner's come from its observations through Spring Boot's meter observation handler, the executor's are bound.
 */
@ExtendWith(OutputCaptureExtension.class)
class ScanPlanningMetricsAutoConfigurationTests {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final String EXECUTOR = "icebergScanPlanningExecutor";
  private static final String PLAN = DefaultScanPlanningObservationConvention.NAME;
  private static final String FETCHES = DefaultPlanTaskFetchObservationConvention.NAME;

  private final TestCatalogs.Catalog catalog = TestCatalogs.start();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class, ObservationAutoConfiguration.class,
          ScanPlanningAutoConfiguration.class, ScanPlanningMetricsAutoConfiguration.class))
      .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
      .withPropertyValues("iceberg.rest.uri=" + this.catalog.uri(), "iceberg.rest.scan-planning.max-concurrency=2");

  @AfterEach
  void close() {
    this.catalog.close();
  }

  private static ScanPlan plan(AssertableApplicationContext context) {
    return context.getBean(ScanPlanner.class).plan(TABLE);
  }

  @Test
  void aPlanAndEachFetchAreTimedThroughTheirObservations() {
    this.catalog.completedPlan("plan-1", List.of("root"), List.of("a", "b"))
        .task("a", List.of("a1", "a2"), List.of("c"))
        .task("b", List.of("b1"), List.of())
        .task("c", List.of("c1"), List.of());
    this.runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);

      assertThat(plan(context).tasks()).hasSize(5);

      assertThat(this.catalog.fetches()).isEqualTo(3);
      await().atMost(BOUND).untilAsserted(() -> assertThat(registry.get(PLAN)
          .tag("outcome", "SUCCESS").tag("exception", "none").timer().count()).isEqualTo(1));
      assertThat(registry.get(FETCHES).tag("outcome", "SUCCESS").tag("exception", "none").timer().count())
          .isEqualTo(3);
      assertThat(registry.get(FETCHES).timers()).hasSize(1);
      assertThat(registry.get(PLAN + ".active").longTaskTimer().activeTasks()).isZero();
    });
  }

  @Test
  void theMetersAreTaggedWithBoundedValuesOnly() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("a")).task("a", List.of("a1"), List.of());
    this.runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      plan(context);
      await().atMost(BOUND).until(() -> registry.find(PLAN).timer() != null);

      // ours, and the "error" Micrometer's meter handler adds to every observation's timer (as for HTTP clients); a
      // plan's tells a read under read restrictions apart, and a caller's plan from the service's own
      assertThat(registry.get(PLAN).timer().getId().getTags()).extracting(tag -> tag.getKey())
          .containsExactlyInAnyOrder("outcome", "exception", "error", "restricted", "identity");
      assertThat(registry.get(PLAN).timer().getId().getTag("restricted")).isEqualTo("false");
      assertThat(registry.get(PLAN).timer().getId().getTag("identity")).isEqualTo("service");
      assertThat(registry.get(FETCHES).timer().getId().getTags()).extracting(tag -> tag.getKey())
          .containsExactlyInAnyOrder("outcome", "exception", "error");
    });
  }

  @Test
  void failedFetchesAndPlansAreTaggedWithTheirOutcome() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("bad"))
        .failingTask("bad", 500, "ServiceFailureException");
    this.runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);

      assertThatThrownBy(() -> plan(context)).isInstanceOf(RestException.class);

      await().atMost(BOUND).untilAsserted(() -> assertThat(registry.get(PLAN).tag("outcome", "FAILURE")
          .tag("exception", "RestException").timer().count()).isEqualTo(1));
      assertThat(registry.get(FETCHES).tag("outcome", "FAILURE").tag("exception", "RestException").timer().count())
          .isEqualTo(1);
      assertThat(registry.find(FETCHES).tag("outcome", "SUCCESS").timer()).isNull();
    });
  }

  /** What the former requests-in-flight gauge showed: the fetches' long task timer counts those under way. */
  @Test
  void theActiveFetchesAreTheFetchesInFlight() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("a", "b"));
    Runnable releaseA = this.catalog.heldTask("a", List.of("a1"));
    Runnable releaseB = this.catalog.heldTask("b", List.of("b1"));
    this.runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      CompletableFuture<ScanPlan> plan = CompletableFuture.supplyAsync(() -> plan(context));
      try {
        this.catalog.awaitFetchStarted("a");
        this.catalog.awaitFetchStarted("b");
        await().atMost(BOUND).until(() -> registry.get(FETCHES + ".active").longTaskTimer().activeTasks() == 2);
        assertThat(registry.get(PLAN + ".active").longTaskTimer().activeTasks()).isEqualTo(1);
      }
      finally {
        releaseA.run();
        releaseB.run();
      }
      assertThat(plan.get(BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS).tasks()).hasSize(2);
      await().atMost(BOUND).until(() -> registry.get(FETCHES + ".active").longTaskTimer().activeTasks() == 0);
    });
  }

  @Test
  void aConventionBeanRenamesTheFetchObservationAndItsMeters() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("a")).task("a", List.of("a1"), List.of());
    this.runner.withBean(PlanTaskFetchObservationConvention.class, () -> new DefaultPlanTaskFetchObservationConvention() {
      @Override
      public String getName() {
        return "catalog.fetches";
      }
    }).run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      plan(context);
      await().atMost(BOUND).until(() -> registry.find(PLAN).timer() != null);
      assertThat(registry.get("catalog.fetches").timer().count()).isEqualTo(1);
      assertThat(registry.find(FETCHES).timer()).isNull();
    });
  }

  @Test
  void thePlannersExecutorIsMetered() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("a")).task("a", List.of("a1"), List.of());
    this.runner.run(context -> {
      MeterRegistry registry = context.getBean(MeterRegistry.class);
      assertThat(registry.get("executor.pool.max").tag("name", EXECUTOR).gauge().value()).isEqualTo(2);

      plan(context);

      await().atMost(BOUND).until(() -> registry.get("executor.completed").tag("name", EXECUTOR)
          .functionCounter().count() > 0);
    });
  }

  /**
   * Spring Boot's executor metrics run only when some other Executor bean is there (a bean that is not a
   * default candidate does not satisfy their condition), and then they bind every TaskExecutor,
   * the planner's too. Both use the bean name, so the meters are the same ones, registered once.
   */
  @Test
  void springBootsExecutorMetricsBindThePlannersExecutorOnlyBesideAnotherExecutor() {
    ApplicationContextRunner withoutOwnBinder = this.runner
        .withConfiguration(AutoConfigurations.of(TaskExecutorMetricsAutoConfiguration.class))
        .withBean("icebergScanPlanningExecutorMetrics", MeterBinder.class, () -> registry -> {
        });
    withoutOwnBinder.run(context -> assertThat(executorMeters(context, EXECUTOR)).isEmpty());
    withoutOwnBinder.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class))
        .run(context -> assertThat(executorMeters(context, EXECUTOR)).isNotEmpty());
  }

  @Test
  void besideSpringBootsExecutorMetricsThePlannersExecutorIsMeteredOnce(CapturedOutput output) {
    this.runner.run(context -> {
      List<Meter.Id> ownOnly = executorMeters(context, EXECUTOR);
      this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
          TaskExecutorMetricsAutoConfiguration.class)).run(both -> {
            assertThat(both).hasBean("applicationTaskExecutor");
            assertThat(executorMeters(both, "applicationTaskExecutor")).isNotEmpty();
            assertThat(executorMeters(both, EXECUTOR)).containsExactlyInAnyOrderElementsOf(ownOnly);
            assertThat(both.getBean(MeterRegistry.class).find("executor.pool.max").gauges())
                .extracting(gauge -> gauge.getId().getTag("name"))
                .containsExactlyInAnyOrder("applicationTaskExecutor", EXECUTOR);
          });
    });
    assertThat(output).doesNotContain("already registered");
  }

  @Test
  void aReplacementExecutorThatSpringBootDoesNotMeterIsMeteredHere() {
    this.runner.withConfiguration(AutoConfigurations.of(TaskExecutionAutoConfiguration.class,
        TaskExecutorMetricsAutoConfiguration.class))
        .withBean(EXECUTOR, ExecutorService.class, () -> Executors.newFixedThreadPool(2), definition -> {
          definition.setDestroyMethodName("shutdown");
          // not a default candidate, like the library's own, so the applicationTaskExecutor stays
          ((AbstractBeanDefinition) definition).setDefaultCandidate(false);
        })
        .run(context -> {
          assertThat(context).hasNotFailed().hasBean("applicationTaskExecutor");
          assertThat(executorMeters(context, EXECUTOR)).as("Spring Boot meters only TaskExecutors").isNotEmpty();
        });
  }

  private static List<Meter.Id> executorMeters(AssertableApplicationContext context, String name) {
    return context.getBean(MeterRegistry.class).getMeters().stream()
        .map(Meter::getId)
        .filter(id -> id.getName().startsWith("executor") && name.equals(id.getTag("name")))
        .toList();
  }

  @Test
  void httpClientRequestsAreTaggedWithUriTemplatesWhileTheEncodedUrisAreSent() {
    this.catalog.config(TestCatalogs.ALL_ENDPOINTS.replace("\"overrides\":{}", "\"overrides\":{\"prefix\":\"wh\"}"))
        .submittedPlan("plan-42", List.of("root"), List.of("a"))
        .task("a", List.of("a1"), List.of());
    this.runner.withConfiguration(AutoConfigurations.of(WebClientAutoConfiguration.class,
            WebClientObservationAutoConfiguration.class))
        .withPropertyValues("iceberg.rest.warehouse=my wh")
        .run(context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);

          context.getBean(ScanPlanner.class).plan(TableIdentifier.of(List.of("db"), "web events"));

          String table = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";
          await().atMost(BOUND).untilAsserted(() -> assertThat(uris(registry))
              .containsExactlyInAnyOrder("/v1/config", table + "/plan", table + "/plan/{plan-id}", table + "/tasks"));
          assertThat(this.catalog.requests()).containsSubsequence("GET /v1/config?warehouse=my%20wh",
              "POST /v1/wh/namespaces/db/tables/web%20events/plan",
              "GET /v1/wh/namespaces/db/tables/web%20events/plan/plan-42",
              "POST /v1/wh/namespaces/db/tables/web%20events/tasks");
        });
  }

  private static Set<String> uris(MeterRegistry registry) {
    return registry.find("http.client.requests").timers().stream()
        .map(timer -> timer.getId().getTag("uri"))
        .collect(Collectors.toSet());
  }

  @Test
  void withoutMicrometerOnTheClassPathThePlannerStillWorks() {
    this.catalog.completedPlan("plan-1", List.of(), List.of("a")).task("a", List.of("a1"), List.of());
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
            ScanPlanningMetricsAutoConfiguration.class))
        .withClassLoader(new FilteredClassLoader("io.micrometer.core."))
        .withPropertyValues("iceberg.rest.uri=" + this.catalog.uri())
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(ScanPlanner.class)
              .doesNotHaveBean("icebergScanPlanningExecutorMetrics");
          assertThat(plan(context).tasks()).hasSize(1);
        });
  }

  @Test
  void withoutAMeterRegistryNothingIsMetered() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
            ScanPlanningMetricsAutoConfiguration.class))
        .withPropertyValues("iceberg.rest.uri=" + this.catalog.uri())
        .run(context -> assertThat(context).hasNotFailed().hasSingleBean(ScanPlanner.class)
            .doesNotHaveBean("icebergScanPlanningExecutorMetrics"));
  }

  @Test
  void withoutAPlannerNothingIsMetered() {
    this.runner.withPropertyValues("iceberg.rest.scan-planning.enabled=false")
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ScanPlanner.class)
            .doesNotHaveBean("icebergScanPlanningExecutorMetrics"));
  }

  @Test
  void backsOffFromExecutorMetricsOfTheApplication() {
    MeterBinder own = registry -> {
    };
    this.runner.withBean("icebergScanPlanningExecutorMetrics", MeterBinder.class, () -> own)
        .run(context -> {
          assertThat(context).getBean("icebergScanPlanningExecutorMetrics").isSameAs(own);
          assertThat(executorMeters(context, EXECUTOR)).isEmpty();
        });
  }
}
