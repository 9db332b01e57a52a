package io.icebergscan.planning.iceberg.autoconfigure;

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
class IcebergReadingConfigurationDocsTests {

  private static final String PREFIX = "iceberg.rest.scan-planning.iceberg.";

  @Test
  void thePropertyTableIsTheMetadata() throws Exception {
    Map<String, List<String>> metadata = ConfigurationDocs.metadata(IcebergReadingProperties.class);
    assertThat(metadata.keySet()).as("this module's properties, all under its prefix").isNotEmpty()
        .allSatisfy(name -> assertThat(name).startsWith(PREFIX));
    assertThat(ConfigurationDocs.documented(name -> name.startsWith(PREFIX)))
        .containsExactlyInAnyOrderEntriesOf(metadata);
  }
}
