package io.icebergscan.planning.iceberg.autoconfigure;

import java.io.IOException;

import io.icebergscan.planning.ConfigurationDocs;
import tools.jackson.databind.JsonNode;

/** The configuration metadata this module's build generated, not the autoconfigure module's beside it. */
final class ModuleMetadata {

  private ModuleMetadata() {
  }

  /** The {@code properties} of this module's metadata. */
  static JsonNode properties() throws IOException {
    return ConfigurationDocs.properties(IcebergReadingProperties.class);
  }
}
