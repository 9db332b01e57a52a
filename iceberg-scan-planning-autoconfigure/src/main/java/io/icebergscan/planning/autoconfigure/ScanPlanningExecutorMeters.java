package io.icebergscan.planning.autoconfigure;

import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;

import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;

/**
 * The {@code executor.*} meters of an executor bean of this project's (the planner's, the iceberg module's reading
 * executor), under the name Spring Boot gives the executors it meters: the bean's name.
 *
 * <p>Spring Boot's task executor metrics cover such an executor only when another {@code Executor} bean switches them
 * on (one that is not a default candidate, as this project's are, does not), and only a {@code TaskExecutor};
 * otherwise it is bound here. Binding one that Spring Boot binds too would register every meter twice, which
 * Micrometer warns about.
 */
public final class ScanPlanningExecutorMeters {

  /** Spring Boot's own executor metrics, by the name its auto-configuration is registered under. */
  public static final String SPRING_BOOT_EXECUTOR_METRICS =
      "org.springframework.boot.micrometer.metrics.autoconfigure.task.TaskExecutorMetricsAutoConfiguration";

  private ScanPlanningExecutorMeters() {
  }

  /**
   * A binder of the executor bean {@code name}'s meters, unless Spring Boot binds them.
   *
   * @param executor the bean, by its qualifier (absent: nothing to meter)
   */
  public static MeterBinder binder(String name, ObjectProvider<Executor> executor, ListableBeanFactory beans) {
    boolean springBootBindsTaskExecutors = beans.containsBean(SPRING_BOOT_EXECUTOR_METRICS);
    return registry -> {
      Executor bean = executor.getIfAvailable();
      if (springBootBindsTaskExecutors && bean instanceof ThreadPoolTaskExecutor) {
        return;
      }
      ExecutorService pool = threadPool(bean);
      if (pool != null) {
        new ExecutorServiceMetrics(pool, name, List.of()).bindTo(registry);
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
