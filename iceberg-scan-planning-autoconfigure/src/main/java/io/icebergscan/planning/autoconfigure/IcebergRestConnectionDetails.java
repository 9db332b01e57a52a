package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the auto-configured {@code ScanPlanner} finds its Iceberg REST catalog. Without a bean of this type, one
 * backed by {@code iceberg.rest.uri}, {@code iceberg.rest.warehouse} and {@code iceberg.rest.prefix} is used when
 * {@code iceberg.rest.uri} is set; a bean of your own (or a test's, such as {@code @EmbeddedIcebergCatalogTest}'s)
 * wins over the properties.
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
}
