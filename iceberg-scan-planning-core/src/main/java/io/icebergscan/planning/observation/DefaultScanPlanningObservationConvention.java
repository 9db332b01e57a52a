package io.icebergscan.planning.observation;

import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.ScanPlanningObservationDocumentation.HighCardinalityKeyNames;
import io.icebergscan.planning.observation.ScanPlanningObservationDocumentation.LowCardinalityKeyNames;
import io.micrometer.common.KeyValue;
import io.micrometer.common.KeyValues;
import org.jspecify.annotations.Nullable;

/**
 * The default convention of plans: {@value #NAME}, low-cardinality {@code outcome}, {@code exception} and
 * {@code restricted} (whether the plan is for a read under the catalog's read restrictions), {@code identity}
 * ({@code caller} or {@code service}, never who), the table as the high-cardinality {@code iceberg.table}. Never what
 * the restrictions say.
 */
public class DefaultScanPlanningObservationConvention implements ScanPlanningObservationConvention {

  public static final String NAME = "iceberg.scan.planning";

  private static final KeyValue NO_EXCEPTION = LowCardinalityKeyNames.EXCEPTION.withValue("none");
  private static final KeyValue CALLER = LowCardinalityKeyNames.IDENTITY.withValue("caller");
  private static final KeyValue SERVICE = LowCardinalityKeyNames.IDENTITY.withValue("service");

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
    return KeyValues.of(outcome(context.outcome()), exception(context.getError()),
        LowCardinalityKeyNames.RESTRICTED.withValue(Boolean.toString(context.restricted())),
        context.caller() ? CALLER : SERVICE);
  }

  @Override
  public KeyValues getHighCardinalityKeyValues(ScanPlanningObservationContext context) {
    return KeyValues.of(table(context.table()));
  }

  static KeyValue outcome(@Nullable Outcome outcome) {
    return LowCardinalityKeyNames.OUTCOME.withValue(outcome != null ? outcome.name() : "UNKNOWN");
  }

  /** The simple class name (the full one for an anonymous class, whose simple name is empty), or {@code none}. */
  static KeyValue exception(@Nullable Throwable failure) {
    if (failure == null) {
      return NO_EXCEPTION;
    }
    String name = failure.getClass().getSimpleName();
    return LowCardinalityKeyNames.EXCEPTION.withValue(name.isEmpty() ? failure.getClass().getName() : name);
  }

  static KeyValue table(TableIdentifier table) {
    return HighCardinalityKeyNames.TABLE.withValue(table.toString());
  }
}
