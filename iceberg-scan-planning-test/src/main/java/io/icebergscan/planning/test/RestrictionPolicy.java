package io.icebergscan.planning.test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundReference;
import org.apache.iceberg.expressions.BoundSetPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.jspecify.annotations.Nullable;

/**
 * What an {@link EmbeddedIcebergCatalog} serves as a table's {@code read-restrictions}
 * ({@linkplain EmbeddedIcebergCatalog#readRestrictions(org.apache.iceberg.catalog.TableIdentifier, RestrictionPolicy)
 * its knob}): the top-level member of a {@code LoadTableResult} that the REST spec gives a governed table, with a
 * {@code required-row-filter} (a predicate whose column references are field ids) and
 * {@code required-column-projections} (a list of {@code {"field-id": N, "action": "…"}}). Immutable and thread-safe.
 *
 * <pre>{@code
 * RestrictionPolicy policy = RestrictionPolicy.builder()
 *     .rowFilter(Expressions.equal("country", "US"))
 *     .mask("email", "mask-alphanum")
 *     .mask("address.zip", "replace-with-null")
 *     .build();
 * }</pre>
 *
 * <p>A built policy names columns, which {@link #toJson(Schema)} resolves to field ids against the schema it is
 * given: the catalog gives the table's current schema each time it serves the policy, so the policy follows renames
 * of other columns, and a column the schema no longer has fails the answer. {@link #json(String)} serves a text as it
 * is, for tests of readers that meet malformed or unsupported restrictions.
 */
public final class RestrictionPolicy {

  private final @Nullable Expression rowFilter;
  /** In the order given, a column masked twice twice. */
  private final List<Mask> masks;
  /** The text {@link #json(String)} serves as it is; {@code null} for a built policy. */
  private final @Nullable String verbatim;

  private record Mask(String column, String action) {
  }

  private RestrictionPolicy(@Nullable Expression rowFilter, List<Mask> masks, @Nullable String verbatim) {
    this.rowFilter = rowFilter;
    this.masks = List.copyOf(masks);
    this.verbatim = verbatim;
  }

  /** A policy built from a row filter and masks, each optional: one with neither serves {@code {}}. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * A policy served as this text, whatever the table's schema: any JSON object, well-formed as restrictions or not
   * (unknown actions or expression types, field ids the table lacks, members of the wrong type), or {@code null}.
   *
   * @param readRestrictionsJson the value of the {@code read-restrictions} member
   * @throws IllegalArgumentException when the text is not one JSON object or {@code null}
   */
  public static RestrictionPolicy json(String readRestrictionsJson) {
    Objects.requireNonNull(readRestrictionsJson, "readRestrictionsJson");
    JsonNode parsed;
    try {
      parsed = JsonUtil.mapper().reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
          .readTree(readRestrictionsJson);
    }
    catch (IOException failure) {
      throw new IllegalArgumentException("read-restrictions must be a JSON object or null: " + failure.getMessage(),
          failure);
    }
    if (parsed == null || !(parsed.isObject() || parsed.isNull())) {
      throw new IllegalArgumentException("read-restrictions must be a JSON object or null, not: "
          + readRestrictionsJson);
    }
    return new RestrictionPolicy(null, List.of(), readRestrictionsJson);
  }

  /**
   * The {@code read-restrictions} object for a table of this schema, as JSON text. For a built policy: its
   * {@code required-row-filter}, when it has one, bound to the schema (case-sensitive, with Iceberg's
   * {@link Binder}) and written in the expressions spec's JSON form, with references by field id:
   * <ul>
   *   <li>{@code and} and {@code or} as {@code {"type":"and","left":…,"right":…}}, {@code not} as
   *   {@code {"type":"not","child":…}};</li>
   *   <li>{@code is-null}, {@code not-null}, {@code is-nan} and {@code not-nan} as
   *   {@code {"type":"is-null","child":{"type":"reference","id":N}}};</li>
   *   <li>{@code lt}, {@code lt-eq}, {@code gt}, {@code gt-eq}, {@code eq}, {@code not-eq}, {@code starts-with} and
   *   {@code not-starts-with} as {@code {"type":"lt","left":{"type":"reference","id":N},
   *   "right":{"type":"literal","value":VALUE}}};</li>
   *   <li>{@code in} and {@code not-in} as {@code {"type":"in","child":{"type":"reference","id":N},
   *   "values":[{"type":"literal","value":VALUE}, …]}}, the values in the order of the field's type;</li>
   *   <li>always true and always false as the JSON booleans.</li>
   * </ul>
   * {@code VALUE} is the single-value JSON of the field's type (Iceberg's {@link SingleValueParser}) of the literal
   * as binding converts it to that type: a date as {@code "2024-07-15"}, a decimal as {@code "12.30"} at the column's
   * scale, an int literal on a long column as a long. The filter is written as it binds, simplifications included:
   * {@code not-null} on a required column is {@code true}, {@code in} with one value is {@code eq}. Then its
   * {@code required-column-projections}, when it has masks: each column's field id, and the action as given.
   *
   * <p>For a policy made with {@link #json(String)}: that text, whatever the schema.
   *
   * @throws IllegalArgumentException when a masked column or a column of the row filter is not in the schema, when
   *     the row filter does not bind to it (a literal that does not convert to its column's type), or when the row
   *     filter applies a transform or another function to a column (such as {@code Expressions.bucket}), which this
   *     policy does not serve
   */
  public String toJson(Schema schema) {
    Objects.requireNonNull(schema, "schema");
    if (this.verbatim != null) {
      return this.verbatim;
    }
    @Nullable Expression bound = this.rowFilter == null ? null : bind(this.rowFilter, schema);
    List<Integer> maskedIds = this.masks.stream().map(mask -> fieldId(schema, mask.column())).toList();
    return JsonUtil.generate(json -> {
      json.writeStartObject();
      if (bound != null) {
        json.writeFieldName("required-row-filter");
        writePredicate(bound, json);
      }
      if (!this.masks.isEmpty()) {
        json.writeArrayFieldStart("required-column-projections");
        for (int i = 0; i < this.masks.size(); i++) {
          json.writeStartObject();
          json.writeNumberField("field-id", maskedIds.get(i));
          json.writeStringField("action", this.masks.get(i).action());
          json.writeEndObject();
        }
        json.writeEndArray();
      }
      json.writeEndObject();
    }, false);
  }

