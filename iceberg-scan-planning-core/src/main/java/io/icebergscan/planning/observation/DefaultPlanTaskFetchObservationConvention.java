package io.icebergscan.planning.observation;

import io.micrometer.common.KeyValues;

import static io.icebergscan.planning.observation.DefaultScanPlanningObservationConvention.exception;
import static io.icebergscan.planning.observation.DefaultScanPlanningObservationConvention.outcome;
import static io.icebergscan.planning.observation.DefaultScanPlanningObservationConvention.table;

/**
 * The default convention of plan-task fetches: {@value #NAME}, the name the fetch timer had before observations,
 * with {@code outcome} and {@code exception}, and the table as the high-cardinality {@code iceberg.table}.
 */
public class DefaultPlanTaskFetchObservationConvention implements PlanTaskFetchObservationConvention {

  public static final String NAME = "iceberg.scan.planning.plan.task.fetches";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(PlanTaskFetchObservationContext context) {
    return "fetch plan task";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(PlanTaskFetchObservationContext context) {
    return KeyValues.of(outcome(context.outcome()), exception(context.getError()));
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(PlanTaskFetchObservationContext context) {
    return KeyValues.of(table(context.table()));
  }
}
