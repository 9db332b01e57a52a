package io.icebergscan.planning;

import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * A filter that talks to a token endpoint of its own, which a planner replaces with a copy bound to its own HTTP
 * client, so that token requests get the catalog's timeouts, TLS settings and connection customizations. An
 * interface rather than a check for {@link OAuth2ClientCredentials}, whose Spring Security classes must not be
 * loaded without it.
 */
interface TokenEndpointClient {

  /** The filter a planner uses in this one's place; called once, when the planner is built. */
  ExchangeFilterFunction forPlanner(WebClient plannersClient);
}
