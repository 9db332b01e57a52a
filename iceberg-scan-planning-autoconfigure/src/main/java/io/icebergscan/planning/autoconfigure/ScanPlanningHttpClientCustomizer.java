package io.icebergscan.planning.autoconfigure;

import reactor.netty.http.client.HttpClient;

/**
 * Adjusts the Reactor Netty {@link HttpClient}s of the auto-configured planner, the one for the catalog and,
 * with {@code iceberg.rest.oauth2.*}, the one for the token endpoint: a proxy, a wiretap, socket options.
 * Beans of this type are applied in order, after the pool, the timeouts and the SSL bundle.
 */
@FunctionalInterface
public interface ScanPlanningHttpClientCustomizer {

  HttpClient customize(HttpClient httpClient);
}
