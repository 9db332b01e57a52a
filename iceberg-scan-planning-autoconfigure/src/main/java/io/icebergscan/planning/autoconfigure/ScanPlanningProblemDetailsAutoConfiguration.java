package io.icebergscan.planning.autoconfigure;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Opt-in ({@code iceberg.rest.scan-planning.problem-details.enabled}): the planner's exceptions answer the
 * application's HTTP clients as problem details ({@link ScanPlanningProblemDetails}) in a Spring MVC or WebFlux
 * application, rather than as a bare 500; their messages and types only with
 * {@code iceberg.rest.scan-planning.problem-details.include-message} and {@code include-exception}. Ordered ahead of
 * advice of the application's own at the default order, so that a catch-all handler there does not take these first;
 * a bean of the type replaces it.
 */
@AutoConfiguration
@ConditionalOnWebApplication
@ConditionalOnBooleanProperty("iceberg.rest.scan-planning.problem-details.enabled")
@EnableConfigurationProperties(ScanPlanningProblemDetailsProperties.class)
public final class ScanPlanningProblemDetailsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  @Order(Ordered.LOWEST_PRECEDENCE - 100)
  ScanPlanningProblemDetails scanPlanningProblemDetails(ScanPlanningProblemDetailsProperties properties) {
    return new ScanPlanningProblemDetails(properties.includeMessage(), properties.includeException());
  }
}