  /**
   * The fields the masks of this policy cover in this schema: each masked column and every field nested under it
   * (struct fields, list elements, map keys and values), mapped to the masked column's full name. For a policy made
   * with {@link #json(String)}, the {@code field-id}s of its {@code required-column-projections} that the schema
   * has; anything else in the text is ignored.
   *
   * @throws IllegalArgumentException when a masked column of a built policy is not in the schema
   */
  Map<Integer, String> maskedFields(Schema schema) {
    List<Integer> maskedIds = this.verbatim == null
        ? this.masks.stream().map(mask -> fieldId(schema, mask.column())).toList()
        : projectedFieldIds(this.verbatim);
    Map<Integer, String> covered = new HashMap<>();
    for (int id : maskedIds) {
      Types.NestedField field = schema.findField(id);
      String column = schema.findColumnName(id);
      if (field != null && column != null) {
        TypeUtil.indexById(Types.StructType.of(field)).keySet().forEach(nested -> covered.putIfAbsent(nested, column));
      }
    }
    return covered;
  }

  /** The masks, and the columns of the row filter but not its values, which tests may want kept out of logs. */
  @Override
  public String toString() {
    if (this.verbatim != null) {
      return "RestrictionPolicy[json, " + this.verbatim.length() + " characters]";
    }
    List<String> masked = this.masks.stream().map(mask -> mask.column() + "=" + mask.action()).toList();
    String filter = this.rowFilter == null ? "none" : "on " + referencedColumns(this.rowFilter);
    return "RestrictionPolicy[rowFilter=" + filter + ", masks=" + masked + "]";
  }

  /** The columns an expression names, sorted. */
  private static Set<String> referencedColumns(Expression filter) {
    return ExpressionVisitors.visit(filter, new ExpressionVisitors.ExpressionVisitor<Set<String>>() {
      @Override
      public Set<String> alwaysTrue() {
        return new TreeSet<>();
      }

      @Override
      public Set<String> alwaysFalse() {
        return new TreeSet<>();
      }

      @Override
      public Set<String> not(Set<String> result) {
        return result;
      }

      @Override
      public Set<String> and(Set<String> left, Set<String> right) {
        left.addAll(right);
        return left;
      }

      @Override
      public Set<String> or(Set<String> left, Set<String> right) {
        return and(left, right);
      }

      @Override
      public <T> Set<String> predicate(BoundPredicate<T> predicate) {
        return new TreeSet<>(Set.of(predicate.ref().name()));
      }

      @Override
      public <T> Set<String> predicate(UnboundPredicate<T> predicate) {
        return new TreeSet<>(Set.of(predicate.ref().name()));
      }
    });
  }

  private static Expression bind(Expression rowFilter, Schema schema) {
    try {
      return Binder.bind(schema.asStruct(), rowFilter, true);
    }
    catch (ValidationException failure) {
      throw new IllegalArgumentException("the row filter does not bind to the table's schema: "
          + failure.getMessage(), failure);
    }
  }

  private static int fieldId(Schema schema, String column) {
    Types.NestedField field = schema.findField(column);
    if (field == null) {
      throw new IllegalArgumentException("a mask on column " + column + ", which the table's schema does not have");
    }
    return field.fieldId();
  }

