package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.Nullable;

/** {@link IcebergRestConnectionDetails} from {@code iceberg.rest.*}: the default without a bean of the user's own. */
final class PropertiesIcebergRestConnectionDetails implements IcebergRestConnectionDetails {

  private final IcebergRestProperties properties;

  PropertiesIcebergRestConnectionDetails(IcebergRestProperties properties) {
    this.properties = properties;
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
}
