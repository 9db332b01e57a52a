package io.icebergscan.planning;

import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default convention: observation {@code iceberg.scan.planning}, low-cardinality {@code outcome}
 * and {@code exception}, the table as the high-cardinality {@code iceberg.table}.
 */
public class DefaultScanPlanningObservationConvention implements ScanPlanningObservationConvention {

  public static final String NAME = "iceberg.scan.planning";

  @Override
  public String getName() {
    return NAME;
  }

  @Override
  public String getContextualName(ScanPlanningObservationContext context) {
    return "plan scan";
  }

  @Override
  public KeyValues getLowCardinalityKeyValues(ScanPlanningObservationContext context) {
    ScanPlanningListener.Outcome outcome = context.outcome();
    Throwable error = context.getError();
    return KeyValues.of(
        KeyValue.of("outcome", outcome != null ? outcome.name() : "UNKNOWN"),
        KeyValue.of("exception", exceptionTag(error)));
  }

  /**
   * The {@code exception} tag of a failure, shared with the planner's meters: the simple class name
   * (the full one for an anonymous class, whose simple name is empty), or {@code none}.
   */
  public static String exceptionTag(@Nullable Throwable failure) {
    if (failure == null) {
      return "none";
    }
    String name = failure.getClass().getSimpleName();
    return name.isEmpty() ? failure.getClass().getName() : name;
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(ScanPlanningObservationContext context) {
    return KeyValues.of(KeyValue.of("iceberg.table", context.table().toString()));
  }
}