  private static void writePredicate(Expression expression, JsonGenerator json) throws IOException {
    switch (expression.op()) {
      case TRUE -> json.writeBoolean(true);
      case FALSE -> json.writeBoolean(false);
      case AND -> writeBinary("and", ((And) expression).left(), ((And) expression).right(), json);
      case OR -> writeBinary("or", ((Or) expression).left(), ((Or) expression).right(), json);
      case NOT -> {
        json.writeStartObject();
        json.writeStringField("type", "not");
        json.writeFieldName("child");
        writePredicate(((Not) expression).child(), json);
        json.writeEndObject();
      }
      case IS_NULL, NOT_NULL, IS_NAN, NOT_NAN, LT, LT_EQ, GT, GT_EQ, EQ, NOT_EQ, STARTS_WITH, NOT_STARTS_WITH, IN,
          NOT_IN -> writeTest((BoundPredicate<?>) expression, json);
      default -> throw new IllegalArgumentException("the row filter holds a " + expression.op()
          + " expression, which is not a predicate");
    }
  }

  private static void writeBinary(String type, Expression left, Expression right, JsonGenerator json)
      throws IOException {
    json.writeStartObject();
    json.writeStringField("type", type);
    json.writeFieldName("left");
    writePredicate(left, json);
    json.writeFieldName("right");
    writePredicate(right, json);
    json.writeEndObject();
  }

  private static void writeTest(BoundPredicate<?> predicate, JsonGenerator json) throws IOException {
    if (!(predicate.term() instanceof BoundReference<?> reference)) {
      throw new IllegalArgumentException("the row filter applies a function to a column (" + predicate.term()
          + "), which a restriction policy does not serve; RestrictionPolicy.json can send one");
    }
    Type type = reference.type();
    json.writeStartObject();
    json.writeStringField("type", predicate.op().name().toLowerCase(Locale.ROOT).replace('_', '-'));
    if (predicate.isLiteralPredicate()) {
      writeReference("left", reference, json);
      json.writeFieldName("right");
      writeLiteral(type, predicate.asLiteralPredicate().literal().value(), json);
    }
    else if (predicate.isSetPredicate()) {
      writeReference("child", reference, json);
      json.writeArrayFieldStart("values");
      for (Object value : sorted(predicate.asSetPredicate(), reference)) {
        writeLiteral(type, value, json);
      }
      json.writeEndArray();
    }
    else {
      writeReference("child", reference, json);
    }
    json.writeEndObject();
  }

  @SuppressWarnings("unchecked")
  private static List<Object> sorted(BoundSetPredicate<?> predicate, BoundReference<?> reference) {
    List<Object> values = new ArrayList<>(predicate.literalSet());
    values.sort((Comparator<Object>) reference.comparator());
    return values;
  }

  private static void writeReference(String member, BoundReference<?> reference, JsonGenerator json)
      throws IOException {
    json.writeObjectFieldStart(member);
    json.writeStringField("type", "reference");
    json.writeNumberField("id", reference.fieldId());
    json.writeEndObject();
  }

  private static void writeLiteral(Type type, Object value, JsonGenerator json) throws IOException {
    json.writeStartObject();
    json.writeStringField("type", "literal");
    json.writeFieldName("value");
    SingleValueParser.toJson(type, value, json);
    json.writeEndObject();
  }

  private static List<Integer> projectedFieldIds(String readRestrictionsJson) {
    List<Integer> ids = new ArrayList<>();
    JsonNode projections = JsonUtil.parse(readRestrictionsJson, node -> node).path("required-column-projections");
    for (JsonNode projection : projections) {
      JsonNode id = projection.path("field-id");
      if (id.canConvertToExactIntegral() && id.canConvertToInt()) {
        ids.add(id.asInt());
      }
    }
    return ids;
  }

  /** A policy built column by column; not thread-safe, the built policy is. */
  public static final class Builder {

    private @Nullable Expression rowFilter;
    private final List<Mask> masks = new ArrayList<>();

    private Builder() {
    }

    /**
     * The {@code required-row-filter}: an unbound Iceberg expression that names columns
     * ({@code Expressions.equal("country", "US")}, nested columns with dots), resolved to field ids each time the
     * policy is served. Replaces an earlier one; {@code Expressions.alwaysTrue()} serves {@code true}.
     */
    public Builder rowFilter(Expression filter) {
      this.rowFilter = Objects.requireNonNull(filter, "filter");
      return this;
    }

    /**
     * A {@code required-column-projections} entry, served in the order given. A column masked twice is served
     * twice, an invalid restriction that readers must refuse.
     *
     * @param column the column's full name, nested with dots ({@code address.zip})
     * @param action the action's wire name, such as {@code mask-alphanum}; any string, unknown actions included
     */
    public Builder mask(String column, String action) {
      this.masks.add(new Mask(Objects.requireNonNull(column, "column"), Objects.requireNonNull(action, "action")));
      return this;
    }

    public RestrictionPolicy build() {
      return new RestrictionPolicy(this.rowFilter, this.masks, null);
    }
  }
}
