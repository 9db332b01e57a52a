package io.icebergscan.planning;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;

/** The planner's observation registry and listeners; a listener that throws never disturbs a plan. */
record Instrumentation(ObservationRegistry registry, @Nullable ScanPlanningObservationConvention convention,
    List<ScanPlanningListener> listeners) {

  private static final DefaultScanPlanningObservationConvention DEFAULT_CONVENTION =
      new DefaultScanPlanningObservationConvention();

  Instrumentation {
    listeners = List.copyOf(listeners);
  }

  Observation startObservation(ScanPlanningObservationContext context) {
    return Observation.createNotStarted(this.convention, DEFAULT_CONVENTION, () -> context, this.registry).start();
  }

  void planTaskFetched(TableIdentifier table, long startedNanos, @Nullable ScanPlanningException failure) {
    if (this.listeners.isEmpty()) {
      return;
    }
    Duration duration = Duration.ofNanos(System.nanoTime() - startedNanos);
    for (ScanPlanningListener listener : this.listeners) {
      try {
        listener.planTaskFetched(table, duration, failure);
      }
      catch (RuntimeException ignored) {
        // a listener's failure is its own
      }
    }
  }

  void planFinished(ScanPlanningListener.PlanSummary summary) {
    for (ScanPlanningListener listener : this.listeners) {
      try {
        listener.planFinished(summary);
      }
      catch (RuntimeException ignored) {
        // a listener's failure is its own
      }
    }
  }
}
