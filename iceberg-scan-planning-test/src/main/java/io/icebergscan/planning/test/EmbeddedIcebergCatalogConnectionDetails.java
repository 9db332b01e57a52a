package io.icebergscan.planning.test;

import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;

/**
 * Points the auto-configured planner at an embedded catalog. A class of its own, loaded only when the
 * auto-configuration is on the classpath.
 */
final class EmbeddedIcebergCatalogConnectionDetails implements IcebergRestConnectionDetails {

  private final EmbeddedIcebergCatalog catalog;

  EmbeddedIcebergCatalogConnectionDetails(EmbeddedIcebergCatalog catalog) {
    this.catalog = catalog;
  }

  @Override
  public String getUri() {
    return this.catalog.uri();
  }
}
