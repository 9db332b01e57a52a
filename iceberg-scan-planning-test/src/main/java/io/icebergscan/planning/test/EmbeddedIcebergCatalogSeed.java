package io.icebergscan.planning.test;

/**
 * Fills the catalog {@link EmbeddedIcebergCatalogConfiguration} starts, before the application's planner is made:
 * namespaces, tables, rows. Define one bean per concern; they run in their {@code @Order}.
 */
@FunctionalInterface
public interface EmbeddedIcebergCatalogSeed {

  void seed(EmbeddedIcebergCatalog catalog);
}
