package io.icebergscan.planning.internal.wire;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import io.icebergscan.planning.internal.wire.WireTypes.LoadTableResult;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.json.JsonMapper;

/**
 * The answers about one table: {@code GET …/tables/{table}} (the spec's {@code LoadTableResult}) and
 * {@code GET …/tables/{table}/credentials} ({@code LoadCredentialsResponse}), which share
 * {@code storage-credentials}.
 *
 * <p>The table metadata is not read here: it is handed on as JSON text, for Apache Iceberg's own parser, once it is
 * known to be an object. So are the {@code read-restrictions}: what they mean needs the table's schema, which the
 * reader of the table's rows has (the iceberg module's {@code ReadRestrictions}). Config and credential values may be secrets, so a secret-bearing reader reads both answers.
 */
public final class LoadTableParser {

  private static final String STORAGE_CREDENTIALS = "storage-credentials";
  private static final String READ_RESTRICTIONS = "read-restrictions";

  private final ObjectReader reader;
  private final ObjectWriter writer;

  public LoadTableParser(JsonMapper mapper) {
    this.reader = JsonReader.strictReader(mapper);
    this.writer = mapper.writer();
  }

  public LoadTableResult table(byte[] body) {
    JsonReader in = JsonReader.secretBearing();
    return in.guarded(() -> {
      JsonNode root = in.root(this.reader, body);
      JsonNode location = in.optional(root, "metadata-location");
      String metadataLocation = location == null ? null : in.string(location, Path.of("metadata-location"));
      JsonNode metadata = in.object(requiredMember(in, root, "metadata"), Path.of("metadata"));
      JsonNode config = in.optional(root, "config");
      JsonNode restrictions = in.optional(root, READ_RESTRICTIONS);
      return new LoadTableResult(metadataLocation, text(in, metadata, "metadata"),
          config == null ? Map.of() : stringMap(in, config, Path.of("config")),
          storageCredentials(in, root, false), restrictions == null ? null
              : text(in, in.object(restrictions, Path.of(READ_RESTRICTIONS)), READ_RESTRICTIONS));
    });
  }

  public List<StorageCredential> credentials(byte[] body) {
    JsonReader in = JsonReader.secretBearing();
    return in.guarded(() -> storageCredentials(in, in.root(this.reader, body), true));
  }

  /**
   * The object as JSON text, written from what was read: the same members in the same order, and numbers as the
   * catalog wrote them (the reader keeps decimals as big decimals), for a parser that reads it as the catalog's.
   */
  private String text(JsonReader in, JsonNode object, String field) {
    try {
      return this.writer.writeValueAsString(object);
    }
    catch (JacksonException unwritable) {
      throw in.fail("cannot be written back as JSON" + in.shown(": ", unwritable.getOriginalMessage()),
          Path.of(field), unwritable);
    }
  }

  /**
   * The {@code storage-credentials} of an answer, {@code [{prefix, config{}}]}, by the rules and with the field
   * paths {@link PlanResultParser} reads a completed plan's by.
   */
  static List<StorageCredential> storageCredentials(JsonReader in, JsonNode root, boolean required) {
    JsonNode node = required ? requiredMember(in, root, STORAGE_CREDENTIALS) : in.optional(root, STORAGE_CREDENTIALS);
    if (node == null) {
      return List.of();
    }
    JsonNode array = in.array(node, Path.of(STORAGE_CREDENTIALS));
    List<StorageCredential> credentials = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      Path path = Path.of(STORAGE_CREDENTIALS).element(i);
      JsonNode credential = in.object(array.get(i), path);
      String prefix = in.string(in.required(credential, path, "prefix"), path.field("prefix"));
      Path configPath = path.field("config");
      credentials.add(new StorageCredential(prefix,
          stringMap(in, in.object(in.required(credential, path, "config"), configPath), configPath)));
    }
    return credentials;
  }

  /** A member of the body's top-level object that must be there and not null. */
  private static JsonNode requiredMember(JsonReader in, JsonNode root, String name) {
    JsonNode node = in.optional(root, name);
    if (node == null) {
      throw in.fail("missing required field", Path.of(name));
    }
    return node;
  }

  /** An object of string values, as the spec's {@code additionalProperties: string}; null is not a string. */
  private static Map<String, String> stringMap(JsonReader in, @Nullable JsonNode node, Path path) {
    JsonNode object = in.object(node, path);
    Map<String, String> values = new LinkedHashMap<>();
    for (Map.Entry<String, JsonNode> entry : object.properties()) {
      JsonNode value = entry.getValue();
      if (!value.isString()) {
        throw in.fail("expected a string value but got " + in.kind(value), path.field(entry.getKey()));
      }
      values.put(entry.getKey(), value.stringValue());
    }
    return values;
  }
}
