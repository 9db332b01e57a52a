package io.icebergscan.planning.test;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.ConfigurationDocs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md lists exactly the properties of this module's generated metadata, with their defaults and
 * texts, in the rows under this module's prefix (the autoconfigure module's {@code ConfigurationDocsTests} holds
 * the others).
 */
class EmbeddedCatalogConfigurationDocsTests {

  private static final String PREFIX = "embedded-iceberg-catalog.";

  @Test
  void thePropertyTableIsTheMetadata() throws Exception {
    Map<String, List<String>> metadata = ConfigurationDocs.metadata(EmbeddedIcebergCatalog.class);
    assertThat(metadata.keySet()).as("this module's properties, all under its prefix")
        .contains(EmbeddedIcebergCatalogConfiguration.WAREHOUSE_PROPERTY)
        .allSatisfy(name -> assertThat(name).startsWith(PREFIX));
    assertThat(ConfigurationDocs.documented(name -> name.startsWith(PREFIX)))
        .containsExactlyInAnyOrderEntriesOf(metadata);
  }
}
