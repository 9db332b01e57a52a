package io.icebergscan.planning.test;

import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest.Authentication;
import org.jspecify.annotations.Nullable;

/**
 * Points the auto-configured planner at an embedded catalog, with the credentials it requires. A class of its own,
 * loaded only when the auto-configuration is on the classpath.
 */
final class EmbeddedIcebergCatalogConnectionDetails implements IcebergRestConnectionDetails {

  /** What the connection details give when the catalog wants a token: it is required there, not checked. */
  static final String TOKEN = "embedded-catalog-token";
  static final String CLIENT_ID = "embedded-catalog-client";
  static final String CLIENT_SECRET = "embedded-catalog-secret";

  private final EmbeddedIcebergCatalog catalog;
  private final Authentication authentication;

  EmbeddedIcebergCatalogConnectionDetails(EmbeddedIcebergCatalog catalog, Authentication authentication) {
    this.catalog = catalog;
    this.authentication = authentication;
  }

  @Override
  public String getUri() {
    return this.catalog.uri();
  }

  @Override
  public @Nullable String getToken() {
    return this.authentication == Authentication.BEARER_TOKEN ? TOKEN : null;
  }

  @Override
  public @Nullable ClientCredentials getClientCredentials() {
    // the token endpoint is the catalog's own, {uri}/v1/oauth/tokens, where Iceberg's adapter issues one
    return this.authentication == Authentication.CLIENT_CREDENTIALS
        ? new ClientCredentials(CLIENT_ID, CLIENT_SECRET, null, null)
        : null;
  }
}
