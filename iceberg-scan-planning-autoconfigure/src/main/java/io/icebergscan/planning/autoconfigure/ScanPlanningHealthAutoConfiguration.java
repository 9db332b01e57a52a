package io.icebergscan.planning.autoconfigure;

import java.time.Duration;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.health.ScanPlanningHealthIndicator;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.health.autoconfigure.contributor.CompositeHealthContributorConfiguration;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the {@link ScanPlanningHealthIndicator}: one for a single {@link ScanPlanner},
 * a composite keyed by bean name for several.
 */
@AutoConfiguration(after = ScanPlanningAutoConfiguration.class,
    afterName = "org.springframework.boot.health.autoconfigure.contributor.HealthContributorAutoConfiguration")
@ConditionalOnClass({ ScanPlanningHealthIndicator.class, ConditionalOnEnabledHealthIndicator.class })
@ConditionalOnBean(ScanPlanner.class)
@EnableConfigurationProperties(IcebergRestProperties.class)
public final class ScanPlanningHealthAutoConfiguration {

  /** The name of the health contributor bean; the health endpoint shows it as {@code icebergScanPlanning}. */
  public static final String HEALTH_INDICATOR_BEAN_NAME = "icebergScanPlanningHealthIndicator";

  /**
   * Nested so that the class conditions above are decided first: Spring loads every condition class of
   * a configuration before evaluating any, and without spring-boot-health the enabled-indicator
   * condition's class cannot be loaded.
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnEnabledHealthIndicator("icebergscanplanning")
  static class HealthIndicatorConfiguration
      extends CompositeHealthContributorConfiguration<ScanPlanningHealthIndicator, ScanPlanner> {

    HealthIndicatorConfiguration(IcebergRestProperties properties) {
      super(planner -> indicator(planner, properties.scanPlanning().healthTimeout()));
    }

    private static ScanPlanningHealthIndicator indicator(ScanPlanner planner, @Nullable Duration timeout) {
      if (timeout == null) {
        return new ScanPlanningHealthIndicator(planner);
      }
      try {
        return new ScanPlanningHealthIndicator(planner, timeout);
      }
      catch (IllegalArgumentException refused) {
        throw new InvalidConfigurationPropertyValueException("iceberg.rest.scan-planning.health-timeout", timeout,
            refused.getMessage());
      }
    }

    @Bean(HEALTH_INDICATOR_BEAN_NAME)
    @ConditionalOnMissingBean(name = { HEALTH_INDICATOR_BEAN_NAME, "icebergScanPlanningHealthContributor" })
    HealthContributor icebergScanPlanningHealthIndicator(ConfigurableListableBeanFactory beanFactory) {
      return createContributor(beanFactory, ScanPlanner.class);
    }
  }
}
