package io.icebergscan.planning.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the {@code iceberg.scan.planning} observation; implement it to change them. */
public interface ScanPlanningObservationConvention extends ObservationConvention<ScanPlanningObservationContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof ScanPlanningObservationContext;
  }
}
