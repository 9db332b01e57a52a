package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.concurrent.Executor;

import io.icebergscan.planning.autoconfigure.ScanPlanningExecutorMeters;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
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

/** Auto-configuration of the metrics of the executor rows are read on, as the planner's executor is metered. */
@AutoConfiguration(after = IcebergReadingAutoConfiguration.class, afterName = {
    "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
    "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
    ScanPlanningExecutorMeters.SPRING_BOOT_EXECUTOR_METRICS })
@ConditionalOnClass({ IcebergScanPlanner.class, MeterRegistry.class, ScanPlanningExecutorMeters.class })
@ConditionalOnBean({ IcebergScanPlanner.class, MeterRegistry.class })
public final class IcebergReadingMetricsAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean(name = "icebergScanPlanningReadExecutorMetrics")
  MeterBinder icebergScanPlanningReadExecutorMetrics(
      @Qualifier(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME) ObjectProvider<Executor> executor,
      ListableBeanFactory beans) {
    return ScanPlanningExecutorMeters.binder(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME, executor, beans);
  }
}
