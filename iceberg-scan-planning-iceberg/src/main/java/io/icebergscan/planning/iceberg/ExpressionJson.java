package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expression.Operation;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.transforms.Transforms;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.StreamReadFeature;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Apache Iceberg expressions read from the REST spec's JSON, in both of its forms, as Iceberg's unbound
 * {@link Expression}s: the one home of expression JSON in this module. Apache Iceberg 1.12's {@code ExpressionParser}
 * reads only the legacy form.
 *
 * <ul>
 *   <li><b>The expressions spec's form</b> ({@code format/expressions-spec.md}, Appendix B): {@code and}/{@code or}
 *       with {@code left}/{@code right}, {@code not} with {@code child}; tests with {@code child}; comparisons with
 *       {@code left}/{@code right}, a value expression on one side and a literal on the other (a literal on the left
 *       turns the comparison around); sets with {@code child} and {@code values}; references by {@code id} or
 *       {@code name}; {@code apply} of Iceberg's transform functions ({@code identity}, {@code year}, {@code month},
 *       {@code day}, {@code hour}, {@code bucket}, {@code truncate}); literals bare or as
 *       {@code {"type":"literal","value":…}}, with an optional {@code data-type}; {@code true} and {@code false}, as
 *       JSON booleans or the deprecated {@code {"type":"true"}}.</li>
 *   <li><b>The legacy form</b>: {@code {"type":"lt","term":…,"value":…}}, {@code values} for sets, terms as names,
 *       {@code {"type":"reference","term":…}} or {@code {"type":"transform","transform":"bucket[16]","term":…}}.</li>
 * </ul>
 *
 * <p>Strict, since what is read may be a restriction a reader must enforce in full: an unknown expression type, an
 * unknown member, a function other than the transforms, a comparison of two columns or of two constants, a null or
 * NaN constant, or a literal the column's type cannot take is an {@link InvalidExpressionException}, never a
 * predicate dropped or widened. A literal is typed by the column it is compared with when the schema is known (its
 * single-value JSON: dates, times and timestamps as ISO strings, decimals and UUIDs as strings, binary as hex), and as
 * Iceberg's own parser types it otherwise (a string, a long, a double or a boolean, converted when bound). Messages
 * name the member and the field, never a value.
 */
final class ExpressionJson {

  /** Which references an expression may use. */
  enum References {
    /** Field ids only: the form a catalog's required row filter must use, so that renames do not move it. */
    IDS,
    /** Names only: a filter given without a schema, such as an application's. */
    NAMES,
    /** Either: a residual, bound to the scan's schema. */
    ANY
  }

  /** An expression that cannot be read, or cannot be read for that schema: naming the member and the field. */
  static final class InvalidExpressionException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final transient @Nullable Integer fieldId;

    InvalidExpressionException(String path, @Nullable Integer fieldId, String rule) {
      super("at " + path + ": " + rule);
      this.fieldId = fieldId;
    }

