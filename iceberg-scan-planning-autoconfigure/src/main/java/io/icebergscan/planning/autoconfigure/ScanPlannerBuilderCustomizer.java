package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.ScanPlanner;

/**
 * Customises the auto-configured {@link ScanPlanner} before it is built: beans of this type are
 * applied in order, after the properties.
 */
@FunctionalInterface
public interface ScanPlannerBuilderCustomizer {

  void customize(ScanPlanner.Builder builder);
}
