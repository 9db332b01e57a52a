package io.icebergscan.planning.autoconfigure;

import java.util.Objects;

import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.util.ClassUtils;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

import static io.icebergscan.planning.autoconfigure.ScanPlannerBuilderConfigurer.set;

/**
 * The client-credentials filter from {@code iceberg.rest.oauth2.*}; what is unset keeps the builder's default. A
 * class of its own, so that Spring Security's classes are only loaded when OAuth2 is configured.
 */
final class CatalogOAuth2 {

  static final String SPRING_SECURITY_OAUTH2_CLIENT =
      "org.springframework.security.oauth2.client.AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager";

  private CatalogOAuth2() {
  }

  /**
   * @param credentials the connection's client credentials
   * @param oauth2 how the client authenticates and renews its tokens: {@code iceberg.rest.oauth2.*}
   * @param catalogUri the catalog's base URI, whose {@code /v1/oauth/tokens} is the default token endpoint
   */
  static ExchangeFilterFunction filter(IcebergRestConnectionDetails.ClientCredentials credentials,
      IcebergRestProperties.OAuth2 oauth2, String catalogUri, @Nullable ClassLoader classLoader) {
    return clientCredentials(credentials, oauth2, catalogUri, classLoader, null);
  }

  /**
   * The same filter, as its class.
   *
   * @param webClient the client of its token requests, or {@code null} for the planner's own: one given makes the
   *     planner use this very filter, and so share its token
   */
  static OAuth2ClientCredentials clientCredentials(IcebergRestConnectionDetails.ClientCredentials credentials,
      IcebergRestProperties.OAuth2 oauth2, String catalogUri, @Nullable ClassLoader classLoader,
      @Nullable WebClient webClient) {
    if (!ClassUtils.isPresent(SPRING_SECURITY_OAUTH2_CLIENT, classLoader)) {
      throw new IllegalStateException("OAuth2 client credentials are set (iceberg.rest.oauth2.client-id or the "
          + "connection details), but Spring Security's OAuth2 client is not on the classpath: add the dependency "
          + "org.springframework.security:spring-security-oauth2-client");
    }
    PropertyMapper map = PropertyMapper.get();
    OAuth2ClientCredentials.Builder builder = OAuth2ClientCredentials.builder()
        .clientId(credentials.clientId())
        .clientSecret(credentials.clientSecret())
        .secretInBody(oauth2.secretInBody())
        // not through set(…): the refusal would quote the value, and a URI may hold credentials
        .tokenUri(tokenUri(credentials, catalogUri));
    map.from(oauth2.refreshBefore()).to(set("iceberg.rest.oauth2.refresh-before", builder::refreshBefore));
    map.from(oauth2.defaultTokenLifetime())
        .to(set("iceberg.rest.oauth2.default-token-lifetime", builder::defaultLifetime));
    map.from(credentials.scopes()).to(builder::scopes);
    map.from(webClient).to(builder::webClient);
    return builder.build();
  }

  /** The token endpoint of the client credentials: theirs, else the catalog's own {@code /v1/oauth/tokens}. */
  static String tokenUri(IcebergRestConnectionDetails.ClientCredentials credentials, String catalogUri) {
    return credentials.tokenUri() != null ? credentials.tokenUri()
        : catalogUri.replaceAll("/+$", "") + "/v1/oauth/tokens";
  }
}
