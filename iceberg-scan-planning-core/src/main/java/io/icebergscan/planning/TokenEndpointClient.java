package io.icebergscan.planning;

import org.springframework.web.reactive.function.client.WebClient;

/**
 * A filter that talks to a token endpoint of its own: the planner offers it its HTTP client, so that token
 * requests get the catalog's timeouts, TLS settings and connection customizations. An interface rather than
 * a check for {@link OAuth2ClientCredentials}, whose Spring Security classes must not be loaded without it.
 */
interface TokenEndpointClient {

  /** Called once, when the planner is built; a filter given a client of its own keeps that one. */
  void usePlannersClient(WebClient plannersClient);
}
