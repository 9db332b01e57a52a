package io.icebergscan.planning;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The property tables of docs/configuration.md and the configuration metadata of a module's build, each as property
 * name to default and description: what each module's docs test holds equal, for the rows that are its own.
 */
public final class ConfigurationDocs {

  /** A row of the tables: one format for the whole file. */
  private static final Pattern ROW = Pattern.compile("^\\| `([a-z0-9.-]+)` \\| (`([^`]*)`)? *\\| (.*) \\|$");
  private static final String METADATA = "META-INF/spring-configuration-metadata.json";

  private ConfigurationDocs() {
  }

  /** The rows of docs/configuration.md (read from a module's directory) whose property is one of {@code ours}. */
  public static Map<String, List<String>> documented(Predicate<String> ours) throws IOException {
    Map<String, List<String>> documented = new LinkedHashMap<>();
    for (String line : Files.readAllLines(Path.of("..", "docs", "configuration.md"))) {
      Matcher row = ROW.matcher(line);
      if (row.matches() && row.group(1).contains(".") && ours.test(row.group(1))) {
        documented.put(row.group(1), List.of(row.group(3) == null ? "" : row.group(3), row.group(4)));
      }
    }
    return documented;
  }

  /**
   * The properties of the metadata that the build of {@code moduleClass}'s module generated, defaults shown as the
   * docs show them (a list joined with commas).
   */
  public static Map<String, List<String>> metadata(Class<?> moduleClass) throws IOException {
    Map<String, List<String>> metadata = new LinkedHashMap<>();
    for (JsonNode property : properties(moduleClass)) {
      JsonNode value = property.path("defaultValue");
      String shown = value.isArray() ? String.join(",", value.valueStream().map(JsonNode::asString).toList())
          : value.isMissingNode() ? "" : value.asString();
      metadata.put(property.get("name").asString(), List.of(shown, property.get("description").asString()));
    }
    return metadata;
  }

  /**
   * The {@code properties} of the metadata that the build of {@code moduleClass}'s module generated. Other modules'
   * metadata may be on the class path too, so the file is picked by where it was loaded from rather than by being
   * first.
   */
  public static JsonNode properties(Class<?> moduleClass) throws IOException {
    String module = moduleClass.getProtectionDomain().getCodeSource().getLocation().toString();
    List<URL> mine = Collections.list(moduleClass.getClassLoader().getResources(METADATA)).stream()
        .filter(url -> url.toString().startsWith(module) || url.toString().startsWith("jar:" + module + "!/"))
        .toList();
    assertThat(mine).as("the generated configuration metadata of " + module).hasSize(1);
    try (InputStream in = mine.get(0).openStream()) {
      return JsonMapper.builder().build().readTree(in).get("properties");
    }
  }
}
