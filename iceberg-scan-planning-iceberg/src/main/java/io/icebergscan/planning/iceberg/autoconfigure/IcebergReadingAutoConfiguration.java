package io.icebergscan.planning.iceberg.autoconfigure;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.annotation.Bean;
import org.springframework.util.unit.DataSize;

/** Auto-configuration of the {@link IcebergScanPlanner}, which reads the plans of the {@link ScanPlanner} bean. */
@AutoConfiguration(afterName = IcebergReadingAutoConfiguration.SCAN_PLANNING_AUTO_CONFIGURATION)
@ConditionalOnClass(IcebergScanPlanner.class)
@ConditionalOnSingleCandidate(ScanPlanner.class)
@EnableConfigurationProperties(IcebergReadingProperties.class)
public final class IcebergReadingAutoConfiguration {

  /**
   * By name: iceberg-scan-planning-autoconfigure is optional here (an application may build its planner itself),
   * and a class literal of a missing module makes Spring log a {@code TypeNotPresentException}.
   */
  static final String SCAN_PLANNING_AUTO_CONFIGURATION =
      "io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration";

  private static final String SPLIT_SIZE_PROPERTY = "iceberg.rest.scan-planning.iceberg.split-size";

  /**
   * Named apart from the planner's auto-configured {@code ScanPlanner}, whose bean is {@code icebergScanPlanner}:
   * a bean of that name here would clash with it.
   */
  @Bean
  @ConditionalOnMissingBean
  IcebergScanPlanner icebergReadingScanPlanner(ScanPlanner planner, IcebergReadingProperties properties) {
    IcebergScanPlanner.Builder builder = IcebergScanPlanner.builder(planner).fileIoProperties(properties.fileIo());
    PropertyMapper map = PropertyMapper.get();
    map.from(properties.splitSize()).to(size -> splitSize(builder, size));
    map.from(properties.scanReports()).to(builder::scanReports);
    map.from(properties.vendedCredentials()).to(builder::vendedCredentials);
    return builder.build();
  }

  /** The builder checks the size; one it refuses fails start-up naming the property, as the planner's do. */
  private static void splitSize(IcebergScanPlanner.Builder builder, DataSize size) {
    try {
      builder.splitSize(size.toBytes());
    }
    catch (IllegalArgumentException refused) {
      throw new InvalidConfigurationPropertyValueException(SPLIT_SIZE_PROPERTY, size, refused.getMessage());
    }
  }
}
