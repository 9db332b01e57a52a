package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.observation.PlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationConvention;
import io.micrometer.observation.ObservationRegistry;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.ssl.SslBundles;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.util.ClassUtils;
import org.springframework.util.StringUtils;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The configurations {@link ScanPlanningAutoConfiguration} imports, in this order: where the catalog is, whose
 * identity its requests carry ({@code iceberg.rest.identity}), then the planner, which is configured only when a
 * catalog is known.
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

  /**
   * With {@code iceberg.rest.caller.mode=token-exchange}: the exchange of callers' tokens for tokens of the catalog,
   * and the application's own OAuth2 client credentials it acts with, which the planner authenticates its own calls
   * with too. Without Spring Security's OAuth2 client there is none, and the callers say why.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(IcebergRestConnectionDetails.class)
  @ConditionalOnClass(name = CatalogTokenExchange.SPRING_SECURITY_TOKEN_EXCHANGE)
  @Conditional(OnTokenExchange.class)
  static class CallerTokenExchangeConfiguration {

    @Bean
    CallerTokenExchange icebergRestCallerTokenExchange(IcebergRestProperties properties,
        IcebergRestConnectionDetails connection, ObjectProvider<WebClient.Builder> webClientBuilder,
        ObjectProvider<ScanPlanningHttpClientCustomizer> httpClientCustomizers, ResourceLoader resourceLoader) {
      WebClient tokenClient = TokenEndpointClient.create(properties, CatalogTls.sslContext(connection, properties),
          httpClientCustomizers.orderedStream().toList(), webClientBuilder.getIfAvailable(WebClient::builder));
      return CatalogTokenExchange.create(properties, connection, tokenClient, resourceLoader.getClassLoader());
    }
  }

  /**
   * With {@code iceberg.rest.identity=caller}: each call's caller is the bearer token of the application's Spring
   * Security resource server, unless the application has {@link Callers} of its own. Without Spring Security's
   * resource server there is none, and the planner says why.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnBean(IcebergRestConnectionDetails.class)
  @ConditionalOnClass(name = SpringSecurityCallers.BEARER_TOKEN_AUTHENTICATION)
  @Conditional(OnCallerIdentity.class)
  static class SpringSecurityCallersConfiguration {

    @Bean
    @ConditionalOnMissingBean(Callers.class)
    Callers icebergRestCallers(IcebergRestProperties properties, ObjectProvider<CallerTokenExchange> tokenExchange) {
      if (properties.caller().mode() != IcebergRestProperties.Caller.Mode.TOKEN_EXCHANGE) {
        return SpringSecurityCallers.passingThrough();
      }
      CallerTokenExchange exchange = tokenExchange.getIfAvailable();
      if (exchange == null) {
        throw new IllegalStateException("iceberg.rest.caller.mode is token-exchange, but Spring Security's OAuth2 "
            + "client is not on the classpath: add the dependency "
            + "org.springframework.security:spring-security-oauth2-client");
      }
      return SpringSecurityCallers.exchanging(exchange);
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
        ObjectProvider<ScanPlanningHttpClientCustomizer> httpClientCustomizers, ResourceLoader resourceLoader,
        ObjectProvider<Callers> callers, ObjectProvider<CallerTokenExchange> tokenExchange) {
      ScanPlanner.Builder builder = ScanPlanner.builder().executor(executor);
      new ScanPlannerBuilderConfigurer(properties).configure(builder, connection);
      builder.webClientBuilder(webClientBuilder.getIfAvailable(WebClient::builder));
      SslContext sslContext = CatalogTls.sslContext(connection, properties);
      if (sslContext != null) {
        builder.sslContext(sslContext);
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
      CallerTokenExchange exchange = tokenExchange.getIfAvailable();
      if (exchange != null && clientCredentials != null) {
        // the exchange's actor: one token for the planner's own calls and the exchanges
        builder.filter(exchange.serviceCredentials());
      }
      else if (clientCredentials != null) {
        // its token requests go through the planner's client: the catalog's timeouts, TLS and customizers
        builder.filter(CatalogOAuth2.filter(clientCredentials, properties.oauth2(), connection.getUri(),
            resourceLoader.getClassLoader()));
      }
      if (properties.identity() == IcebergRestProperties.Identity.CALLER) {
        builder.callers(callers(callers.getIfAvailable(), resourceLoader.getClassLoader()));
      }
      observationRegistry.ifAvailable(builder::observationRegistry);
      observationConvention.ifAvailable(builder::observationConvention);
      fetchObservationConvention.ifAvailable(builder::fetchObservationConvention);
      customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
      return builder.build();
    }
  }

  /** The callers a planner of {@code iceberg.rest.identity=caller} plans as: there must be some. */
  private static Callers callers(@Nullable Callers callers, @Nullable ClassLoader classLoader) {
    if (callers != null) {
      return callers;
    }
    if (!ClassUtils.isPresent(SpringSecurityCallers.BEARER_TOKEN_AUTHENTICATION, classLoader)) {
      throw new IllegalStateException("iceberg.rest.identity is caller, whose callers are the bearer tokens of the "
          + "application's Spring Security resource server, but it is not on the classpath: add the dependency "
          + "org.springframework.security:spring-security-oauth2-resource-server (with Spring Boot, "
          + "spring-boot-starter-oauth2-resource-server), or define a bean of type " + Callers.class.getName());
    }
    // the auto-configured callers were left out (their configuration excluded, say)
    throw new IllegalStateException("iceberg.rest.identity is caller, but there is no bean of type "
        + Callers.class.getName());
  }

  /** {@code iceberg.rest.identity} is {@code caller}. */
  static final class OnCallerIdentity extends OnSetting<IcebergRestProperties.Identity> {

    OnCallerIdentity() {
      super("iceberg.rest.identity", IcebergRestProperties.Identity.CALLER);
    }
  }

  /** {@code iceberg.rest.caller.mode} is {@code token-exchange}. */
  static final class OnTokenExchange extends OnSetting<IcebergRestProperties.Caller.Mode> {

    OnTokenExchange() {
      super("iceberg.rest.caller.mode", IcebergRestProperties.Caller.Mode.TOKEN_EXCHANGE);
    }
  }

  /**
   * A setting of {@code iceberg.rest.*} has a value, in any form Spring Boot binds to it ({@code token-exchange},
   * {@code TOKEN_EXCHANGE}), as the properties will have it.
   */
  abstract static class OnSetting<E extends Enum<E>> extends SpringBootCondition {

    private final String property;
    private final E value;

    OnSetting(String property, E value) {
      this.property = property;
      this.value = value;
    }

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      String shown = this.property + " is " + this.value.name().toLowerCase(Locale.ROOT).replace('_', '-');
      return Binder.get(context.getEnvironment()).bind(this.property, this.value.getDeclaringClass())
          .map(this.value::equals).orElse(false)
          ? ConditionOutcome.match(shown)
          : ConditionOutcome.noMatch("not " + shown);
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
