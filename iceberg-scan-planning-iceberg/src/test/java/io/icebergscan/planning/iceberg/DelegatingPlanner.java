package io.icebergscan.planning.iceberg;

import java.time.Duration;

import io.icebergscan.planning.CatalogCalls;
import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TaskBatch;
import io.icebergscan.planning.model.TableIdentifier;
import reactor.core.publisher.Flux;

/**
 * A planner that does what a real one does, for a test to change one call of (its catalog's through
 * {@link DelegatingCatalogCalls}); closing it closes nothing.
 */
class DelegatingPlanner implements ScanPlanner {

  private final ScanPlanner planner;

  DelegatingPlanner(ScanPlanner planner) {
    this.planner = planner;
  }

  @Override
  public ScanPlan plan(TableIdentifier table, ScanRequest request) {
    return this.planner.plan(table, request);
  }

  @Override
  public Flux<TaskBatch> planBatches(TableIdentifier table, ScanRequest request) {
    return this.planner.planBatches(table, request);
  }

  @Override
  public CatalogCalls catalog() {
    return this.planner.catalog();
  }

  @Override
  public int maxConcurrency() {
    return this.planner.maxConcurrency();
  }

  @Override
  public int requestsInFlight() {
    return this.planner.requestsInFlight();
  }

  @Override
  public CatalogCheck checkCatalog(Duration timeout) {
    return this.planner.checkCatalog(timeout);
  }

  @Override
  public void close() {
  }
}
