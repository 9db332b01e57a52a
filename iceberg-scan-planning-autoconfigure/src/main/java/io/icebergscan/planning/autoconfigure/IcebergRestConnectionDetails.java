package io.icebergscan.planning.autoconfigure;

import java.util.List;

import io.icebergscan.planning.internal.Redaction;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;
import org.springframework.boot.ssl.SslBundle;

/**
 * Where and how the auto-configured {@code ScanPlanner} connects to its Iceberg REST catalog: the URI, warehouse
 * and prefix, the credentials (a bearer token or OAuth2 client credentials) and the SSL bundle. Without a bean of
 * this type, one backed by {@code iceberg.rest.uri}, {@code warehouse}, {@code prefix}, {@code token},
 * {@code oauth2.client-id}, {@code oauth2.client-secret}, {@code oauth2.token-uri}, {@code oauth2.scopes} and
 * {@code ssl.bundle} is used when {@code iceberg.rest.uri} is set.
 *
 * <p>A bean of your own (or a test's, such as {@code @EmbeddedIcebergCatalogTest}'s) replaces all of these
 * properties, as Spring Boot's own connection details do: what it leaves {@code null} is not taken from them. How
 * the connection behaves (timeouts, retries, headers, how the client authenticates at the token endpoint, when
 * tokens are renewed) still comes from {@code iceberg.rest.*}.
 */
public interface IcebergRestConnectionDetails extends ConnectionDetails {

  /** The catalog's base URI, the part before {@code /v1/...}. */
  String getUri();

  /** The warehouse to request from {@code GET /v1/config}, or {@code null} for none. */
  default @Nullable String getWarehouse() {
    return null;
  }

  /** The path prefix to use unless the catalog's configuration overrides it, or {@code null} for none. */
  default @Nullable String getPrefix() {
    return null;
  }

  /**
   * The bearer token sent with every request, or {@code null} for none. Not together with
   * {@link #getClientCredentials()}.
   */
  default @Nullable String getToken() {
    return null;
  }

  /**
   * The OAuth2 client credentials the planner gets (and renews) its tokens with, or {@code null} for none; needs
   * Spring Security's OAuth2 client on the class path.
   */
  default @Nullable ClientCredentials getClientCredentials() {
    return null;
  }

  /** The trusted certificates and, for mutual TLS, the client key, or {@code null} for the JVM's defaults. */
  default @Nullable SslBundle getSslBundle() {
    return null;
  }

  /**
   * OAuth2 client credentials.
   *
   * @param clientId the client id registered at the token endpoint
   * @param clientSecret its secret
   * @param tokenUri the token endpoint, or {@code null} for the catalog's own {@code {uri}/v1/oauth/tokens}
   * @param scopes the scopes to request, or {@code null} for the planner's default ({@code catalog}); an empty
   *     list requests none
   */
  record ClientCredentials(String clientId, String clientSecret, @Nullable String tokenUri,
      @Nullable List<String> scopes) {

    public ClientCredentials {
      if (clientId == null || clientId.isBlank() || clientSecret == null || clientSecret.isEmpty()) {
        throw new IllegalArgumentException("OAuth2 client credentials need a client id and a client secret (client "
            + "id: " + clientId + ")");
      }
      scopes = scopes == null ? null : List.copyOf(scopes);
    }

    /** Never shows the secret, nor credentials in the token URI. */
    @Override
    public String toString() {
      return "ClientCredentials[clientId=" + this.clientId + ", clientSecret=******, tokenUri="
          + Redaction.maskUserInfo(this.tokenUri) + ", scopes=" + this.scopes + "]";
    }
  }
}
