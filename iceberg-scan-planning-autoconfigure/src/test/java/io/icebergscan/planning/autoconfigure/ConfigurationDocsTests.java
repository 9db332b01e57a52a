package io.icebergscan.planning.autoconfigure;

import java.util.List;

import io.icebergscan.planning.ConfigurationDocs;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration.md lists exactly the properties of the generated metadata, with their defaults and texts. */
class ConfigurationDocsTests {

  /**
   * The prefixes of other modules' properties, whose own docs tests hold their rows: the iceberg module's
   * ({@code IcebergReadingConfigurationDocsTests}) and the test module's ({@code EmbeddedCatalogConfigurationDocsTests}).
   */
  private static final List<String> OTHER_MODULES = List.of("iceberg.rest.scan-planning.iceberg.",
      "embedded-iceberg-catalog.");

  @Test
  void thePropertyTableIsTheMetadata() throws Exception {
    assertThat(ConfigurationDocs.documented(name -> OTHER_MODULES.stream().noneMatch(name::startsWith)))
        .isNotEmpty().containsExactlyInAnyOrderEntriesOf(ConfigurationDocs.metadata(IcebergRestProperties.class));
  }
}
