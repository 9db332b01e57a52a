package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanPlanningListener;
import io.icebergscan.planning.ScanPlanningObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.StringUtils;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.context.annotation.Bean;
import org.springframework.core.io.ResourceLoader;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.web.reactive.function.client.WebClient;

/** Auto-configuration of the {@link ScanPlanner} and the executor its fan-out runs on. */
@AutoConfiguration(afterName = {
    "org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration",
    "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
    "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
    "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass({ ScanPlanner.class, WebClient.class })
@ConditionalOnBooleanProperty(name = "iceberg.rest.scan-planning.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IcebergRestProperties.class)
public final class ScanPlanningAutoConfiguration {

  /** The name of the planner's executor bean. */
  public static final String EXECUTOR_BEAN_NAME = "icebergScanPlanningExecutor";

  /**
   * Not a default candidate: an ordinary {@code Executor} bean would make Spring Boot drop the
   * application's own {@code applicationTaskExecutor}, and nobody should get this one by type.
   */
  @Bean(name = EXECUTOR_BEAN_NAME, defaultCandidate = false)
  @ConditionalOnMissingBean(name = EXECUTOR_BEAN_NAME)
  @Conditional(OnCatalogUri.class)
  ThreadPoolTaskExecutor icebergScanPlanningExecutor(IcebergRestProperties properties,
      ObjectProvider<ThreadPoolTaskExecutorBuilder> builder) {
    int threads = properties.scanPlanning().maxConcurrency();
    ThreadPoolTaskExecutor executor = builder.getIfAvailable(ThreadPoolTaskExecutorBuilder::new)
        .allowCoreThreadTimeOut(true)
        .threadNamePrefix("iceberg-scan-planning-")
        .awaitTermination(true)
        .awaitTerminationPeriod(Duration.ofSeconds(10))
        .build();
    // Set after build(), which runs the application's executor customizers (a TaskDecorator is welcome):
    // the planner never blocks these threads, so queued work always drains, and a bounded queue would
    // reject a fan-out's tasks instead.
    executor.setCorePoolSize(threads);
    executor.setMaxPoolSize(threads);
    executor.setQueueCapacity(Integer.MAX_VALUE);
    return executor;
  }

  @Bean
  @ConditionalOnMissingBean
  @Conditional(OnCatalogUri.class)
  ScanPlanner icebergScanPlanner(IcebergRestProperties properties,
      @Qualifier(EXECUTOR_BEAN_NAME) Executor executor,
      ObjectProvider<WebClient.Builder> webClientBuilder, ObjectProvider<ObservationRegistry> observationRegistry,
      ObjectProvider<ScanPlanningObservationConvention> observationConvention,
      ObjectProvider<ScanPlanningListener> listeners, ObjectProvider<ScanPlannerBuilderCustomizer> customizers,
      ObjectProvider<SslBundles> sslBundles, ObjectProvider<ScanPlanningHttpClientCustomizer> httpClientCustomizers,
      ResourceLoader resourceLoader) {
    IcebergRestProperties.ScanPlanning planning = properties.scanPlanning();
    ScanPlanner.Builder builder = ScanPlanner.builder()
        .uri(properties.uri())
        .warehouse(properties.warehouse())
        .prefix(properties.prefix())
        .maxConcurrency(planning.maxConcurrency())
        .executor(executor)
        .connectTimeout(properties.connectTimeout())
        .responseTimeout(properties.responseTimeout())
        .requestTimeout(properties.requestTimeout())
        .pollInitialDelay(planning.pollInitialDelay())
        .pollMaxDelay(planning.pollMaxDelay())
        .planTimeout(planning.planTimeout())
        .cancelTimeout(planning.cancelTimeout())
        .streamBufferSize(planning.streamBufferSize())
        .maxResponseBytes((int) planning.maxResponseSize().toBytes())
        .maxRetries(properties.retry().maxRetries())
        .retryInitialDelay(properties.retry().initialDelay())
        .retryMaxDelay(properties.retry().maxDelay());
    properties.headers().forEach(builder::header);
    if (properties.token() != null) {
      builder.header("Authorization", "Bearer " + properties.token());
    }
    WebClient.Builder clients = webClientBuilder.getIfAvailable(WebClient::builder);
    builder.webClientBuilder(clients);
    SslContext sslContext = sslContext(properties, sslBundles);
    if (sslContext != null) {
      builder.sslContext(sslContext);
    }
    httpClientCustomizers.orderedStream().forEach(customizer -> builder.httpClient(customizer::customize));
    if (properties.oauth2().clientId() != null) {
      // its token requests go through the planner's client: the catalog's timeouts, TLS and customizers
      builder.filter(CatalogOAuth2.filter(properties, resourceLoader.getClassLoader()));
    }
    observationRegistry.ifAvailable(builder::observationRegistry);
    observationConvention.ifAvailable(builder::observationConvention);
    listeners.orderedStream().forEach(builder::listener);
    customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
    return builder.build();
  }

  private static @Nullable SslContext sslContext(IcebergRestProperties properties, ObjectProvider<SslBundles> bundles) {
    String name = properties.ssl().bundle();
    if (name == null) {
      return null;
    }
    SslBundles available = bundles.getIfAvailable();
    if (available == null) {
      throw new IllegalStateException("iceberg.rest.ssl.bundle is '" + name + "', but there are no SSL bundles "
          + "(spring.ssl.bundle.*)");
    }
    return CatalogTls.sslContext(name, available.getBundle(name));
  }

  /** {@code iceberg.rest.uri} has a value: an empty one ({@code uri: ${CATALOG_URI:}}) counts as unset. */
  static final class OnCatalogUri extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      // the value itself is not shown: a URI may hold credentials
      return StringUtils.hasText(context.getEnvironment().getProperty("iceberg.rest.uri"))
          ? ConditionOutcome.match("iceberg.rest.uri is set")
          : ConditionOutcome.noMatch("iceberg.rest.uri is not set or empty");
    }
  }
}
