package io.icebergscan.planning.internal.wire;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Supplier;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.JsonNodeFactory;

/**
 * Reads one response body as a JSON tree and the values in it, naming the {@link Path} of whatever it rejects,
 * and the plan-task handle the body answered: a body is accepted whole or rejected with a
 * {@link MalformedResponseException}, and no other exception type leaves a parse ({@link #guarded}), so callers
 * can treat every protocol violation alike.
 *
 * <p>The message parsers follow the fixed shape of the spec (never the depth of the document), so a deeply nested
 * body can only exhaust Jackson's own nesting limit, which is reported as malformed too.
 *
 * <p>Whether a rejection may quote the body is decided here, once per body: an answer that may carry secrets (a
 * config, a table, credentials, a plan, which may hold the credentials vended for it) is read by a
 * {@linkplain #secretBearing secret-bearing} reader, whose rejections name the field, the kind of value and where
 * the JSON broke, and quote nothing of the body, not even through a cause.
 */
final class JsonReader {

  private static final int MAX_DETAIL_CHARS = 200;

  /** Stands in for an absent list; never modified. */
  static final JsonNode EMPTY_ARRAY = JsonNodeFactory.instance.arrayNode();

  private final @Nullable String planTask;
  private final boolean secretBearing;

  private JsonReader(@Nullable String planTask, boolean secretBearing) {
    this.planTask = planTask;
    this.secretBearing = secretBearing;
  }

  /**
   * For an answer without secrets, whose rejections quote what they reject (cut to 200 characters).
   *
   * @param planTask the handle whose answer is read, named in every rejection; {@code null} for other answers
   */
  static JsonReader quoting(@Nullable String planTask) {
    return new JsonReader(planTask, false);
  }

  /** For an answer that may carry secrets: its rejections quote nothing of it. */
  static JsonReader secretBearing() {
    return new JsonReader(null, true);
  }

  /**
   * For a plan-task's answer that may carry what a governed table's read restrictions keep (raw partition values,
   * statistics): its rejections name the handle and quote nothing of it.
   */
  static JsonReader withholding(String planTask) {
    return new JsonReader(planTask, true);
  }

  /**
   * The Jackson reader for catalog responses, whatever {@code mapper} was configured with. Trailing tokens:
   * explicit, so a shared mapper configured otherwise cannot make "{...} garbage" acceptable. Big decimals: a
   * residual's literal must reach the reader exactly as the catalog wrote it (a double would turn
   * 123456789012345678.91 into another number, and 1e400 into the string "Infinity"). Duplicate keys:
   * {"status":"failed","status":"completed"} has no one meaning, so it is malformed.
   */
  static ObjectReader strictReader(JsonMapper mapper) {
    return mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
        .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
        .with(StreamReadFeature.STRICT_DUPLICATE_DETECTION);
  }

  /**
   * Where a value sits in a body, such as {@code file-scan-tasks[3].data-file.record-count}. A task has dozens
   * of fields, so their paths are rendered only when a rejection names one.
   */
  record Path(@Nullable Path parent, @Nullable String name, int index) {

    static Path of(String name) {
      return new Path(null, name, -1);
    }

    Path field(String child) {
      return new Path(this, child, -1);
    }

    Path element(int position) {
      return new Path(this, null, position);
    }

    @Override
    public String toString() {
      StringBuilder text = new StringBuilder();
      appendTo(text);
      return text.toString();
    }

    private void appendTo(StringBuilder text) {
      if (this.parent != null) {
        this.parent.appendTo(text);
      }
      if (this.name == null) {
        text.append('[').append(this.index).append(']');
      }
      else {
        text.append(this.parent != null ? "." : "").append(this.name);
      }
    }
  }

  private static String brief(@Nullable String text) {
    if (text == null) {
      return "";
    }
    return text.length() <= MAX_DETAIL_CHARS ? text : text.substring(0, MAX_DETAIL_CHARS) + "…";
  }

  /** Text of the body (or a message that may repeat it) after {@code lead}, or nothing for a secret-bearing body. */
  String shown(String lead, @Nullable Object text) {
    return this.secretBearing || text == null ? "" : lead + brief(text.toString());
  }

  /** A string of the body in quotes after a space, or nothing for a secret-bearing body. */
  String quoted(@Nullable String text) {
    return this.secretBearing || text == null ? "" : " '" + brief(text) + "'";
  }

  /** Runs a parse, keeping the single-exception contract. */
  <T> T guarded(Supplier<T> parse) {
    try {
      return parse.get();
    }
    catch (MalformedResponseException ex) {
      throw ex;
    }
    catch (RuntimeException ex) {
      // Every check should have fired first; this keeps the single-exception contract if one did not.
      throw fail("unexpected content (" + ex.getClass().getSimpleName() + shown(": ", ex.getMessage()) + ")", null,
          ex);
    }
  }

  MalformedResponseException fail(String message, @Nullable Path field) {
    return fail(message, field, null);
  }

  /** A cause is kept only where the body may be quoted: its own message would quote it all the same. */
  MalformedResponseException fail(String message, @Nullable Path field, @Nullable Throwable cause) {
    return new MalformedResponseException(message, field == null ? null : field.toString(), this.planTask,
        this.secretBearing ? null : cause);
  }

  /** The body's top-level object. */
  JsonNode root(ObjectReader reader, byte @Nullable [] body) {
    if (body == null || body.length == 0) {
      throw fail("empty body", null);
    }
    JsonNode root;
    try {
      root = reader.readTree(body);
    }
    catch (JacksonException ex) {
      throw fail("body is " + JsonSyntaxErrors.describe(ex) + shown(": ", ex.getOriginalMessage()),
          JsonSyntaxErrors.enclosing(ex), ex);
    }
    if (root == null || root.isMissingNode()) {
      throw fail("empty body", null);
    }
    if (!root.isObject()) {
      throw fail("expected a JSON object but got " + kind(root), null);
    }
    return root;
  }

