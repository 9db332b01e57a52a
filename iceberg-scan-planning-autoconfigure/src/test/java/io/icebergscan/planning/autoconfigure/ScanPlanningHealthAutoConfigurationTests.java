package io.icebergscan.planning.autoconfigure;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.health.ScanPlanningHealthIndicator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.health.registry.HealthContributorRegistry;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.SystemEnvironmentPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

class ScanPlanningHealthAutoConfigurationTests {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
          ScanPlanningHealthAutoConfiguration.class));

  private final ApplicationContextRunner withPlanner = this.runner
      .withPropertyValues("iceberg.rest.uri=http://127.0.0.1:9");

  @Test
  void aPlannerGetsAHealthIndicator() {
    this.withPlanner.run(context -> assertThat(context)
        .getBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME)
        .isInstanceOf(ScanPlanningHealthIndicator.class));
  }

  @Test
  void theHealthEndpointNamesItIcebergScanPlanning() {
    this.withPlanner.withConfiguration(AutoConfigurations.of(HealthContributorRegistryAutoConfiguration.class))
        .run(context -> assertThat(
            context.getBean(HealthContributorRegistry.class).getContributor("icebergScanPlanning"))
            .isSameAs(context.getBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME)));
  }

  @Test
  void noPlannerNoHealthIndicator() {
    this.runner.run(context -> assertThat(context).hasNotFailed()
        .doesNotHaveBean(ScanPlanner.class)
        .doesNotHaveBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
  }

  /** Canonically {@code management.health.icebergscanplanning.enabled}; relaxed binding accepts the other forms. */
  @ParameterizedTest
  @ValueSource(strings = { "management.health.icebergscanplanning.enabled",
      "management.health.icebergScanPlanning.enabled", "management.health.iceberg-scan-planning.enabled" })
  void theIndicatorCanBeSwitchedOff(String property) {
    this.withPlanner.withPropertyValues(property + "=false")
        .run(context -> assertThat(context).hasSingleBean(ScanPlanner.class)
            .doesNotHaveBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
  }

  @Test
  void theIndicatorCanBeSwitchedOffByAnEnvironmentVariable() {
    this.withPlanner.withInitializer(context -> context.getEnvironment().getPropertySources().addFirst(
            new SystemEnvironmentPropertySource("systemEnvironment",
                Map.of("MANAGEMENT_HEALTH_ICEBERGSCANPLANNING_ENABLED", "false"))))
        .run(context -> assertThat(context)
            .doesNotHaveBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
  }

  @Test
  void theIndicatorFollowsTheDefaultOfAllHealthIndicators() {
    this.withPlanner.withPropertyValues("management.health.defaults.enabled=false")
        .run(context -> assertThat(context)
            .doesNotHaveBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
    this.withPlanner.withPropertyValues("management.health.defaults.enabled=false",
            "management.health.iceberg-scan-planning.enabled=true")
        .run(context -> assertThat(context)
            .hasBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
  }

  @Test
  void withoutSpringBootHealthTheContextStillStarts() {
    this.withPlanner.withClassLoader(new FilteredClassLoader("org.springframework.boot.health."))
        .run(context -> assertThat(context).hasNotFailed()
            .hasSingleBean(ScanPlanner.class)
            .doesNotHaveBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME));
  }

  @Test
  void backsOffFromAnIndicatorOfTheSameName() {
    this.withPlanner.withUserConfiguration(OwnIndicator.class)
        .run(context -> assertThat(context)
            .getBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME)
            .isSameAs(OwnIndicator.INDICATOR));
  }

  @Test
  void severalPlannersGetACompositeKeyedByBeanName() {
    this.runner.withUserConfiguration(TwoPlanners.class).run(context -> {
      HealthContributor contributor = context.getBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME,
          HealthContributor.class);
      assertThat(contributor).isInstanceOf(CompositeHealthContributor.class);
      CompositeHealthContributor composite = (CompositeHealthContributor) contributor;
      assertThat(composite.getContributor("salesPlanner")).isInstanceOf(ScanPlanningHealthIndicator.class);
      assertThat(composite.getContributor("marketingPlanner")).isInstanceOf(ScanPlanningHealthIndicator.class);
    });
  }

  @Test
  void theCheckWaitsNoLongerThanTheHealthTimeout() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      this.runner.withPropertyValues("iceberg.rest.uri=http://127.0.0.1:" + silent.getLocalPort(),
              "iceberg.rest.scan-planning.health-timeout=250ms")
          .run(context -> {
            HealthIndicator indicator = context.getBean(ScanPlanningHealthAutoConfiguration.HEALTH_INDICATOR_BEAN_NAME,
                HealthIndicator.class);
            Health health = CompletableFuture.supplyAsync(indicator::health).get(10, TimeUnit.SECONDS);
            assertThat(health.getStatus()).isEqualTo(Status.DOWN);
            assertThat((String) health.getDetails().get("error")).contains("within PT0.25S");
          });
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnIndicator {

    static final HealthIndicator INDICATOR = () -> Health.up().build();

    @Bean
    HealthIndicator icebergScanPlanningHealthIndicator() {
      return INDICATOR;
    }
  }

  @Configuration(proxyBeanMethods = false)
  static class TwoPlanners {

    @Bean(destroyMethod = "close")
    ScanPlanner salesPlanner() {
      return ScanPlanner.builder().uri("http://127.0.0.1:9/sales").build();
    }

    @Bean(destroyMethod = "close")
    ScanPlanner marketingPlanner() {
      return ScanPlanner.builder().uri("http://127.0.0.1:9/marketing").build();
    }
  }
}
