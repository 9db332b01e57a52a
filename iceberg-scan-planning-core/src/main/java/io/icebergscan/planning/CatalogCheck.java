package io.icebergscan.planning;

import java.time.Duration;
import java.util.Map;

import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;

/**
 * What a fresh {@code GET /v1/config} told about the catalog, for health checks.
 *
 * @param uri the catalog's base URI, without credentials or query
 * @param prefix the path prefix in use, or {@code null} for none
 * @param planningEndpoints each planning endpoint and whether it is advertised
 * @param responseTime how long discovery took
 */
public record CatalogCheck(String uri, @Nullable String prefix, Map<Endpoint, Boolean> planningEndpoints,
    Duration responseTime) {

  public CatalogCheck {
    planningEndpoints = Map.copyOf(planningEndpoints);
  }

  /** Whether the catalog advertises what every plan needs: submitting a plan and fetching its tasks. */
  public boolean supportsPlanning() {
    return Boolean.TRUE.equals(this.planningEndpoints.get(Endpoint.SUBMIT_PLAN))
        && Boolean.TRUE.equals(this.planningEndpoints.get(Endpoint.FETCH_PLAN_TASKS));
  }
}
