package io.icebergscan.planning.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import org.jspecify.annotations.Nullable;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * The {@link CallerTokenExchange} from {@code iceberg.rest.caller.token-exchange.*} and the connection's OAuth2
 * client credentials, whose token is the actor. A class of its own, so that Spring Security's OAuth2 client classes
 * are only loaded when token exchange is configured.
 */
final class CatalogTokenExchange {

  /** Spring Security's token-exchange client, which must be on the classpath. */
  static final String SPRING_SECURITY_TOKEN_EXCHANGE =
      "org.springframework.security.oauth2.client.endpoint.WebClientReactiveTokenExchangeTokenResponseClient";

  private CatalogTokenExchange() {
  }

  /** @param tokenClient the client of the token endpoint, for the application's own token and the exchanges */
  static CallerTokenExchange create(IcebergRestProperties properties, IcebergRestConnectionDetails connection,
      WebClient tokenClient, @Nullable ClassLoader classLoader) {
    IcebergRestConnectionDetails.ClientCredentials service = connection.getClientCredentials();
    if (service == null) {
      throw new IllegalStateException("iceberg.rest.caller.mode is token-exchange, whose actor is the application's "
          + "own OAuth2 client-credentials token, but no client credentials are configured: set "
          + "iceberg.rest.oauth2.client-id and iceberg.rest.oauth2.client-secret (or give them in the "
          + "IcebergRestConnectionDetails bean)");
    }
    IcebergRestProperties.TokenExchange settings = properties.caller().tokenExchange();
    UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.caller.token-exchange.client-id",
        settings.clientId());
    UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.caller.token-exchange.client-secret",
        settings.clientSecret());
    String tokenUri = settings.tokenUri() != null ? settings.tokenUri()
        : CatalogOAuth2.tokenUri(service, connection.getUri());
    if (!tokenUri.startsWith("http://") && !tokenUri.startsWith("https://")) {
      // the value is not shown: a URI may hold credentials
      throw new IllegalStateException("the token endpoint of the token exchange (iceberg.rest.caller.token-exchange"
          + ".token-uri, else iceberg.rest.oauth2.token-uri) must be an absolute http(s) URI");
    }
    // the planner authenticates its own calls with this very filter (it has a client of its own): one token
    OAuth2ClientCredentials actor = CatalogOAuth2.clientCredentials(service, properties.oauth2(), connection.getUri(),
        classLoader, tokenClient);
    TokenExchangeGrant grant = new TokenExchangeGrant(tokenUri,
        settings.clientId() != null ? settings.clientId() : service.clientId(),
        settings.clientSecret() != null ? settings.clientSecret() : service.clientSecret(),
        properties.oauth2().secretInBody(),
        settings.scopes() != null ? settings.scopes() : List.of(),
        settings.requestedTokenType() != null ? settings.requestedTokenType()
            : CallerTokenExchange.DEFAULT_REQUESTED_TOKEN_TYPE,
        settings.audience(), tokenClient);
    Duration refreshBefore = settings.refreshBefore() != null ? settings.refreshBefore()
        : CallerTokenExchange.DEFAULT_REFRESH_BEFORE;
    Duration defaultLifetime = properties.oauth2().defaultTokenLifetime() != null
        ? properties.oauth2().defaultTokenLifetime() : OAuth2ClientCredentials.Builder.DEFAULT_LIFETIME;
    int cacheSize = settings.cacheSize() != null ? settings.cacheSize() : CallerTokenExchange.DEFAULT_CACHE_SIZE;
    return new CallerTokenExchange(grant, actor, refreshBefore, defaultLifetime, cacheSize, Clock.systemUTC());
  }
}
