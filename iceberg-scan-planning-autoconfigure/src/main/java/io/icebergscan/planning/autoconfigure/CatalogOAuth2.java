package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.OAuth2ClientCredentials;
import org.springframework.util.ClassUtils;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

/**
 * The client-credentials filter from {@code iceberg.rest.oauth2.*}. A class of its own, so that Spring
 * Security's classes are only loaded when OAuth2 is configured.
 */
final class CatalogOAuth2 {

  private static final String SPRING_SECURITY_OAUTH2_CLIENT =
      "org.springframework.security.oauth2.client.AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager";

  private CatalogOAuth2() {
  }

  static ExchangeFilterFunction filter(IcebergRestProperties properties, ClassLoader classLoader) {
    if (!ClassUtils.isPresent(SPRING_SECURITY_OAUTH2_CLIENT, classLoader)) {
      throw new IllegalStateException("iceberg.rest.oauth2.client-id is set, but Spring Security's OAuth2 client is "
          + "not on the classpath: add the dependency org.springframework.security:spring-security-oauth2-client");
    }
    IcebergRestProperties.OAuth2 oauth2 = properties.oauth2();
    String tokenUri = oauth2.tokenUri() != null ? oauth2.tokenUri()
        : properties.uri().replaceAll("/+$", "") + "/v1/oauth/tokens";
    OAuth2ClientCredentials.Builder builder = OAuth2ClientCredentials.builder()
        .tokenUri(tokenUri)
        .clientId(oauth2.clientId())
        .clientSecret(oauth2.clientSecret())
        .secretInBody(oauth2.clientAuthenticationMethod().equals("client_secret_post"))
        .refreshBefore(oauth2.refreshBefore())
        .defaultLifetime(oauth2.defaultTokenLifetime());
    oauth2.scopes().forEach(builder::scope);
    return builder.build();
  }
}
