package io.icebergscan.planning.autoconfigure;

import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Auto-configuration of the metrics of the planner's executor and of the callers' token exchange. The planner's own
 * meters need nothing here: it reports its plan and fetch observations to the {@code ObservationRegistry} bean, whose
 * meter handler turns them into timers.
 */
@AutoConfiguration(after = ScanPlanningAutoConfiguration.class, afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    ScanPlanningMetricsAutoConfiguration.SPRING_BOOT_EXECUTOR_METRICS })
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({ ScanPlanner.class, MeterRegistry.class })
public final class ScanPlanningMetricsAutoConfiguration {

  /** The {@code name} tag of the executor's {@code executor.*} meters: its bean name, as Spring Boot tags others. */
  static final String EXECUTOR_METRICS_NAME = ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME;

  static final String SPRING_BOOT_EXECUTOR_METRICS = ScanPlanningExecutorMeters.SPRING_BOOT_EXECUTOR_METRICS;

  /** The planner's executor, metered by Spring Boot or else here ({@link ScanPlanningExecutorMeters}). */
  @Bean
  @ConditionalOnMissingBean(name = "icebergScanPlanningExecutorMetrics")
  MeterBinder icebergScanPlanningExecutorMetrics(
      @Qualifier(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME) ObjectProvider<Executor> executor,
      ListableBeanFactory beans) {
    return ScanPlanningExecutorMeters.binder(EXECUTOR_METRICS_NAME, executor, beans);
  }

  /** The callers' token exchange ({@link CallerTokenExchangeMeters}), when callers' tokens are exchanged. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(name = CatalogTokenExchange.SPRING_SECURITY_TOKEN_EXCHANGE)
  @ConditionalOnBean(CallerTokenExchange.class)
  static class CallerTokenExchangeMetricsConfiguration {

    @Bean
    @ConditionalOnMissingBean(name = "icebergRestCallerTokenExchangeMetrics")
    MeterBinder icebergRestCallerTokenExchangeMetrics(CallerTokenExchange exchange) {
      return CallerTokenExchangeMeters.binder(exchange::statistics);
    }
  }
}
