package io.icebergscan.planning.internal.wire;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import io.icebergscan.planning.internal.wire.WireTypes.CatalogConfig;
import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/** The answer of {@code GET /v1/config}: the spec's {@code CatalogConfig}. */
public final class ConfigParser {

  private final ObjectReader reader;

  public ConfigParser(JsonMapper mapper) {
    this.reader = JsonReader.strictReader(mapper);
  }

  public CatalogConfig parse(byte[] body) {
    JsonReader in = JsonReader.secretBearing();
    return in.guarded(() -> {
      JsonNode root = in.root(this.reader, body);
      return new CatalogConfig(properties(in, root, "defaults"), properties(in, root, "overrides"),
          endpoints(in, root), idempotencyKeyLifetime(in, root));
    });
  }

  /**
   * Lenient: a lifetime that is not a positive ISO-8601 duration reads as absent, which only makes the
   * client more careful (a plan submission is then not sent again after a failure that may have reached it).
   */
  private static @Nullable Duration idempotencyKeyLifetime(JsonReader in, JsonNode root) {
    JsonNode node = in.optional(root, "idempotency-key-lifetime");
    if (node == null || !node.isString()) {
      return null;
    }
    try {
      Duration lifetime = Duration.parse(node.stringValue().trim());
      return lifetime.isNegative() || lifetime.isZero() ? null : lifetime;
    }
    catch (DateTimeParseException notADuration) {
      return null;
    }
  }

  private static Map<String, String> properties(JsonReader in, JsonNode root, String name) {
    JsonNode node = root.get(name);
    if (node == null) {
      return Map.of();
    }
    JsonNode object = in.object(node, Path.of(name));
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : object.properties()) {
      JsonNode value = entry.getValue();
      if (value.isNull()) {
        continue;
      }
      if (!value.isString() && !value.isNumber() && !value.isBoolean()) {
        throw in.fail("expected a string value but got " + in.kind(value),
            Path.of(name).field(entry.getKey()));
      }
      // Some catalogs send numbers and booleans bare; their text is what a string-typed client would see.
      values.put(entry.getKey(), value.asString());
    }
    return values;
  }

  /**
   * Odd entries (not strings, not a method and a path) are skipped: a catalog's list is tolerated as long as it is a
   * list, and an endpoint it cannot name is one it does not offer.
   */
  private static @Nullable Set<Endpoint> endpoints(JsonReader in, JsonNode root) {
    JsonNode node = in.optional(root, "endpoints");
    if (node == null) {
      return null;
    }
    JsonNode array = in.array(node, Path.of("endpoints"));
    Set<Endpoint> endpoints = new LinkedHashSet<>();
    for (JsonNode entry : array) {
      if (!entry.isString()) {
        continue;
      }
      try {
        endpoints.add(Endpoint.parse(entry.stringValue()));
      }
      catch (IllegalArgumentException notAnEndpoint) {
        // no request of this client can need it
      }
    }
    return endpoints;
  }
}
