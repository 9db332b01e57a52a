package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.TaskBatch;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A planner that does what a real one does, for a test to change one call of; closing it closes nothing. */
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
  public LoadedTable loadTable(TableIdentifier table, boolean vendedCredentials) {
    return this.planner.loadTable(table, vendedCredentials);
  }

  @Override
  public List<StorageCredential> loadCredentials(TableIdentifier table, @Nullable String planId) {
    return this.planner.loadCredentials(table, planId);
  }

  @Override
  public Mono<Void> reportMetrics(TableIdentifier table, String reportJson) {
    return this.planner.reportMetrics(table, reportJson);
  }

  @Override
  public boolean supportsEndpoint(String endpoint) {
    return this.planner.supportsEndpoint(endpoint);
  }

  @Override
  public Map<String, String> catalogProperties() {
    return this.planner.catalogProperties();
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
