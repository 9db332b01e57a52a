package io.icebergscan.planning.iceberg.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/configuration.md lists exactly the properties of this module's generated metadata, with their defaults and
 * texts, in the rows under this module's prefix (the autoconfigure module's {@code ConfigurationDocsTests} holds
 * the others).
 */
class IcebergReadingConfigurationDocsTests {

  /** The row of the autoconfigure module's table: one format for the whole file. */
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| (`([^`]*)`)? *\\| (.*) \\|$");
  private static final String PREFIX = "iceberg.rest.scan-planning.iceberg.";

  @Test
  void thePropertyTableIsTheMetadata() throws Exception {
    Map<String, List<String>> documented = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "configuration.md"))) {
      Matcher row = ROW.matcher(line);
      if (row.matches() && row.group(1).startsWith(PREFIX)) {
        documented.put(row.group(1), List.of(row.group(3) == null ? "" : row.group(3), row.group(4)));
      }
    }
    Map<String, List<String>> metadata = new LinkedHashMap<>();
    for (JsonNode property : ModuleMetadata.properties()) {
      JsonNode value = property.path("defaultValue");
      metadata.put(property.get("name").asString(), List.of(value.isMissingNode() ? "" : value.asString(),
          property.get("description").asString()));
    }
    assertThat(metadata.keySet()).as("this module's properties, all under its prefix").isNotEmpty()
        .allSatisfy(name -> assertThat(name).startsWith(PREFIX));
    assertThat(documented).containsExactlyInAnyOrderEntriesOf(metadata);
  }
}
