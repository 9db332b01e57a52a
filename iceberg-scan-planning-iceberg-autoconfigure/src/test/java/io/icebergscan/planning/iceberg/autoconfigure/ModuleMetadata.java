package io.icebergscan.planning.iceberg.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.util.Collections;
import java.util.List;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The configuration metadata this module's build generated. The autoconfigure module's is on the class path too,
 * so the file is picked by where it was loaded from rather than by being first.
 */
final class ModuleMetadata {

  private static final String METADATA = "META-INF/spring-configuration-metadata.json";

  private ModuleMetadata() {
  }

  /** The {@code properties} of this module's metadata. */
  static JsonNode properties() throws IOException {
    String module = IcebergReadingProperties.class.getProtectionDomain().getCodeSource().getLocation().toString();
    List<URL> mine = Collections.list(ModuleMetadata.class.getClassLoader().getResources(METADATA)).stream()
        .filter(url -> url.toString().startsWith(module) || url.toString().startsWith("jar:" + module + "!/"))
        .toList();
    assertThat(mine).as("the generated configuration metadata of " + module).hasSize(1);
    try (InputStream in = mine.get(0).openStream()) {
      return JsonMapper.builder().build().readTree(in).get("properties");
    }
  }
}
