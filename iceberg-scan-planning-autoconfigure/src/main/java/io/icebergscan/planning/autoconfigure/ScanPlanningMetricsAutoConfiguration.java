package io.icebergscan.planning.autoconfigure;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;

import io.icebergscan.planning.ScanPlanner;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Auto-configuration of the metrics of the planner's executor. The planner's own meters need nothing here: it
 * reports its plan and fetch observations to the {@code ObservationRegistry} bean, whose meter handler turns
 * them into timers.
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

  static final String SPRING_BOOT_EXECUTOR_METRICS =
      "org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration";

  /**
   * Spring Boot's task executor metrics cover the planner's executor only when another {@code Executor}
   * bean switches them on (one that is not a default candidate does not), and only a {@code TaskExecutor};
   * otherwise it is bound here, under the name Spring Boot gives it. Binding one that Spring Boot binds too
   * would register every meter twice, which Micrometer warns about.
   */
  @Bean
  @ConditionalOnMissingBean(name = "icebergScanPlanningExecutorMetrics")
  MeterBinder icebergScanPlanningExecutorMetrics(
      @Qualifier(ScanPlanningAutoConfiguration.EXECUTOR_BEAN_NAME) ObjectProvider<Executor> executor,
      ListableBeanFactory beans) {
    // auto-configurations are registered under their class names
    boolean springBootBindsTaskExecutors = beans.containsBean(SPRING_BOOT_EXECUTOR_METRICS);
    return registry -> {
      Executor planners = executor.getIfAvailable();
      if (springBootBindsTaskExecutors && planners instanceof ThreadPoolTaskExecutor) {
        return;
      }
      ExecutorService pool = threadPool(planners);
      if (pool != null) {
        new ExecutorServiceMetrics(pool, EXECUTOR_METRICS_NAME, List.of()).bindTo(registry);
      }
    };
  }

  private static @Nullable ExecutorService threadPool(@Nullable Executor executor) {
    if (executor instanceof ThreadPoolTaskExecutor taskExecutor) {
      try {
        return taskExecutor.getThreadPoolExecutor();
      }
      catch (IllegalStateException notInitialized) {
        return null;
      }
    }
    return executor instanceof ExecutorService service ? service : null;
  }
}
