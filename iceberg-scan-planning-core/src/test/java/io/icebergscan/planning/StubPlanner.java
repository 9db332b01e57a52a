package io.icebergscan.planning;

import java.time.Duration;
import java.util.Queue;

import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

/**
 * The one hand-written {@link ScanPlanner} of the tests, shared through the core's test jar: a test overrides the
 * calls it changes. Given a planner, every call goes to it (closing closes nothing: the planner is the test's);
 * without one, {@link #maxConcurrency()} is 1, nothing is in flight, and any other call fails naming itself.
 */
public class StubPlanner implements ScanPlanner {

  private final @Nullable ScanPlanner planner;

  /** A planner of its own, as an application's bean would be; what a test does not override is not there. */
  public StubPlanner() {
    this.planner = null;
  }

  /** Does what the given planner does, but for the calls a test overrides. */
  public StubPlanner(ScanPlanner planner) {
    this.planner = planner;
  }

  /** Does what the given planner does, and adds each request it plans, as it is sent, to {@code sent}. */
  public static ScanPlanner recordingPlans(ScanPlanner planner, Queue<ScanRequest> sent) {
    return new StubPlanner(planner) {

      @Override
      public ScanPlan plan(TableIdentifier table, ScanRequest request) {
        sent.add(request);
        return super.plan(table, request);
      }
    };
  }

  private ScanPlanner planner(String call) {
    if (this.planner == null) {
      throw new UnsupportedOperationException("StubPlanner: " + call + " is not stubbed");
    }
    return this.planner;
  }

  @Override
  public ScanPlan plan(TableIdentifier table, ScanRequest request) {
    return planner("plan").plan(table, request);
  }

  @Override
  public Flux<TaskBatch> planBatches(TableIdentifier table, ScanRequest request) {
    return planner("planBatches").planBatches(table, request);
  }

  @Override
  public ScanPlanner as(io.icebergscan.planning.auth.CatalogCredentials caller) {
    return planner("as").as(caller);
  }

  @Override
  public CatalogCalls catalog() {
    return planner("catalog").catalog();
  }

  @Override
  public int maxConcurrency() {
    return this.planner != null ? this.planner.maxConcurrency() : 1;
  }

  @Override
  public int requestsInFlight() {
    return this.planner != null ? this.planner.requestsInFlight() : 0;
  }

  @Override
  public CatalogCheck checkCatalog(Duration timeout) {
    return planner("checkCatalog").checkCatalog(timeout);
  }

  @Override
  public void close() {
  }
}
