package io.icebergscan.planning.internal.wire;

import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The {@code error} object of an error response ({@code IcebergErrorResponse}) or of a {@code failed} plan.
 * Lenient: an error body only adds detail to a failure the caller already knows about from the status code.
 */
public final class ErrorBodyParser {

  private final ObjectReader reader;

  public ErrorBodyParser(JsonMapper mapper) {
    this.reader = JsonReader.strictReader(mapper);
  }

  /**
   * The error of an error response, or {@code null} when the body does not have that shape (empty, not JSON,
   * an HTML error page). Never throws.
   */
  public @Nullable ErrorBody parse(byte @Nullable [] body) {
    if (body == null || body.length == 0) {
      return null;
    }
    try {
      JsonNode root = this.reader.readTree(body);
      return root != null && root.isObject() ? errorObject(root.get("error")) : null;
    }
    catch (RuntimeException ex) {
      return null;
    }
  }

  /** An {@code error} object, each field kept only when it has the spec's type; {@code null} for anything else. */
  static @Nullable ErrorBody errorObject(@Nullable JsonNode error) {
    if (error == null || !error.isObject()) {
      return null;
    }
    return new ErrorBody(string(error.get("message")), string(error.get("type")), code(error.get("code")));
  }

  private static @Nullable String string(@Nullable JsonNode node) {
    return node != null && node.isString() ? node.stringValue() : null;
  }

  private static @Nullable Integer code(@Nullable JsonNode node) {
    if (node == null) {
      return null;
    }
    if (node.isIntegralNumber() && node.canConvertToInt()) {
      return node.intValue();
    }
    if (node.isString()) {
      try {
        return Integer.valueOf(node.stringValue().trim());
      }
      catch (NumberFormatException ex) {
        return null;
      }
    }
    return null;
  }
}
