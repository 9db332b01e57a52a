package io.icebergscan.planning.internal.http;

import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;

/**
 * What discovery ({@code GET /v1/config}, read by {@link CatalogDiscovery}) tells about the catalog; paths are built
 * from it.
 *
 * @param prefix the path prefix in use, encoded, or {@code null} for none
 * @param namespaceSeparator what joins namespace levels in a path, encoded
 * @param endpoints the advertised endpoints, or {@link CatalogDiscovery#DEFAULT_ENDPOINTS} (and the view endpoints,
 *     if so configured) when the catalog listed none
 * @param idempotencyKeys whether the catalog honours {@code Idempotency-Key}s
 * @param properties the catalog's {@code defaults} with its {@code overrides} over them
 */
public record DiscoveredCatalog(@Nullable String prefix, String namespaceSeparator, Set<Endpoint> endpoints,
    boolean idempotencyKeys, Map<String, String> properties) {

  public DiscoveredCatalog {
    endpoints = Set.copyOf(endpoints);
    properties = Map.copyOf(properties);
  }

  /** @throws UnsupportedEndpointException when the catalog does not support it */
  public void require(Endpoint endpoint) {
    if (!supports(endpoint)) {
      throw new UnsupportedEndpointException(endpoint);
    }
  }

  public boolean supports(Endpoint endpoint) {
    return this.endpoints.contains(endpoint);
  }
}
