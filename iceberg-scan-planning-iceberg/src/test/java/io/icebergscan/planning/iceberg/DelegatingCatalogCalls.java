package io.icebergscan.planning.iceberg;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.CatalogCalls;
import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/** A planner's catalog calls as a real planner makes them, for a test to change one of. */
class DelegatingCatalogCalls implements CatalogCalls {

  private final CatalogCalls calls;

  DelegatingCatalogCalls(CatalogCalls calls) {
    this.calls = calls;
  }

  @Override
  public LoadedTable loadTable(TableIdentifier table, boolean vendedCredentials) {
    return this.calls.loadTable(table, vendedCredentials);
  }

  @Override
  public boolean tableExists(TableIdentifier table) {
    return this.calls.tableExists(table);
  }

  @Override
  public List<StorageCredential> loadCredentials(TableIdentifier table, @Nullable String planId) {
    return this.calls.loadCredentials(table, planId);
  }

  @Override
  public Mono<Void> reportMetrics(TableIdentifier table, String reportJson) {
    return this.calls.reportMetrics(table, reportJson);
  }

  @Override
  public boolean supports(Endpoint endpoint) {
    return this.calls.supports(endpoint);
  }

  @Override
  public Map<String, String> properties() {
    return this.calls.properties();
  }
}
