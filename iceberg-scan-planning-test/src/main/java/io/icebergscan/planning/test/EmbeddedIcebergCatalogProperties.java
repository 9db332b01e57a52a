package io.icebergscan.planning.test;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the embedded catalog that {@link EmbeddedIcebergCatalogConfiguration} starts at development time.
 *
 * @param warehouse Directory on local disk for the embedded catalog's warehouse (table metadata, manifests, data and
 *     delete files), so that another process given the catalog's URI reads the files too; empty or unset keeps them
 *     in memory, readable in the catalog's JVM only. Needs hadoop-client-api and hadoop-client-runtime, and Java 22
 *     or earlier.
 */
@ConfigurationProperties(EmbeddedIcebergCatalogProperties.PREFIX)
record EmbeddedIcebergCatalogProperties(@Nullable String warehouse) {

  static final String PREFIX = "embedded-iceberg-catalog";
}
