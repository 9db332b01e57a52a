package io.icebergscan.planning;

import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What an {@code iceberg.scan.planning} observation knows about its plan. */
public final class ScanPlanningObservationContext extends Observation.Context {

  private final TableIdentifier table;
  private ScanPlanningListener.@Nullable Outcome outcome;
  private long tasks;

  public ScanPlanningObservationContext(TableIdentifier table) {
    this.table = table;
  }

  public TableIdentifier table() {
    return this.table;
  }

  /** How the plan ended, or {@code null} while it runs. */
  public ScanPlanningListener.@Nullable Outcome outcome() {
    return this.outcome;
  }

  void outcome(ScanPlanningListener.Outcome outcome) {
    this.outcome = outcome;
  }

  /** File scan tasks delivered so far. */
  public long tasks() {
    return this.tasks;
  }

  void tasks(long tasks) {
    this.tasks = tasks;
  }
}
