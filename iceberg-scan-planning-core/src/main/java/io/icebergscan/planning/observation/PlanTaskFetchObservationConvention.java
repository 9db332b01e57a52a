package io.icebergscan.planning.observation;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;

/** Names and tags the {@link ScanPlanningObservationDocumentation#PLAN_TASK_FETCH} observation. */
public interface PlanTaskFetchObservationConvention extends ObservationConvention<PlanTaskFetchObservationContext> {

  @Override
  default boolean supportsContext(Observation.Context context) {
    return context instanceof PlanTaskFetchObservationContext;
  }
}
