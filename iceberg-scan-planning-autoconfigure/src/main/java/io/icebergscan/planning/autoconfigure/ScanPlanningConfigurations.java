package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.observation.PlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.StringUtils;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The configurations {@link ScanPlanningAutoConfiguration} imports, in this order: where the catalog is, then
 * the planner, which is configured only when a catalog is known.
 */
final class ScanPlanningConfigurations {

  private ScanPlanningConfigurations() {
  }

  /** Connection details from {@code iceberg.rest.*}, unless the application or a test has its own. */
  @Configuration(proxyBeanMethods = false)
  static class ConnectionDetailsConfiguration {

    @Bean
    @ConditionalOnMissingBean(IcebergRestConnectionDetails.class)
    @Conditional(OnCatalogUri.class)
    PropertiesIcebergRestConnectionDetails icebergRestConnectionDetails(IcebergRestProperties properties,
        ObjectProvider<SslBundles> sslBundles) {
      return new PropertiesIcebergRestConnectionDetails(properties, sslBundles);
    }
  }

  /** The planner and its executor, for the catalog the connection details name. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(IcebergRestConnectionDetails.class)
  static class PlannerConfiguration {

    /**
     * Not a default candidate: an ordinary {@code Executor} bean would make Spring Boot drop the
     * application's own {@code applicationTaskExecutor}, and nobody should get this one by type.
     */
    @Bean(name = ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME, defaultCandidate = false)
    @ConditionalOnMissingBean(name = ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME)
    ThreadPoolTaskExecutor icebergScanPlanningExecutor(IcebergRestProperties properties,
        ObjectProvider<ThreadPoolTaskExecutorBuilder> builder) {
      int threads = new ScanPlannerBuilderConfigurer(properties).maxConcurrency();
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
    ScanPlanner icebergScanPlanner(IcebergRestProperties properties, IcebergRestConnectionDetails connection,
        @Qualifier(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME) Executor executor,
        ObjectProvider<WebClient.Builder> webClientBuilder, ObjectProvider<ObservationRegistry> observationRegistry,
        ObjectProvider<ScanPlanningObservationConvention> observationConvention,
        ObjectProvider<PlanTaskFetchObservationConvention> fetchObservationConvention,
        ObjectProvider<ScanPlannerBuilderCustomizer> customizers,
        ObjectProvider<ScanPlanningHttpClientCustomizer> httpClientCustomizers, ResourceLoader resourceLoader) {
      ScanPlanner.Builder builder = ScanPlanner.builder().executor(executor);
      new ScanPlannerBuilderConfigurer(properties).configure(builder, connection);
      builder.webClientBuilder(webClientBuilder.getIfAvailable(WebClient::builder));
      SslBundle sslBundle = connection.getSslBundle();
      if (sslBundle != null) {
        builder.sslContext(CatalogTls.sslContext(sslBundle, connection instanceof PropertiesIcebergRestConnectionDetails
            ? "the SSL bundle '" + properties.ssl().bundle() + "' (iceberg.rest.ssl.bundle)"
            : "the SSL bundle of " + connection.getClass().getName()));
      }
      httpClientCustomizers.orderedStream().forEach(customizer -> builder.httpClient(customizer::customize));
      String token = connection.getToken();
      IcebergRestConnectionDetails.ClientCredentials clientCredentials = connection.getClientCredentials();
      if (token != null && clientCredentials != null) {
        throw new IllegalStateException(connection.getClass().getName() + " gives both a token and OAuth2 client "
            + "credentials: choose one way to authenticate");
      }
      if (token != null) {
        builder.header("Authorization", "Bearer " + token);
      }
      if (clientCredentials != null) {
        // its token requests go through the planner's client: the catalog's timeouts, TLS and customizers
        builder.filter(CatalogOAuth2.filter(clientCredentials, properties.oauth2(), connection.getUri(),
            resourceLoader.getClassLoader()));
      }
      observationRegistry.ifAvailable(builder::observationRegistry);
      observationConvention.ifAvailable(builder::observationConvention);
      fetchObservationConvention.ifAvailable(builder::fetchObservationConvention);
      customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
      return builder.build();
    }
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
