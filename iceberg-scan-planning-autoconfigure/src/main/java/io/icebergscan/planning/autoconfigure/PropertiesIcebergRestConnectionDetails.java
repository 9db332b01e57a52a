package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.ssl.SslBundle;
import org.springframework.boot.ssl.SslBundles;

/** {@link IcebergRestConnectionDetails} from {@code iceberg.rest.*}: the default without a bean of the user's own. */
final class PropertiesIcebergRestConnectionDetails implements IcebergRestConnectionDetails {

  private final IcebergRestProperties properties;
  private final ObjectProvider<SslBundles> sslBundles;

  PropertiesIcebergRestConnectionDetails(IcebergRestProperties properties, ObjectProvider<SslBundles> sslBundles) {
    this.properties = properties;
    this.sslBundles = sslBundles;
  }

  @Override
  public String getUri() {
    String uri = this.properties.uri();
    if (uri == null) {
      // created only when iceberg.rest.uri has text (OnCatalogUri)
      throw new IllegalStateException("iceberg.rest.uri is not set");
    }
    return uri;
  }

  @Override
  public @Nullable String getWarehouse() {
    return this.properties.warehouse();
  }

  @Override
  public @Nullable String getPrefix() {
    return this.properties.prefix();
  }

  @Override
  public @Nullable String getToken() {
    String token = this.properties.token();
    UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.token", token);
    return token;
  }

  @Override
  public @Nullable ClientCredentials getClientCredentials() {
    IcebergRestProperties.OAuth2 oauth2 = this.properties.oauth2();
    String clientId = oauth2.clientId();
    String clientSecret = oauth2.clientSecret();
    if (clientId == null || clientSecret == null) {
      // IcebergRestProperties.OAuth2 refuses an id without a secret
      return null;
    }
    UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.oauth2.client-id", clientId);
    UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.oauth2.client-secret", clientSecret);
    return new ClientCredentials(clientId, clientSecret, oauth2.tokenUri(), oauth2.scopes());
  }

  @Override
  public @Nullable SslBundle getSslBundle() {
    String bundle = this.properties.ssl().bundle();
    if (bundle == null) {
      return null;
    }
    SslBundles bundles = this.sslBundles.getIfAvailable();
    if (bundles == null) {
      throw new IllegalStateException("iceberg.rest.ssl.bundle is '" + bundle + "', but there are no SSL bundles "
          + "(spring.ssl.bundle.*)");
    }
    return bundles.getBundle(bundle);
  }
}
