package io.icebergscan.planning.iceberg.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.autoconfigure.UnresolvedPlaceholderException;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.task.ThreadPoolTaskExecutorBuilder;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * Auto-configuration of the {@link IcebergScanPlanner}, which reads the plans of the {@link ScanPlanner} bean, and of
 * the executor it reads rows on.
 */
@AutoConfiguration(after = ScanPlanningAutoConfiguration.class)
@ConditionalOnClass(IcebergScanPlanner.class)
@ConditionalOnSingleCandidate(ScanPlanner.class)
@EnableConfigurationProperties(IcebergReadingProperties.class)
public final class IcebergReadingAutoConfiguration {

  /** The name of the executor rows are read on. */
  public static final String READ_EXECUTOR_BEAN_NAME = "icebergScanPlanningReadExecutor";

  private static final String PREFIX = "iceberg.rest.scan-planning.iceberg.";

  /**
   * Not a default candidate: an ordinary {@code Executor} bean would make Spring Boot drop the application's own
   * {@code applicationTaskExecutor}, and nobody should get this one by type. As many threads as tasks are read at
   * once: reads never block them waiting for a consumer, so queued work always drains.
   */
  @Bean(name = READ_EXECUTOR_BEAN_NAME, defaultCandidate = false)
  @ConditionalOnMissingBean(name = READ_EXECUTOR_BEAN_NAME)
  ThreadPoolTaskExecutor icebergScanPlanningReadExecutor(IcebergReadingProperties properties,
      ObjectProvider<ThreadPoolTaskExecutorBuilder> builder) {
    int threads = properties.readConcurrency() != null ? properties.readConcurrency()
        : IcebergScanPlanner.Builder.DEFAULT_READ_CONCURRENCY;
    ThreadPoolTaskExecutor executor = builder.getIfAvailable(ThreadPoolTaskExecutorBuilder::new)
        .allowCoreThreadTimeOut(true)
        .threadNamePrefix("iceberg-scan-planning-read-")
        .awaitTermination(true)
        .awaitTerminationPeriod(Duration.ofSeconds(10))
        .build();
    // Set after build(), which runs the application's executor customizers (a TaskDecorator is welcome); a size
    // the builder refuses fails start-up below, where the planner is built
    if (threads >= 1) {
      executor.setCorePoolSize(threads);
      executor.setMaxPoolSize(threads);
    }
    executor.setQueueCapacity(Integer.MAX_VALUE);
    return executor;
  }

  /**
   * Named apart from the planner's auto-configured {@code ScanPlanner}, whose bean is {@code icebergScanPlanner}:
   * a bean of that name here would clash with it.
   */
  @Bean
  @ConditionalOnMissingBean
  IcebergScanPlanner icebergReadingScanPlanner(ScanPlanner planner, IcebergReadingProperties properties,
      @Qualifier(READ_EXECUTOR_BEAN_NAME) Executor readExecutor) {
    IcebergScanPlanner.Builder builder = IcebergScanPlanner.builder(planner)
        .fileIoProperties(resolved(properties.fileIo())).readExecutor(readExecutor);
    PropertyMapper map = PropertyMapper.get();
    map.from(properties.splitSize()).to(size -> checked("split-size", size, () -> builder.splitSize(size.toBytes())));
    map.from(properties.readConcurrency())
        .to(concurrency -> checked("read-concurrency", concurrency, () -> builder.readConcurrency(concurrency)));
    map.from(properties.readBuffer())
        .to(size -> checked("read-buffer", size, () -> builder.readBufferBytes(size.toBytes())));
    map.from(properties.scanReports()).to(builder::scanReports);
    map.from(properties.vendedCredentials()).to(builder::vendedCredentials);
    return builder.build();
  }

  /**
   * The FileIO properties hold credentials ({@code s3.secret-access-key}, …): refused, as the planner's own
   * credentials are, when one still holds a {@code ${…}} placeholder that nothing resolved, which would otherwise
   * reach the object store as it is.
   */
  private static Map<String, String> resolved(Map<String, String> fileIo) {
    UnresolvedPlaceholderException.throwIfUnresolvedIn(PREFIX + "file-io", fileIo);
    return fileIo;
  }

  /** The builder checks each value; one it refuses fails start-up naming the property, as the planner's do. */
  private static void checked(String property, Object value, Runnable set) {
    try {
      set.run();
    }
    catch (IllegalArgumentException refused) {
      throw new InvalidConfigurationPropertyValueException(PREFIX + property, value, refused.getMessage());
    }
  }
}
