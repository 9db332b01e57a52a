package io.icebergscan.planning.autoconfigure;

import java.io.InputStream;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.health.ScanPlanningHealthIndicator;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.convert.ApplicationConversionService;
import org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.WebClientCustomizer;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.convert.ConversionService;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.unit.DataSize;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

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
  void theReplansPropertyReachesThePlanner() {
    this.server.enqueue(new MockResponse.Builder().code(200).body(CONFIG).build());
    this.server.enqueue(new MockResponse.Builder().code(200)
        .body("{\"status\":\"completed\",\"plan-id\":\"first\",\"plan-tasks\":[\"gone\"]}").build());
    this.server.enqueue(new MockResponse.Builder().code(404)
        .body("{\"error\":{\"message\":\"expired\",\"type\":\"NoSuchPlanTaskException\",\"code\":404}}").build());
    this.server.enqueue(new MockResponse.Builder().code(200).body("{\"status\":\"completed\",\"plan-id\":\"second\"}")
        .build());
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.replans=1").run(context -> {
      ScanPlan plan = context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t"));
      assertThat(plan.planId()).isEqualTo("second");
      assertThat(plan.statistics().replans()).isEqualTo(1);
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
          .isInstanceOf(InvalidConfigurationPropertyValueException.class)
          .hasMessageContaining("iceberg.rest.scan-planning.max-concurrency").hasMessageContaining("'0'")
          .hasMessageContaining("maxConcurrency must be at least 1");
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

  /** {@code token: ${ICEBERG_TOKEN:}} with the variable unset: no token, so no Authorization header at all. */
  @Test
  void anEmptyTokenSendsNoAuthorization() {
    enqueuePlan();
    this.runner.withPropertyValues(uri(), "iceberg.rest.token=${ICEBERG_SCAN_PLANNING_TEST_UNSET_7F3A:}")
        .run(context -> {
          context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t"));
          assertThat(takeRequests(2)).allSatisfy(request ->
              assertThat(request.getHeaders().get("Authorization")).as(request.getTarget()).isNull());
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
  void aRefusedValueNamesItsPropertyWhicheverSettingItIs() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.retry.initial-delay=0s").run(context ->
        assertThat(context.getStartupFailure()).rootCause()
            .hasMessageContaining("iceberg.rest.retry.initial-delay").hasMessageContaining("must be positive"));
    this.runner.withPropertyValues(uri(), "iceberg.rest.scan-planning.max-response-size=3GB").run(context ->
        assertThat(context.getStartupFailure()).rootCause()
            .hasMessageContaining("iceberg.rest.scan-planning.max-response-size").hasMessageContaining("2GB"));
  }

  /** The properties hold only what is set: every default is the builder's, not a second copy in the record. */
  @Test
  void unsetPropertiesStayUnsetSoTheBuildersDefaultsApply() {
    this.runner.withPropertyValues(uri()).run(context -> {
      IcebergRestProperties properties = context.getBean(IcebergRestProperties.class);
      assertThat(unsetComponents(properties)).containsExactlyInAnyOrder("warehouse", "prefix", "token",
          "connectTimeout", "responseTimeout", "requestTimeout", "oauth2.clientId", "oauth2.clientSecret",
          "oauth2.tokenUri", "oauth2.scopes", "oauth2.clientAuthenticationMethod", "oauth2.refreshBefore",
          "oauth2.defaultTokenLifetime", "ssl.bundle", "retry.maxRetries", "retry.initialDelay", "retry.maxDelay",
          "scanPlanning.enabled", "scanPlanning.maxConcurrency", "scanPlanning.pollInitialDelay",
          "scanPlanning.pollMaxDelay", "scanPlanning.planTimeout", "scanPlanning.cancelTimeout",
          "scanPlanning.streamBufferSize", "scanPlanning.maxResponseSize", "scanPlanning.healthTimeout",
          "scanPlanning.replans", "caller.tokenExchange.tokenUri", "caller.tokenExchange.clientId",
          "caller.tokenExchange.clientSecret", "caller.tokenExchange.requestedTokenType",
          "caller.tokenExchange.scopes", "caller.tokenExchange.audience", "caller.tokenExchange.refreshBefore",
          "caller.tokenExchange.cacheSize");
      assertThat(context.getBean(ScanPlanner.class).maxConcurrency())
          .isEqualTo(ScanPlanner.Builder.defaultMaxConcurrency());
      assertThat(context.getBean(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME, ThreadPoolTaskExecutor.class)
          .getMaxPoolSize()).isEqualTo(ScanPlanner.Builder.defaultMaxConcurrency());
    });
  }

  /** The names of the record's leaf components that are null, nested ones as {@code parent.child}. */
  private static List<String> unsetComponents(Record record) throws ReflectiveOperationException {
    List<String> unset = new ArrayList<>();
    for (RecordComponent component : record.getClass().getRecordComponents()) {
      Object value = component.getAccessor().invoke(record);
      if (value instanceof Record nested) {
        unsetComponents(nested).forEach(name -> unset.add(component.getName() + "." + name));
      }
      else if (value == null) {
        unset.add(component.getName());
      }
    }
    return unset;
  }

  /**
   * The defaults the metadata documents (what IDEs and docs/configuration.md show) are the builders' own, and
   * every default of the builders is documented.
   */
  @Test
  void everyDocumentedDefaultIsTheBuildersDefault() throws Exception {
    Map<String, Object> builders = new LinkedHashMap<>();
    builders.put("iceberg.rest.connect-timeout", ScanPlanner.Builder.DEFAULT_CONNECT_TIMEOUT);
    builders.put("iceberg.rest.response-timeout", ScanPlanner.Builder.DEFAULT_RESPONSE_TIMEOUT);
    builders.put("iceberg.rest.request-timeout", ScanPlanner.Builder.DEFAULT_REQUEST_TIMEOUT);
    builders.put("iceberg.rest.retry.max-retries", ScanPlanner.Builder.DEFAULT_MAX_RETRIES);
    builders.put("iceberg.rest.retry.initial-delay", ScanPlanner.Builder.DEFAULT_RETRY_INITIAL_DELAY);
    builders.put("iceberg.rest.retry.max-delay", ScanPlanner.Builder.DEFAULT_RETRY_MAX_DELAY);
    builders.put("iceberg.rest.scan-planning.poll-initial-delay", ScanPlanner.Builder.DEFAULT_POLL_INITIAL_DELAY);
    builders.put("iceberg.rest.scan-planning.poll-max-delay", ScanPlanner.Builder.DEFAULT_POLL_MAX_DELAY);
    builders.put("iceberg.rest.scan-planning.plan-timeout", ScanPlanner.Builder.DEFAULT_PLAN_TIMEOUT);
    builders.put("iceberg.rest.scan-planning.cancel-timeout", ScanPlanner.Builder.DEFAULT_CANCEL_TIMEOUT);
    builders.put("iceberg.rest.scan-planning.stream-buffer-size", ScanPlanner.Builder.DEFAULT_STREAM_BUFFER_SIZE);
    builders.put("iceberg.rest.scan-planning.replans", ScanPlanner.Builder.DEFAULT_REPLANS);
    builders.put("iceberg.rest.scan-planning.max-response-size",
        DataSize.ofBytes(ScanPlanner.Builder.DEFAULT_MAX_RESPONSE_BYTES));
    builders.put("iceberg.rest.oauth2.scopes", List.of(OAuth2ClientCredentials.Builder.DEFAULT_SCOPE));
    builders.put("iceberg.rest.oauth2.refresh-before", OAuth2ClientCredentials.Builder.DEFAULT_REFRESH_BEFORE);
    builders.put("iceberg.rest.oauth2.default-token-lifetime", OAuth2ClientCredentials.Builder.DEFAULT_LIFETIME);
    builders.put("iceberg.rest.scan-planning.health-timeout", ScanPlanningHealthIndicator.DEFAULT_TIMEOUT);
    builders.put("iceberg.rest.caller.token-exchange.refresh-before", CallerTokenExchange.DEFAULT_REFRESH_BEFORE);
    builders.put("iceberg.rest.caller.token-exchange.cache-size", CallerTokenExchange.DEFAULT_CACHE_SIZE);
    builders.put("iceberg.rest.caller.token-exchange.requested-token-type",
        CallerTokenExchange.DEFAULT_REQUESTED_TOKEN_TYPE);
    // what no builder has: the switches' matchIfMissing, and the form of secretInBody(false)
    builders.put("iceberg.rest.scan-planning.enabled", true);
    builders.put("management.health.icebergscanplanning.enabled", true);
    builders.put("iceberg.rest.scan-planning.problem-details.enabled", false);
    builders.put("iceberg.rest.scan-planning.problem-details.include-message", false);
    builders.put("iceberg.rest.scan-planning.problem-details.include-exception", false);
    builders.put("iceberg.rest.oauth2.client-authentication-method", "client_secret_basic");
    // the enums' @DefaultValue, in the form they are written
    builders.put("iceberg.rest.identity", "service");
    builders.put("iceberg.rest.caller.mode", "pass-through");

    Map<String, JsonNode> documented = new LinkedHashMap<>();
    for (JsonNode property : metadata().get("properties")) {
      if (property.has("defaultValue")) {
        documented.put(property.get("name").asString(), property.get("defaultValue"));
      }
    }
    assertThat(documented.keySet()).containsExactlyInAnyOrderElementsOf(builders.keySet());
    ConversionService conversion = ApplicationConversionService.getSharedInstance();
    builders.forEach((name, expected) -> {
      JsonNode value = documented.get(name);
      Object converted = value.isArray()
          ? value.valueStream().map(JsonNode::asString).toList()
          : conversion.convert(value.asString(), expected.getClass());
      assertThat(converted).as(name).isEqualTo(expected);
    });
    List<String> constants = new ArrayList<>();
    for (Class<?> type : List.of(ScanPlanner.Builder.class, OAuth2ClientCredentials.Builder.class,
        ScanPlanningHealthIndicator.class, CallerTokenExchange.class)) {
      for (Field field : type.getFields()) {
        if (Modifier.isStatic(field.getModifiers()) && field.getName().startsWith("DEFAULT_")) {
          constants.add(field.getName());
        }
      }
    }
    assertThat(constants).as("the default constants, each put in the table above")
        .containsExactlyInAnyOrder("DEFAULT_CONNECT_TIMEOUT", "DEFAULT_RESPONSE_TIMEOUT", "DEFAULT_REQUEST_TIMEOUT",
            "DEFAULT_MAX_RETRIES", "DEFAULT_RETRY_INITIAL_DELAY", "DEFAULT_RETRY_MAX_DELAY",
            "DEFAULT_POLL_INITIAL_DELAY", "DEFAULT_POLL_MAX_DELAY", "DEFAULT_PLAN_TIMEOUT", "DEFAULT_CANCEL_TIMEOUT",
            "DEFAULT_STREAM_BUFFER_SIZE", "DEFAULT_MAX_RESPONSE_BYTES", "DEFAULT_REPLANS", "DEFAULT_SCOPE",
            "DEFAULT_REFRESH_BEFORE",
            "DEFAULT_LIFETIME", "DEFAULT_TIMEOUT", "DEFAULT_REFRESH_BEFORE", "DEFAULT_CACHE_SIZE",
            "DEFAULT_REQUESTED_TOKEN_TYPE");
  }

  @Test
  void aConnectionDetailsBeanOfTheUsersWinsOverTheProperties() {
    enqueuePlan();
    this.runner.withPropertyValues("iceberg.rest.uri=http://localhost:1/not-this-one", "iceberg.rest.warehouse=x")
        .withBean(IcebergRestConnectionDetails.class, () -> new IcebergRestConnectionDetails() {
          @Override
          public String getUri() {
            return ScanPlanningAutoConfigurationTests.this.server.url("/catalog").toString();
          }

          @Override
          public String getWarehouse() {
            return "analytics";
          }
        })
        .run(context -> {
          assertThat(context).hasSingleBean(IcebergRestConnectionDetails.class)
              .doesNotHaveBean(PropertiesIcebergRestConnectionDetails.class);
          context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t"));
          List<RecordedRequest> requests = takeRequests(2);
          assertThat(requests.get(0).getTarget()).isEqualTo("/catalog/v1/config?warehouse=analytics");
          assertThat(requests.get(1).getTarget()).isEqualTo("/catalog/v1/namespaces/db/tables/t/plan");
        });
  }

  @Test
  void aConnectionDetailsBeanAloneGivesAPlannerWithoutAnyProperty() {
    this.runner.withBean(IcebergRestConnectionDetails.class, () -> () -> "http://catalog.example.com/api")
        .run(context -> {
          assertThat(context).hasSingleBean(ScanPlanner.class);
          assertThat(context.getBean(ScanPlanner.class).toString()).contains("http://catalog.example.com/api");
        });
  }

  @Test
  void theCatalogUriPropertyBacksTheDefaultConnectionDetails() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.warehouse=wh", "iceberg.rest.prefix=p").run(context -> {
      IcebergRestConnectionDetails details = context.getBean(IcebergRestConnectionDetails.class);
      assertThat(details).isInstanceOf(PropertiesIcebergRestConnectionDetails.class);
      assertThat(details.getUri()).isEqualTo(this.server.url("/catalog").toString());
      assertThat(details.getWarehouse()).isEqualTo("wh");
      assertThat(details.getPrefix()).isEqualTo("p");
    });
  }

  @Test
  void anEmptyWarehouseAndPrefixAreUnsetAsAnEmptyTokenIs() {
    // warehouse: ${ICEBERG_WAREHOUSE:} with the variable unset
    enqueuePlan();
    this.runner.withPropertyValues(uri(), "iceberg.rest.warehouse=", "iceberg.rest.prefix=").run(context -> {
      context.getBean(ScanPlanner.class).plan(TableIdentifier.of("db", "t"));
      List<RecordedRequest> requests = takeRequests(2);
      assertThat(requests.get(0).getTarget()).isEqualTo("/catalog/v1/config");
      assertThat(requests.get(1).getTarget()).isEqualTo("/catalog/v1/namespaces/db/tables/t/plan");
    });
  }

  private static JsonNode metadata() throws Exception {
    try (InputStream in = ScanPlanningAutoConfigurationTests.class
        .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      assertThat(in).as("generated configuration metadata").isNotNull();
      return JsonMapper.builder().build().readTree(in);
    }
  }

  @Test
  void everyPropertyHasADescription() throws Exception {
    List<String> names = new ArrayList<>();
    for (JsonNode property : metadata().get("properties")) {
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
      return new StubPlanner();
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
