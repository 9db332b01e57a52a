package io.icebergscan.planning.observation;

import io.icebergscan.planning.PlanStatistics;
import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;

/** What an {@link ScanPlanningObservationDocumentation#PLAN} observation knows about its plan. */
public final class ScanPlanningObservationContext extends Observation.Context {

  private final TableIdentifier table;
  private final boolean restricted;
  private final boolean caller;
  private @Nullable Outcome outcome;
  private long tasks;
  private int planTasksFetched;
  private int requestsMade;
  private int replans;

  public ScanPlanningObservationContext(TableIdentifier table) {
    this(table, false, false);
  }

  /**
   * @param restricted whether the plan is for a read under the catalog's read restrictions
   * @param caller whether the plan runs as a caller ({@code ScanPlanner#as}) rather than as the planner's identity
   */
  public ScanPlanningObservationContext(TableIdentifier table, boolean restricted, boolean caller) {
    this.table = table;
    this.restricted = restricted;
    this.caller = caller;
  }

  public TableIdentifier table() {
    return this.table;
  }

  /** Whether the plan is for a read under the catalog's read restrictions ({@code ScanRequest#restricted()}). */
  public boolean restricted() {
    return this.restricted;
  }

  /** Whether the plan runs as a caller ({@code ScanPlanner#as}) rather than as the planner's own identity. */
  public boolean caller() {
    return this.caller;
  }

  /** How the plan ended, or {@code null} while it runs. */
  public @Nullable Outcome outcome() {
    return this.outcome;
  }

  /** File scan tasks delivered to the caller; final once the observation stops. */
  public long tasks() {
    return this.tasks;
  }

  /** Distinct plan-task fetches started; final once the observation stops. */
  public int planTasksFetched() {
    return this.planTasksFetched;
  }

  /** HTTP requests the plan made, as {@link PlanStatistics#requestsMade()} counts them; final once it stops. */
  public int requestsMade() {
    return this.requestsMade;
  }

  /** How often the plan started over so far because the catalog forgot it ({@link PlanStatistics#replans()}). */
  public int replans() {
    return this.replans;
  }

  public void replanned() {
    this.replans++;
  }

  /** Records how the plan ended, just before the observation stops. */
  public void ended(Outcome outcome, long tasks, int planTasksFetched, int requestsMade) {
    this.outcome = outcome;
    this.tasks = tasks;
    this.planTasksFetched = planTasksFetched;
    this.requestsMade = requestsMade;
  }
}
