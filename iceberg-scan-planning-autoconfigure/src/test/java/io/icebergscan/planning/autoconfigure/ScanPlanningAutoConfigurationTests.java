package io.icebergscan.planning.autoconfigure;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ScanPlanningAutoConfigurationTests {

  private static final String CONFIG = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class, WebClientAutoConfiguration.class,
          TaskExecutionAutoConfiguration.class));

  private String uri() {
    return "iceberg.rest.uri=" + this.server.url("/catalog").toString();
  }

  private void enqueuePlan() {
    this.server.enqueue(new MockResponse.Builder().code(200).body(CONFIG).build());
    this.server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"completed\",\"plan-id\":\"p\"}").build());
  }

  private List<RecordedRequest> takeRequests(int count) throws InterruptedException {
    List<RecordedRequest> requests = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      RecordedRequest request = this.server.takeRequest(10, TimeUnit.SECONDS);
      assertThat(request).isNotNull();
      requests.add(request);
    }
    return requests;
  }

  @Test
  void aCatalogUriGivesAPlannerOnANamedExecutorSizedFromTheLimit() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.max-concurrency=3").run(context -> {
      assertThat(context).hasSingleBean(ScanPlanner.class);
      assertThat(context.getBean(ScanPlanner.class).maxConcurrency()).isEqualTo(3);
      ThreadPoolTaskExecutor executor = context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME,
          ThreadPoolTaskExecutor.class);
      assertThat(executor.getCorePoolSize()).isEqualTo(3);
      assertThat(executor.getMaxPoolSize()).isEqualTo(3);
      assertThat(executor.getThreadNamePrefix()).isEqualTo("iceberg-scan-planning-");
    });
  }

  @Test
  void theBeanNamesAreTheLibrarysOwnSoAnApplicationsScanPlannerBeanDoesNotClash() {
    this.runner.withPropertyValues(uri()).withBean("scanPlanner", String.class, () -> "the application's")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(ScanPlanner.class);
          assertThat(context.getBeanNamesForType(ScanPlanner.class)).containsExactly("icebergScanPlanner");
        });
  }

  @Test
  void applicationWideExecutorCustomizersCannotBoundThePlannersQueue() {
    ThreadPoolTaskExecutorCustomizer bounded = executor -> {
      executor.setQueueCapacity(10);
      executor.setCorePoolSize(1);
      executor.setMaxPoolSize(1);
    };
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.max-concurrency=3")
        .withBean(ThreadPoolTaskExecutorCustomizer.class, () -> bounded).run(context -> {
          ThreadPoolTaskExecutor executor = context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME,
              ThreadPoolTaskExecutor.class);
          assertThat(executor.getQueueCapacity()).isEqualTo(Integer.MAX_VALUE);
          assertThat(executor.getThreadPoolExecutor().getQueue().remainingCapacity()).isEqualTo(Integer.MAX_VALUE);
          assertThat(executor.getCorePoolSize()).isEqualTo(3);
          assertThat(executor.getMaxPoolSize()).isEqualTo(3);
          assertThat(context.getBean("applicationTaskExecutor", ThreadPoolTaskExecutor.class).getQueueCapacity())
              .as("the application's own executor keeps its customization").isEqualTo(10);
        });
  }

  @Test
  void plansRunOnThePlannersExecutorThroughTheApplicationsWebClientBuilder() {
    enqueuePlan();
    this.runner.withPropertyValues(uri()).withUserConfiguration(HeaderCustomizer.class).run(context -> {
      ScanPlanner planner = context.getBean(ScanPlanner.class);
      ScanPlan plan = planner.plan(TableIdentifier.of("db", "t"));
      assertThat(plan.planId()).isEqualTo("p");
      List<RecordedRequest> requests = takeRequests(2);
      assertThat(requests).allSatisfy(r -> assertThat(r.getHeaders().get("X-Customized")).isEqualTo("by-webclient"));
      assertThat(requests.get(1).getTarget()).isEqualTo("/catalog/v1/namespaces/db/tables/t/plan");
      ThreadPoolTaskExecutor executor = context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME,
          ThreadPoolTaskExecutor.class);
      assertThat(executor.getThreadPoolExecutor().getTaskCount()).as("answers parsed on the planner's executor")
          .isPositive();
    });
  }

  @Test
  void retrySettingsReachThePlanner() throws Exception {
    this.server.enqueue(new MockResponse.Builder().code(200).body(CONFIG).build());
    for (int i = 0; i < 2; i++) {
      this.server.enqueue(new MockResponse.Builder().code(503).body("{}").build());
    }
    this.runner.withPropertyValues(uri(), "iceberg.rest.retry.max-retries=1", "iceberg.rest.retry.initial-delay=1ms")
        .run(context -> {
          assertThatThrownBy(() -> context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t")))
              .isInstanceOf(io.icebergscan.planning.exceptions.RestException.class);
          assertThat(this.server.getRequestCount()).isEqualTo(1 + 2);
        });
  }

  @Test
  void theRequestTimeoutReachesThePlanner() {
    this.server.enqueue(new MockResponse.Builder().code(200).body(CONFIG).build());
    // 200 bytes, 10 every 100 ms: every silence is short, the whole body takes 2 s
    this.server.enqueue(new MockResponse.Builder().code(200).body(" ".repeat(170) + "{\"status\":\"submitted\"}")
        .throttleBody(10, 100, TimeUnit.MILLISECONDS).build());
    this.runner.withPropertyValues(uri(), "iceberg.rest.request-timeout=500ms", "iceberg.rest.response-timeout=10s")
        .run(context -> assertThatThrownBy(() -> context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t")))
            .isInstanceOf(io.icebergscan.planning.exceptions.TransportException.class)
            .hasMessageContaining("request timeout of PT0.5S"));
  }

  @Test
  void theApplicationsOwnTaskExecutorSurvives() {
    this.runner.withPropertyValues(uri()).run(context -> {
      assertThat(context).hasBean("applicationTaskExecutor");
      assertThat(context).hasBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME);
      assertThat(context.getBeanProvider(java.util.concurrent.Executor.class).getIfUnique())
          .isSameAs(context.getBean("applicationTaskExecutor"));
    });
  }

  @Test
  void theExecutorShutsDownWithTheContext() {
    ThreadPoolTaskExecutor[] executor = new ThreadPoolTaskExecutor[1];
    this.runner.withPropertyValues(uri()).run(context -> {
      executor[0] = context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME, ThreadPoolTaskExecutor.class);
      executor[0].execute(() -> { });
    });
    assertThat(executor[0].getThreadPoolExecutor().isShutdown()).isTrue();
  }

  @Test
  void noCatalogUriMeansNoPlannerAndNoExecutor() {
    this.runner.run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).doesNotHaveBean(ScanPlanner.class);
      assertThat(context).doesNotHaveBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME);
    });
  }

  @Test
  void anEmptyCatalogUriIsNoCatalogUri() {
    // uri: ${CATALOG_URI:} with the variable unset
    this.runner.withPropertyValues("iceberg.rest.uri=").run(context -> {
      assertThat(context).hasNotFailed();
      assertThat(context).doesNotHaveBean(ScanPlanner.class);
      assertThat(context).doesNotHaveBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME);
    });
    this.runner.withPropertyValues("iceberg.rest.uri=  ").run(context -> assertThat(context).hasNotFailed()
        .doesNotHaveBean(ScanPlanner.class));
  }

  @Test
  void planningCanBeSwitchedOff() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.enabled=false").run(context -> {
      assertThat(context).doesNotHaveBean(ScanPlanner.class);
      assertThat(context).doesNotHaveBean(IcebergRestProperties.class);
    });
  }

  @Test
  void aMaxConcurrencyBelowOneFailsStartUpWithAClearMessage() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.max-concurrency=0").run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .hasMessageContaining("iceberg.rest.scan-planning.max-concurrency must be at least 1, but was 0");
    });
  }

  @Test
  void aUsersOwnPlannerWins() {
    this.runner.withPropertyValues(uri()).withUserConfiguration(OwnPlanner.class).run(context -> {
      assertThat(context).hasSingleBean(ScanPlanner.class);
      assertThat(context.getBean(ScanPlanner.class)).isSameAs(context.getBean("ownPlanner"));
    });
  }

  @Test
  void aUsersOwnExecutorWins() {
    this.runner.withPropertyValues(uri()).withUserConfiguration(OwnExecutor.class).run(context -> {
      ThreadPoolTaskExecutor executor = context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME,
          ThreadPoolTaskExecutor.class);
      assertThat(executor.getThreadNamePrefix()).isEqualTo("mine-");
    });
  }

  @Test
  void builderCustomizersTokenAndHeadersAreApplied() {
    enqueuePlan();
    this.runner.withPropertyValues(uri(), "iceberg.rest.token=s3cr3t", "iceberg.rest.headers.X-Tenant=acme")
        .withBean(ScanPlannerBuilderCustomizer.class, () -> builder -> builder.header("X-Planner", "customized"))
        .run(context -> {
          context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t"));
          RecordedRequest request = takeRequests(2).get(1);
          assertThat(request.getHeaders().get("Authorization")).isEqualTo("Bearer s3cr3t");
          assertThat(request.getHeaders().get("X-Tenant")).isEqualTo("acme");
          assertThat(request.getHeaders().get("X-Planner")).isEqualTo("customized");
          assertThat(context.getBean(IcebergRestProperties.class).toString()).doesNotContain("s3cr3t")
              .doesNotContain("acme");
        });
  }

  @Test
  void thePropertiesToStringMasksCredentialsInTheUris() {
    this.runner.withPropertyValues("iceberg.rest.uri=https://planner:uri-pw@catalog.example.com/api",
        "iceberg.rest.oauth2.client-id=planner", "iceberg.rest.oauth2.client-secret=secret",
        "iceberg.rest.oauth2.token-uri=https://planner:token-pw@idp.example.com/token").run(context -> {
          String shown = context.getBean(IcebergRestProperties.class).toString();
          assertThat(shown).doesNotContain("uri-pw").doesNotContain("token-pw")
              .contains("https://******@catalog.example.com/api").contains("https://******@idp.example.com/token");
        });
  }

  @Test
  void propertyDefaultsEqualTheCoresDefaults() {
    this.runner.withPropertyValues(uri()).run(context -> {
      IcebergRestProperties properties = context.getBean(IcebergRestProperties.class);
      IcebergRestProperties.ScanPlanning planning = properties.scanPlanning();
      assertThat(properties.connectTimeout()).isEqualTo(ScanPlanner.Builder.DEFAULT_CONNECT_TIMEOUT);
      assertThat(properties.responseTimeout()).isEqualTo(ScanPlanner.Builder.DEFAULT_RESPONSE_TIMEOUT);
      assertThat(properties.requestTimeout()).isEqualTo(ScanPlanner.Builder.DEFAULT_REQUEST_TIMEOUT);
      assertThat(properties.retry().maxRetries()).isEqualTo(ScanPlanner.Builder.DEFAULT_MAX_RETRIES);
      assertThat(properties.retry().initialDelay()).isEqualTo(ScanPlanner.Builder.DEFAULT_RETRY_INITIAL_DELAY);
      assertThat(properties.retry().maxDelay()).isEqualTo(ScanPlanner.Builder.DEFAULT_RETRY_MAX_DELAY);
      assertThat(planning.enabled()).isTrue();
      assertThat(planning.maxConcurrency()).isEqualTo(Runtime.getRuntime().availableProcessors());
      assertThat(planning.pollInitialDelay()).isEqualTo(ScanPlanner.Builder.DEFAULT_POLL_INITIAL_DELAY);
      assertThat(planning.pollMaxDelay()).isEqualTo(ScanPlanner.Builder.DEFAULT_POLL_MAX_DELAY);
      assertThat(planning.planTimeout()).isEqualTo(ScanPlanner.Builder.DEFAULT_PLAN_TIMEOUT);
      assertThat(planning.cancelTimeout()).isEqualTo(ScanPlanner.Builder.DEFAULT_CANCEL_TIMEOUT);
      assertThat(planning.streamBufferSize()).isEqualTo(ScanPlanner.Builder.DEFAULT_STREAM_BUFFER_SIZE);
      assertThat(planning.maxResponseSize().toBytes()).isEqualTo(ScanPlanner.Builder.DEFAULT_MAX_RESPONSE_BYTES);
      assertThat(ScanPlanner.builder().uri("http://localhost").build().maxConcurrency())
          .isEqualTo(planning.maxConcurrency());
    });
  }

  @Test
  void everyPropertyHasADescriptionAndTheDefaultsAreInTheMetadata() throws Exception {
    JsonNode metadata;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated configuration metadata").isNotNull();
      metadata = JsonMapper.builder().build().readTree(in);
    }
    List<String> names = new ArrayList<>();
    for (JsonNode property : metadata.get("properties")) {
      String name = property.get("name").asString();
      names.add(name);
      assertThat(property.path("description").asString("")).as(name).isNotBlank().endsWith(".");
    }
    assertThat(names).contains("iceberg.rest.uri", "iceberg.rest.warehouse", "iceberg.rest.token",
        "iceberg.rest.scan-planning.max-concurrency", "iceberg.rest.scan-planning.plan-timeout",
        "iceberg.rest.scan-planning.enabled");
  }

  @Configuration(proxyBeanMethods = false)
  static class HeaderCustomizer {

    @Bean
    WebClientCustomizer headerCustomizer() {
      return builder -> builder.defaultHeader("X-Customized", "by-webclient");
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnPlanner {

    @Bean
    ScanPlanner ownPlanner() {
      return new ScanPlanner() {
        @Override
        public ScanPlan plan(TableIdentifier table, ScanRequest request) {
          throw new UnsupportedOperationException();
        }

        @Override
        public Flux<io.icebergscan.planning.model.FileScanTask> planTasks(TableIdentifier table,
            ScanRequest request) {
          return Flux.empty();
        }

        @Override
        public int maxConcurrency() {
          return 1;
        }

        @Override
        public int requestsInFlight() {
          return 0;
        }

        @Override
        public CatalogCheck checkCatalog(Duration timeout) {
          throw new UnsupportedOperationException();
        }

        @Override
        public void close() {
        }
      };
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnExecutor {

    @Bean(name = ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME, defaultCandidate = false)
    ThreadPoolTaskExecutor icebergScanPlanningExecutor() {
      ThreadPoolTaskExecutor executor = new ThreadPoolTaskExecutor();
      executor.setThreadNamePrefix("mine-");
      return executor;
    }
  }
}
