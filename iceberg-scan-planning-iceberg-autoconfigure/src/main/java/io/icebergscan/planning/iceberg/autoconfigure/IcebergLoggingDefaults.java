package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.Map;

import org.springframework.boot.EnvironmentPostProcessor;
import org.springframework.boot.SpringApplication;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.ClassUtils;

/**
 * Quiets Apache Iceberg's format registry, which logs at INFO, once per JVM, every engine's format models it looks
 * for and does not find (Arrow's, Flink's, Spark's: "Unable to call register for …"), though an application that reads
 * with Iceberg's generic readers has no use for them. Its logger is set to WARN as a default beneath every property
 * source of the application, so {@code logging.level.org.apache.iceberg.formats.FormatModelRegistry} set anywhere
 * wins. Without the iceberg module, nothing is added.
 */
public final class IcebergLoggingDefaults implements EnvironmentPostProcessor {

  static final String PROPERTY_SOURCE = "icebergScanPlanningLoggingDefaults";
  static final String REGISTRY_LEVEL = "logging.level.org.apache.iceberg.formats.FormatModelRegistry";

  @Override
  public void postProcessEnvironment(ConfigurableEnvironment environment, SpringApplication application) {
    if (ClassUtils.isPresent("io.icebergscan.planning.iceberg.IcebergScanPlanner", application.getClassLoader())) {
      environment.getPropertySources().addLast(new MapPropertySource(PROPERTY_SOURCE, Map.of(REGISTRY_LEVEL, "warn")));
    }
  }
}
