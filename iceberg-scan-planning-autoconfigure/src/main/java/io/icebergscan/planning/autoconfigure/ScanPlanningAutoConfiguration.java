package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.ScanPlanner;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Import;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Auto-configuration of the {@link ScanPlanner}, the executor its fan-out runs on, where its catalog is, and whose
 * identity its requests carry: the application's, or each call's caller ({@code iceberg.rest.identity}).
 */
@AutoConfiguration(afterName = {
    "org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration",
    "org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration",
    "org.springframework.boot.autoconfigure.ssl.SslAutoConfiguration",
    "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass({ ScanPlanner.class, WebClient.class })
@ConditionalOnBooleanProperty(name = "iceberg.rest.scan-planning.enabled", matchIfMissing = true)
@EnableConfigurationProperties(IcebergRestProperties.class)
@Import({ ScanPlanningConfigurations.ConnectionDetailsConfiguration.class,
    ScanPlanningConfigurations.CallerTokenExchangeConfiguration.class,
    ScanPlanningConfigurations.SpringSecurityCallersConfiguration.class,
    ScanPlanningConfigurations.PlannerConfiguration.class })
@ImportRuntimeHints(ScanPlanningRuntimeHints.class)
public final class ScanPlanningAutoConfiguration {

  /** The name of the planner's executor bean. */
  public static final String EXECUTOR_BEAN_NAME = "icebergScanPlanningExecutor";
}