    /** The field the expression refers to where it breaks, or {@code null}. */
    @Nullable Integer fieldId() {
      return this.fieldId;
    }
  }

  /** Numbers as written (decimals exact), duplicate members refused: one object, one meaning. */
  private static final JsonMapper MAPPER = JsonMapper.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
      .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
      .build();

  private static final Map<String, Operation> TESTS = Map.of("is-null", Operation.IS_NULL, "not-null",
      Operation.NOT_NULL, "is-nan", Operation.IS_NAN, "not-nan", Operation.NOT_NAN);
  private static final Map<String, Operation> COMPARISONS = Map.of("lt", Operation.LT, "lt-eq", Operation.LT_EQ,
      "gt", Operation.GT, "gt-eq", Operation.GT_EQ, "eq", Operation.EQ, "not-eq", Operation.NOT_EQ, "starts-with",
      Operation.STARTS_WITH, "not-starts-with", Operation.NOT_STARTS_WITH);
  private static final Map<String, Operation> SETS = Map.of("in", Operation.IN, "not-in", Operation.NOT_IN);
  private static final Set<String> TRANSFORM_FUNCTIONS = Set.of("identity", "year", "month", "day", "hour", "bucket",
      "truncate");
  private static final String ICEBERG_FUNCTIONS = "iceberg_functions";
  /** The transforms, as a legacy term or {@code apply} names them: a parameter is a positive int. */
  private static final java.util.regex.Pattern TRANSFORM = java.util.regex.Pattern.compile(
      "year|month|day|hour|(bucket|truncate)\\[[1-9][0-9]{0,8}]");

  private final @Nullable Schema schema;
  private final References references;

  private ExpressionJson(@Nullable Schema schema, References references) {
    this.schema = schema;
    this.references = references;
  }

  /** JSON text as a tree: numbers exact, duplicate members refused. */
  static JsonNode tree(String json) {
    try {
      return MAPPER.readTree(json);
    }
    catch (JacksonException notJson) {
      // the parser's message quotes the text it stopped at: say only where
      throw new InvalidExpressionException("line " + notJson.getLocation().getLineNr() + ", column "
          + notJson.getLocation().getColumnNr(), null, "not well-formed JSON");
    }
  }

  /**
   * The expression a JSON predicate says.
   *
   * @param schema the schema references are resolved and literals typed against, or {@code null} for none (then
   *     references must be names, and literals are typed when the expression is bound)
   * @param path where the predicate is, for messages: {@code "required-row-filter"}, say
   * @throws InvalidExpressionException when it is not a predicate this reader can apply in full
   */
  static Expression parse(JsonNode predicate, @Nullable Schema schema, References references, String path) {
    if (schema == null && references == References.IDS) {
      throw new IllegalArgumentException("references by id need a schema");
    }
    return new ExpressionJson(schema, references).predicate(predicate, path);
  }

  private Expression predicate(JsonNode node, String path) {
    if (node.isBoolean()) {
      return node.booleanValue() ? Expressions.alwaysTrue() : Expressions.alwaysFalse();
    }
    if (!node.isObject()) {
      throw invalid(path, null, "a predicate is an object, true or false, not " + kind(node));
    }
    String type = string(node, "type", path);
    switch (type) {
      case "true", "false" -> {
        members(node, path, "type");
        return "true".equals(type) ? Expressions.alwaysTrue() : Expressions.alwaysFalse();
      }
      case "and", "or" -> {
        members(node, path, "type", "left", "right");
        Expression left = predicate(required(node, "left", path), path + ".left");
        Expression right = predicate(required(node, "right", path), path + ".right");
        return "and".equals(type) ? Expressions.and(left, right) : Expressions.or(left, right);
      }
      case "not" -> {
        members(node, path, "type", "child");
        return Expressions.not(predicate(required(node, "child", path), path + ".child"));
      }
      default -> {
        // fall through to the tests, comparisons and sets below
      }
    }
    boolean legacy = node.has("term");
    Operation test = TESTS.get(type);
    if (test != null) {
      members(node, path, "type", legacy ? "term" : "child");
      Term term = legacy ? legacyTerm(required(node, "term", path), path + ".term")
          : term(required(node, "child", path), path + ".child");
      if ((test == Operation.IS_NAN || test == Operation.NOT_NAN) && term.type() != null
          && term.type().typeId() != Type.TypeID.FLOAT && term.type().typeId() != Type.TypeID.DOUBLE) {
        throw invalid(path, term.fieldId(), "a NaN test of a " + term.type());
      }
      return SpecPredicates.predicate(test, term.term(), List.of());
    }
    Operation set = SETS.get(type);
    if (set != null) {
      members(node, path, "type", legacy ? "term" : "child", "values");
      Term term = comparable(legacy ? legacyTerm(required(node, "term", path), path + ".term")
          : term(required(node, "child", path), path + ".child"), set, path);
      List<Object> values = literals(required(node, "values", path), term, path + ".values");
      return SpecPredicates.predicate(set, term.term(), values);
    }
    Operation comparison = COMPARISONS.get(type);
    if (comparison == null) {
      throw invalid(path + ".type", null, "unknown expression type '" + type + "'");
    }
    if (legacy) {
      members(node, path, "type", "term", "value");
      Term term = comparable(legacyTerm(required(node, "term", path), path + ".term"), comparison, path);
      return SpecPredicates.predicate(comparison, term.term(),
          List.of(literal(required(node, "value", path), term, path + ".value")));
    }
    members(node, path, "type", "left", "right");
    JsonNode left = required(node, "left", path);
    JsonNode right = required(node, "right", path);
    boolean leftIsTerm = isTerm(left);
    boolean rightIsTerm = isTerm(right);
    if (leftIsTerm == rightIsTerm) {
      throw invalid(path, null, leftIsTerm ? "a comparison of two columns, which Iceberg cannot evaluate"
          : "a comparison of two constants");
    }
    if (leftIsTerm) {
      Term term = comparable(term(left, path + ".left"), comparison, path);
      return SpecPredicates.predicate(comparison, term.term(), List.of(literal(right, term, path + ".right")));
    }
    Term term = comparable(term(right, path + ".right"), comparison, path);
    return SpecPredicates.predicate(turnedAround(comparison, path), term.term(),
        List.of(literal(left, term, path + ".left")));
  }

  /** The term, once its type (when known) is one the comparison or set test applies to. */
  private static Term comparable(Term term, Operation op, String path) {
    Type type = term.type();
    if (type == null) {
      return term;
    }
    if (!type.isPrimitiveType()) {
      throw invalid(path, term.fieldId(), "a comparison of a " + type.typeId().name().toLowerCase(java.util.Locale.ROOT)
          + ", which only tests for null take");
    }
    if ((op == Operation.STARTS_WITH || op == Operation.NOT_STARTS_WITH) && type.typeId() != Type.TypeID.STRING) {
      throw invalid(path, term.fieldId(), "a prefix test of a " + type);
    }
    return term;
  }

  /** {@code 3 < x} as {@code x > 3}. */
  private static Operation turnedAround(Operation comparison, String path) {
    return switch (comparison) {
      case LT -> Operation.GT;
      case LT_EQ -> Operation.GT_EQ;
      case GT -> Operation.LT;
      case GT_EQ -> Operation.LT_EQ;
      case EQ, NOT_EQ -> comparison;
      default -> throw invalid(path, null, "a " + comparison.name().toLowerCase(java.util.Locale.ROOT)
          + " test needs its column on the left");
    };
  }

  // ---- value expressions

  /** A column, or a transform of one, and the type of what it yields when the schema is known. */
  private record Term(UnboundTerm<Object> term, @Nullable Type type, @Nullable Integer fieldId) {
  }

  private static boolean isTerm(JsonNode node) {
    if (!node.isObject()) {
      return false;
    }
    JsonNode type = node.get("type");
    return type != null && ("reference".equals(type.asString(null)) || "apply".equals(type.asString(null)));
  }

  /** A reference or an {@code apply} of a transform, in the expressions spec's form. */
  private Term term(JsonNode node, String path) {
    if (!isTerm(node)) {
      throw invalid(path, null, "expected a reference or an apply, not " + kind(node));
    }
    if ("reference".equals(node.get("type").asString(null))) {
      return reference(node, path);
    }
    members(node, path, "type", "function", "arguments");
    String function = function(required(node, "function", path), path + ".function");
    JsonNode arguments = required(node, "arguments", path);
    if (!arguments.isArray()) {
      throw invalid(path + ".arguments", null, "expected an array, not " + kind(arguments));
    }
    boolean parameterized = "bucket".equals(function) || "truncate".equals(function);
    int expected = parameterized ? 2 : 1;
    if (arguments.size() != expected) {
      throw invalid(path + ".arguments", null, function + " takes " + expected + " argument"
          + (expected == 1 ? "" : "s") + ", not " + arguments.size());
    }
    JsonNode column = arguments.get(expected - 1);
    if (!isTerm(column) || !"reference".equals(column.get("type").asString(null))) {
      throw invalid(path + ".arguments[" + (expected - 1) + "]", null, "expected a reference: a transform of a "
          + "transform or of a constant cannot be evaluated");
    }
    Term source = reference(column, path + ".arguments[" + (expected - 1) + "]");
    if ("identity".equals(function)) {
      return source;
    }
    String transform = function;
    if (parameterized) {
      JsonNode width = literalValue(arguments.get(0), null, path + ".arguments[0]");
      if (!width.isIntegralNumber() || !width.canConvertToInt() || width.intValue() <= 0) {
        throw invalid(path + ".arguments[0]", null, function + " needs a positive int parameter");
      }
      transform = function + "[" + width.intValue() + "]";
    }
    return transformed(source, transform, path);
  }

  /** A function reference: a transform of {@code iceberg_functions} (or of no catalog), by one of the spec's forms. */
  private static String function(JsonNode node, String path) {
    JsonNode identifier = node;
    if (node.isObject()) {
      members(node, path, "catalog", "identifier");
      JsonNode catalog = node.get("catalog");
      if (catalog != null && !catalog.isNull() && !ICEBERG_FUNCTIONS.equals(catalog.asString(null))) {
        throw invalid(path + ".catalog", null, "a function of catalog '" + catalog.asString("?")
            + "', which this reader cannot load");
      }
      identifier = required(node, "identifier", path);
    }
    String name = null;
    if (identifier.isString()) {
      name = identifier.stringValue();
    }
    else if (identifier.isArray() && identifier.size() == 1 && identifier.get(0).isString()) {
      name = identifier.get(0).stringValue();
    }
    if (name == null || !TRANSFORM_FUNCTIONS.contains(name)) {
      throw invalid(path, null, "a function this reader cannot apply: only Iceberg's transforms "
          + TRANSFORM_FUNCTIONS.stream().sorted().toList() + " are");
    }
    return name;
  }

  /** {@code {"type":"reference","id":N}} or {@code {"type":"reference","name":…}}, or the legacy {@code term}. */
  private Term reference(JsonNode node, String path) {
    if (node.has("id")) {
      members(node, path, "type", "id");
      JsonNode id = node.get("id");
      if (!id.isIntegralNumber() || !id.canConvertToInt()) {
        throw invalid(path + ".id", null, "a field id is an int, not " + kind(id));
      }
      return byId(id.intValue(), path);
    }
    if (node.has("name")) {
      members(node, path, "type", "name");
      return byName(string(node, "name", path), path);
    }
    if (node.has("term")) {
      members(node, path, "type", "term");
      return byName(string(node, "term", path), path);
    }
    throw invalid(path, null, "a reference needs an id or a name");
  }

  private Term byId(int id, String path) {
    if (this.references == References.NAMES) {
      throw invalid(path, id, "a reference by field id, where columns are named");
    }
    Schema known = this.schema;
    Types.NestedField field = known == null ? null : known.findField(id);
    String name = known == null ? null : known.findColumnName(id);
    if (field == null || name == null) {
      throw invalid(path, id, "the schema read has no field " + id);
    }
    return new Term(Expressions.ref(name), field.type(), id);
  }

  private Term byName(String name, String path) {
    if (this.references == References.IDS) {
      throw invalid(path, null, "a reference by name, where the spec requires field ids");
    }
    Schema known = this.schema;
    Types.NestedField field = known == null ? null : known.caseInsensitiveFindField(name);
    return new Term(Expressions.ref(name), field == null ? null : field.type(),
        field == null ? null : field.fieldId());
  }

  /** The legacy {@code term}: a name, {@code {"type":"reference","term":…}} or a transform of one. */
  private Term legacyTerm(JsonNode node, String path) {
    if (node.isString()) {
      return byName(node.stringValue(), path);
    }
    if (!node.isObject()) {
      throw invalid(path, null, "a term is a name or an object, not " + kind(node));
    }
    String type = string(node, "type", path);
    if ("reference".equals(type)) {
      return reference(node, path);
    }
    if (!"transform".equals(type)) {
      throw invalid(path + ".type", null, "unknown term type '" + type + "'");
    }
    members(node, path, "type", "transform", "term");
    Term source = legacyTerm(required(node, "term", path), path + ".term");
    if (!(source.term() instanceof org.apache.iceberg.expressions.NamedReference<?>)) {
      throw invalid(path + ".term", source.fieldId(), "a transform of a transform cannot be evaluated");
    }
    String transform = string(node, "transform", path);
    return "identity".equals(transform) ? source : transformed(source, transform, path);
  }

  @SuppressWarnings("unchecked")
  private static Term transformed(Term source, String transform, String path) {
    String name = ((org.apache.iceberg.expressions.NamedReference<?>) source.term()).name();
    // Iceberg reads any other text as a transform it cannot apply, and says so only when it is bound
    if (!TRANSFORM.matcher(transform).matches()) {
      throw invalid(path, source.fieldId(), "a transform this reader cannot apply");
    }
    Transform<?, Object> unbound = (Transform<?, Object>) Transforms.fromString(transform);
    Type resultType = null;
    if (source.type() != null) {
      if (!unbound.canTransform(source.type())) {
        throw invalid(path, source.fieldId(), "the transform does not apply to a " + source.type());
      }
      resultType = unbound.getResultType(source.type());
    }
    return new Term(Expressions.transform(name, unbound), resultType, source.fieldId());
  }

  // ---- literals

  /** The values of a set: an array of literals, or {@code {"type":"literals","values":[…],"data-type":…}}. */
  private List<Object> literals(JsonNode node, Term term, String path) {
    List<Object> values = new ArrayList<>();
    if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        values.add(literal(node.get(i), term, path + "[" + i + "]"));
      }
      return values;
    }
    if (!node.isObject() || !"literals".equals(string(node, "type", path))) {
      throw invalid(path, term.fieldId(), "expected an array of literals or a literals object, not " + kind(node));
    }
    members(node, path, "type", "values", "data-type");
    JsonNode array = required(node, "values", path);
    if (!array.isArray()) {
      throw invalid(path + ".values", term.fieldId(), "expected an array, not " + kind(array));
    }
    Type dataType = dataType(required(node, "data-type", path), term, path + ".data-type");
    for (int i = 0; i < array.size(); i++) {
      // the spec's values here are bare: a literal object is no value
      values.add(typed(bare(array.get(i), term.fieldId(), path + ".values[" + i + "]"), dataType, term,
          path + ".values[" + i + "]"));
    }
    return values;
  }

  /** A literal compared with {@code term}, as the value Iceberg's {@code Expressions} take. */
  private Object literal(JsonNode node, Term term, String path) {
    Type dataType = null;
    if (node.isObject()) {
      JsonNode declared = node.get("data-type");
      if (declared != null && !declared.isNull()) {
        dataType = dataType(declared, term, path + ".data-type");
      }
    }
    JsonNode value = literalValue(node, term.fieldId(), path);
    return typed(value, dataType != null ? dataType : term.type(), term, path);
  }

  /** The value of a bare literal or of {@code {"type":"literal","value":…[,"data-type":…]}}, checked whole. */
  private static JsonNode literalValue(JsonNode node, @Nullable Integer fieldId, String path) {
    if (!node.isObject()) {
      return bare(node, fieldId, path);
    }
    members(node, path, "type", "value", "data-type");
    if (!"literal".equals(string(node, "type", path))) {
      throw invalid(path + ".type", fieldId, "expected a literal");
    }
    return bare(required(node, "value", path), fieldId, path);
  }

  /** A bare value: not null (a test for null is is-null), nor an object or an array. */
  private static JsonNode bare(JsonNode value, @Nullable Integer fieldId, String path) {
    if (value.isNull()) {
      throw invalid(path, fieldId, "a null constant: a test for null is is-null");
    }
    if (value.isObject() || value.isArray()) {
      throw invalid(path, fieldId, "expected a value, not " + kind(value));
    }
    return value;
  }

  /**
   * The type a literal declares: a primitive type that aligns with the term's by promotion, either way (an int literal
   * for a long column, a long literal for an int one), since the spec aligns types by promotion and never by an
   * unsafe cast.
   */
  private static Type dataType(JsonNode node, Term term, String path) {
    if (!node.isString()) {
      throw invalid(path, term.fieldId(), "a data type is a string, not " + kind(node));
    }
    Type.PrimitiveType declared;
    try {
      declared = Types.fromPrimitiveString(node.stringValue());
    }
    catch (RuntimeException unknown) {
      throw invalid(path, term.fieldId(), "a data type this reader does not know");
    }
    Type column = term.type();
    if (column != null && !declared.equals(column) && !(column.isPrimitiveType()
        && (TypeUtil.isPromotionAllowed(declared, column.asPrimitiveType())
            || TypeUtil.isPromotionAllowed(column, declared)))) {
      throw invalid(path, term.fieldId(), "a " + declared + " literal, which a " + column + " does not align with");
    }
    return declared;
  }

  /** Fractional seconds as ISO text writes them: the digits after the point, if any. */
  private static final java.util.regex.Pattern FRACTION = java.util.regex.Pattern.compile("\\d:\\d\\d\\.(\\d+)");

  /**
   * The value, of {@code type} when known, as Iceberg's {@code Expressions} take it: dates, times and timestamps as
   * their ISO text, which Iceberg's literal conversion reads at any precision (a long would be read as
   * microseconds); otherwise typed as Iceberg's own parser types JSON. Strict, as the single-value JSON of the type
   * is: a decimal of the column's scale, no finer a time than the column keeps, no NaN nor infinity.
   */
  private static Object typed(JsonNode value, @Nullable Type type, Term term, String path) {
    if (type == null) {
      return untyped(value, term, path);
    }
    Object typed = switch (type.typeId()) {
      case BOOLEAN -> value.isBoolean() ? value.booleanValue() : null;
      // beyond an int's range, a long: the column is promoted to compare with it, as the spec aligns types
      case INTEGER -> !value.isIntegralNumber() || !value.canConvertToLong() ? null
          : value.canConvertToInt() ? (Object) value.intValue() : (Object) value.longValue();
      case LONG -> value.isIntegralNumber() && value.canConvertToLong() ? value.longValue() : null;
      case FLOAT, DOUBLE -> finite(value);
      case DECIMAL -> decimal(value, ((Types.DecimalType) type).scale());
      case STRING -> value.isString() ? value.stringValue() : null;
      case UUID -> uuid(value);
      case DATE -> value.isString() ? value.stringValue() : null;
      case TIME, TIMESTAMP -> time(value, 6);
      case TIMESTAMP_NANO -> time(value, 9);
      case FIXED, BINARY -> hex(value);
      default -> null;
    };
    if (typed == null || converted(Expressions.lit(typed), type) == null) {
      throw invalid(path, term.fieldId(), "a literal a " + type + " cannot take");
    }
    return typed;
  }

  /**
   * The literal as Iceberg converts it to {@code type} (one beyond the type's range as Iceberg's bound above or below
   * it), or {@code null} when it cannot be: an unsafe cast, or text that is no value of the type.
   */
  private static @Nullable Literal<?> converted(Literal<?> literal, Type type) {
    try {
      return literal.to(type);
    }
    catch (RuntimeException unreadable) {
      return null;
    }
  }

  /** As Iceberg's own parser types a value it has no schema for: converted when the expression is bound. */
  private static Object untyped(JsonNode value, Term term, String path) {
    if (value.isString()) {
      return value.stringValue();
    }
    if (value.isBoolean()) {
      return value.booleanValue();
    }
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      return value.longValue();
    }
    Double number = value.isFloatingPointNumber() ? finite(value) : null;
    if (number == null) {
      throw invalid(path, term.fieldId(), "a value out of every type's range");
    }
    return number;
  }

  /** A number as a double, unless it is beyond a double's range. */
  private static @Nullable Double finite(JsonNode value) {
    if (!value.isNumber()) {
      return null;
    }
    double number = value.decimalValue().doubleValue();
    return Double.isFinite(number) ? number : null;
  }

  /** A time or timestamp as ISO text, with no more fractional digits than the type keeps: none is cut off. */
  private static @Nullable String time(JsonNode value, int digits) {
    if (!value.isString()) {
      return null;
    }
    java.util.regex.Matcher fraction = FRACTION.matcher(value.stringValue());
    return fraction.find() && fraction.group(1).length() > digits ? null : value.stringValue();
  }

  /** A decimal of exactly the scale given, from its single-value text or a number. */
  private static @Nullable BigDecimal decimal(JsonNode value, int scale) {
    BigDecimal decimal;
    try {
      decimal = value.isNumber() ? value.decimalValue() : value.isString() ? new BigDecimal(value.stringValue()) : null;
    }
    catch (NumberFormatException notADecimal) {
      return null;
    }
    return decimal != null && decimal.scale() == scale ? decimal : null;
  }


  private static @Nullable UUID uuid(JsonNode value) {
    if (!value.isString() || value.stringValue().length() != 36) {
      return null;
    }
    try {
      return UUID.fromString(value.stringValue());
    }
    catch (IllegalArgumentException notAUuid) {
      return null;
    }
  }

  private static @Nullable ByteBuffer hex(JsonNode value) {
    if (!value.isString() || value.stringValue().length() % 2 != 0) {
      return null;
    }
    try {
      return ByteBuffer.wrap(HexFormat.of().parseHex(value.stringValue()));
    }
    catch (IllegalArgumentException notHex) {
      return null;
    }
  }

  // ---- JSON

  private static JsonNode required(JsonNode object, String member, String path) {
    JsonNode node = object.get(member);
    if (node == null) {
      throw invalid(path, null, "missing member '" + member + "'");
    }
    return node;
  }

  private static String string(JsonNode object, String member, String path) {
    JsonNode node = required(object, member, path);
    if (!node.isString()) {
      throw invalid(path + "." + member, null, "expected a string, not " + kind(node));
    }
    return node.stringValue();
  }

  /** Refuses members other than these: a member this reader does not know may change what the predicate means. */
  private static void members(JsonNode object, String path, String... known) {
    for (String member : object.propertyNames()) {
      if (!List.of(known).contains(member)) {
        throw invalid(path, null, "unknown member '" + member + "'");
      }
    }
  }

  private static String kind(JsonNode node) {
    return switch (node.getNodeType()) {
      case OBJECT -> "an object";
      case ARRAY -> "an array";
      case STRING -> "a string";
      case NUMBER -> "a number";
      case BOOLEAN -> "a boolean";
      case NULL -> "null";
      default -> "a " + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  private static InvalidExpressionException invalid(String path, @Nullable Integer fieldId, String rule) {
    return new InvalidExpressionException(path, fieldId, rule);
  }
}
