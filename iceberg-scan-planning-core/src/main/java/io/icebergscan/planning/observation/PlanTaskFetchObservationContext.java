package io.icebergscan.planning.observation;

import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What a {@link ScanPlanningObservationDocumentation#PLAN_TASK_FETCH} observation knows about its fetch. */
public final class PlanTaskFetchObservationContext extends Observation.Context {

  private final TableIdentifier table;
  private final String planTask;
  private @Nullable Outcome outcome;

  public PlanTaskFetchObservationContext(TableIdentifier table, String planTask) {
    this.table = table;
    this.planTask = planTask;
  }

  public TableIdentifier table() {
    return this.table;
  }

  /** The opaque handle fetched; not a tag by default, since handles are unbounded and may be long. */
  public String planTask() {
    return this.planTask;
  }

  /** How the fetch ended, or {@code null} while it runs. */
  public synchronized @Nullable Outcome outcome() {
    return this.outcome;
  }

  /** Records how the fetch ended, unless it ended already: whether this call ended it. */
  public synchronized boolean ended(Outcome outcome) {
    if (this.outcome != null) {
      return false;
    }
    this.outcome = outcome;
    return true;
  }
}