  /** A present, non-null member; optional members sent as JSON null mean the same as absent. */
  @Nullable JsonNode optional(JsonNode object, String name) {
    JsonNode node = object.get(name);
    return node == null || node.isNull() ? null : node;
  }

  JsonNode required(JsonNode object, Path parent, String name) {
    JsonNode node = object.get(name);
    if (node == null || node.isNull()) {
      throw fail("missing required field", parent.field(name));
    }
    return node;
  }

  JsonNode object(@Nullable JsonNode node, Path path) {
    if (node == null || !node.isObject()) {
      throw fail("expected an object but got " + kind(node), path);
    }
    return node;
  }

  JsonNode array(@Nullable JsonNode node, Path path) {
    if (node == null || !node.isArray()) {
      throw fail("expected an array but got " + kind(node), path);
    }
    return node;
  }

  String string(@Nullable JsonNode node, Path path) {
    if (node == null || !node.isString()) {
      throw fail("expected a string but got " + kind(node), path);
    }
    return node.stringValue();
  }

  String nonEmptyString(@Nullable JsonNode node, Path path) {
    String text = string(node, path);
    if (text.isEmpty()) {
      throw fail("empty string", path);
    }
    return text;
  }

  /** Integral JSON numbers only: "12", 12.0 and 1e1 are rejected rather than coerced. */
  int intValue(@Nullable JsonNode node, Path path) {
    if (node == null || !node.isIntegralNumber()) {
      throw fail("expected an integer but got " + kind(node), path);
    }
    if (!node.canConvertToInt()) {
      throw fail("integer" + shown(" ", node.asString()) + " does not fit in 32 bits", path);
    }
    return node.intValue();
  }

  long longValue(@Nullable JsonNode node, Path path) {
    if (node == null || !node.isIntegralNumber()) {
      throw fail("expected an integer but got " + kind(node), path);
    }
    if (!node.canConvertToLong()) {
      throw fail("integer" + shown(" ", node.asString()) + " does not fit in 64 bits", path);
    }
    return node.longValue();
  }

  long nonNegativeLong(@Nullable JsonNode node, Path path) {
    long value = longValue(node, path);
    if (value < 0) {
      throw fail("must not be negative" + shown(": ", value), path);
    }
    return value;
  }

  @Nullable Long optionalNonNegativeLong(JsonNode object, Path parent, String name) {
    JsonNode node = optional(object, name);
    return node == null ? null : nonNegativeLong(node, parent.field(name));
  }

  List<Integer> intList(JsonNode node, Path path) {
    JsonNode array = array(node, path);
    List<Integer> values = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      values.add(intAt(array.get(i), path, i));
    }
    return values;
  }

  List<Long> nonNegativeLongList(JsonNode node, Path path) {
    JsonNode array = array(node, path);
    List<Long> values = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      values.add(nonNegativeLongAt(array.get(i), path, i));
    }
    return values;
  }

  // Array elements are many (every stats value): their readers check the common valid case first and
  // build the element's path only for the failure, which the general reader then reports.

  int intAt(JsonNode element, Path parent, int index) {
    return element.isIntegralNumber() && element.canConvertToInt() ? element.intValue()
        : intValue(element, parent.element(index));
  }

  String nonEmptyStringAt(JsonNode element, Path parent, int index) {
    if (element.isString()) {
      String text = element.stringValue();
      if (!text.isEmpty()) {
        return text;
      }
    }
    return nonEmptyString(element, parent.element(index));
  }

  long nonNegativeLongAt(JsonNode element, Path parent, int index) {
    if (element.isIntegralNumber() && element.canConvertToLong()) {
      long value = element.longValue();
      if (value >= 0) {
        return value;
      }
    }
    return nonNegativeLong(element, parent.element(index));
  }

  Object primitiveAt(JsonNode element, Path parent, int index) {
    if (element.isString()) {
      return element.stringValue();
    }
    if (element.isIntegralNumber() && element.canConvertToLong()) {
      return element.longValue();
    }
    return primitive(element, parent.element(index));
  }

  /** A spec primitive as the plainest Java value; containers are never primitives. */
  Object primitive(@Nullable JsonNode node, Path path) {
    if (node == null || node.isNull()) {
      throw fail("null value", path);
    }
    if (node.isString()) {
      return node.stringValue();
    }
    if (node.isBoolean()) {
      return node.booleanValue();
    }
    if (node.isIntegralNumber()) {
      return longValue(node, path);
    }
    if (node.isNumber()) {
      // numberValue() never throws, unlike doubleValue() on a huge decimal; overflow shows as infinity.
      double value = node.numberValue().doubleValue();
      if (!Double.isFinite(value)) {
        throw fail("number" + shown(" ", node.asString()) + " is out of range", path);
      }
      return value;
    }
    throw fail("expected a primitive value but got " + kind(node), path);
  }

  /** What a rejected value was, for the message: a number by its text, unless the body may carry secrets. */
  String kind(@Nullable JsonNode node) {
    if (node == null || node.isMissingNode()) {
      return "nothing";
    }
    if (node.isNull()) {
      return "null";
    }
    if (node.isObject()) {
      return "an object";
    }
    if (node.isArray()) {
      return "an array";
    }
    if (node.isString()) {
      return "a string";
    }
    if (node.isBoolean()) {
      return "a boolean";
    }
    if (node.isNumber()) {
      return this.secretBearing ? "a number" : "the number " + brief(node.asString());
    }
    return node.getNodeType().name().toLowerCase(Locale.ROOT);
  }
}
