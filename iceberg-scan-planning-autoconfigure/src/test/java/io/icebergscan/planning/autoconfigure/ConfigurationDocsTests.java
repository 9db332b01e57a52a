package io.icebergscan.planning.autoconfigure;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** docs/configuration.md lists exactly the properties of the generated metadata, with their defaults and texts. */
class ConfigurationDocsTests {

  private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| (`([^`]*)`)? *\\| (.*) \\|$");

  /** The iceberg module's properties: its own IcebergReadingConfigurationDocsTests holds their rows. */
  private static final String ICEBERG_MODULE = "iceberg.rest.scan-planning.iceberg.";

  @Test
  void thePropertyTableIsTheMetadata() throws Exception {
    Map<String, List<String>> documented = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "configuration.md"))) {
      Matcher row = ROW.matcher(line);
      if (row.matches() && row.group(1).contains(".") && !row.group(1).startsWith(ICEBERG_MODULE)) {
        documented.put(row.group(1), List.of(row.group(3) == null ? "" : row.group(3), row.group(4)));
      }
    }
    Map<String, List<String>> metadata = new LinkedHashMap<>();
    JsonNode root;
    try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
      root = JsonMapper.builder().build().readTree(in);
    }
    for (JsonNode property : root.get("properties")) {
      JsonNode value = property.path("defaultValue");
      String shown = value.isArray() ? String.join(",", value.valueStream().map(JsonNode::asString).toList())
          : value.isMissingNode() ? "" : value.asString();
      metadata.put(property.get("name").asString(), List.of(shown, property.get("description").asString()));
    }
    assertThat(documented).isNotEmpty().containsExactlyInAnyOrderEntriesOf(metadata);
  }
}
