package io.icebergscan.planning;

import java.math.BigDecimal;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;

import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.core.io.JsonStringEncoder;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * A row filter for {@link ScanRequest.Builder#filter(RowFilter)}: built from typed predicates, so that
 * nobody writes Iceberg expression JSON by hand, and checked as it is built.
 *
 * <pre>{@code
 * RowFilter filter = RowFilter.and(
 *     RowFilter.greaterThan("amount", new BigDecimal("100.00")),
 *     RowFilter.in("region", "emea", "apac"),
 *     RowFilter.notNull("customer_id"));
 * }</pre>
 *
 * <p>Columns are named by their full name ({@code "address.city"} for a nested field). A value's Java type
 * says which kind of column it is for:
 *
 * <table>
 *   <caption>Values by column type</caption>
 *   <tr><th>Iceberg column</th><th>Java value</th></tr>
 *   <tr><td>{@code boolean}</td><td>{@link Boolean}</td></tr>
 *   <tr><td>{@code int}, {@code long}</td><td>{@link Integer}, {@link Long}</td></tr>
 *   <tr><td>{@code float}, {@code double}</td><td>{@link Float}, {@link Double} (not NaN, not infinite)</td></tr>
 *   <tr><td>{@code decimal(P,S)}</td><td>{@link BigDecimal}, best with the column's scale</td></tr>
 *   <tr><td>{@code string}</td><td>{@link String}</td></tr>
 *   <tr><td>{@code date}</td><td>{@link LocalDate}</td></tr>
 *   <tr><td>{@code time}</td><td>{@link LocalTime}</td></tr>
 *   <tr><td>{@code timestamp}, {@code timestamp_ns}</td><td>{@link LocalDateTime}</td></tr>
 *   <tr><td>{@code timestamptz}, {@code timestamptz_ns}</td><td>{@link OffsetDateTime}, {@link Instant}</td></tr>
 *   <tr><td>{@code uuid}</td><td>{@link UUID}</td></tr>
 *   <tr><td>{@code binary}, {@code fixed(L)}</td><td>{@code byte[]}</td></tr>
 * </table>
 *
 * <p>The catalog converts each value to its column's type when it binds the filter to the table's schema,
 * so an unknown column or a value of the wrong type is the catalog's error, a
 * {@link io.icebergscan.planning.exceptions.RestException} when planning, not one here: this class does not
 * know the schema. (Apache Iceberg's server answers 400 {@code ValidationException} for those, but 500 for a
 * string it cannot parse as the column's date or timestamp, such as a {@code LocalDateTime} for a
 * {@code timestamptz} column.)
 *
 * <p>{@link #toJson()} is the REST spec's expression JSON in the form Apache Iceberg's servers (1.11, 1.12)
 * parse: {@code {"type":"gt","term":"id","value":5}}, {@code "values":[…]} for {@code in}, {@code left} and
 * {@code right} for {@code and} and {@code or}, {@code child} for {@code not}, bare {@code true} and
 * {@code false}. Numbers and booleans are JSON numbers and booleans; decimals, dates, times, timestamps
 * (timestamptz in UTC), UUIDs and bytes (hexadecimal) are strings. {@link #toString()} is a readable form
 * for logs, such as {@code id > 5 and name startsWith "a"}.
 *
 * <p>Filters are immutable and compare equal when they are the same expression. Building simplifies as
 * Apache Iceberg's {@code Expressions} do: {@code and} with {@code alwaysFalse()} is {@code alwaysFalse()},
 * with {@code alwaysTrue()} it is the other side ({@code or} the other way round), {@code not(not(f))} is
 * {@code f}. Nested {@code and}s (or {@code or}s) are one list, written as a balanced tree so that a long
 * conjunction nests only as deep as its logarithm.
 */
public final class RowFilter {

  /**
   * How deep a filter's JSON may nest: the planner reads and writes JSON with Jackson's default limit of
   * 500 levels, and the request body around the filter takes one of them.
   */
  static final int MAX_JSON_DEPTH = 499;

  private static final RowFilter ALWAYS_TRUE = new RowFilter(new Constant(true));
  private static final RowFilter ALWAYS_FALSE = new RowFilter(new Constant(false));

  /** Apache Iceberg writes a timestamptz in UTC with this offset; so do we, so both read the same. */
  private static final String UTC_OFFSET = "+00:00";

  private static final String SUPPORTED_TYPES = "String, Integer, Long, Boolean, Float, Double, BigDecimal, "
      + "LocalDate, LocalTime, LocalDateTime, OffsetDateTime, Instant, UUID or byte[]";

  /** Big decimals: a literal of {@link #ofJson} must reach the catalog exactly as it was written. */
  private static final ObjectReader JSON = JsonMapper.builder().build().reader()
      .with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

  private final Node node;

  private RowFilter(Node node) {
    this.node = node;
  }

  /**
   * A filter given as Iceberg expression JSON, for filters that arrive as text (a property, a request parameter,
   * Iceberg's own {@code ExpressionParser.toJson}); prefer the typed factories in code. It is read once, here:
   * checked to be a JSON object, {@code true} or {@code false}, kept in compact form and sent as that. Its
   * predicates are not checked: a wrong one is the catalog's error when planning, as for typed filters.
   *
   * @throws IllegalArgumentException when the text is null, blank, not JSON, not an object or boolean, or
   *     nested deeper than the planner can send
   */
  public static RowFilter ofJson(String json) {
    if (json == null || json.isBlank()) {
      throw new IllegalArgumentException("RowFilter.ofJson: the filter JSON is " + (json == null ? "null" : "blank")
          + ": leave the filter unset to scan without one");
    }
    JsonNode node;
    try {
      node = JSON.readTree(json);
    }
    catch (JacksonException notJson) {
      throw new IllegalArgumentException("RowFilter.ofJson: the filter is not valid JSON: "
          + notJson.getOriginalMessage(), notJson);
    }
    if (node == null || node.isMissingNode() || !(node.isObject() || node.isBoolean())) {
      throw new IllegalArgumentException("RowFilter.ofJson: the filter must be an Iceberg expression (a JSON "
          + "object, true or false): " + json);
    }
    if (node.isBoolean()) {
      return node.booleanValue() ? ALWAYS_TRUE : ALWAYS_FALSE;
    }
    return new RowFilter(new Written(node.toString(), checkedDepth("ofJson", Written.depth(node))));
  }

  /** Matches every row. */
  public static RowFilter alwaysTrue() {
    return ALWAYS_TRUE;
  }

  /** Matches no row. */
  public static RowFilter alwaysFalse() {
    return ALWAYS_FALSE;
  }

  /**
   * Rows whose column equals the value.
   *
   * @throws IllegalArgumentException when the name is null or blank, or the value is null, NaN, infinite
   *     or of an unsupported type
   */
  public static RowFilter equal(String name, Object value) {
    return compare(Operation.EQ, name, value);
  }

  /**
   * Rows whose column differs from the value, a null among them: {@code !=} is the negation of a null-safe
   * {@code =}, as the expressions spec has it (SQL would leave the nulls out).
   *
   * @throws IllegalArgumentException as {@link #equal(String, Object)}
   */
  public static RowFilter notEqual(String name, Object value) {
    return compare(Operation.NOT_EQ, name, value);
  }

  /**
   * Rows whose column is less than the value.
   *
   * @throws IllegalArgumentException as {@link #equal(String, Object)}
   */
  public static RowFilter lessThan(String name, Object value) {
    return compare(Operation.LT, name, value);
  }

  /**
   * Rows whose column is less than or equal to the value.
   *
   * @throws IllegalArgumentException as {@link #equal(String, Object)}
   */
  public static RowFilter lessThanOrEqual(String name, Object value) {
    return compare(Operation.LT_EQ, name, value);
  }

  /**
   * Rows whose column is greater than the value.
   *
   * @throws IllegalArgumentException as {@link #equal(String, Object)}
   */
  public static RowFilter greaterThan(String name, Object value) {
    return compare(Operation.GT, name, value);
  }

  /**
   * Rows whose column is greater than or equal to the value.
   *
   * @throws IllegalArgumentException as {@link #equal(String, Object)}
   */
  public static RowFilter greaterThanOrEqual(String name, Object value) {
    return compare(Operation.GT_EQ, name, value);
  }

  /**
   * Rows whose column equals one of the values.
   *
   * @throws IllegalArgumentException when the name is null or blank, there is no value, or a value is null,
   *     NaN, infinite or of an unsupported type
   */
  public static RowFilter in(String name, Object... values) {
    return set(Operation.IN, name, values == null ? null : Arrays.asList(values));
  }

  /**
   * Rows whose column equals one of the values.
   *
   * @throws IllegalArgumentException as {@link #in(String, Object...)}
   */
  public static RowFilter in(String name, Collection<?> values) {
    return set(Operation.IN, name, values);
  }

  /**
   * Rows whose column equals none of the values, a null among them, as the expressions spec has it (SQL would leave
   * the nulls out).
   *
   * @throws IllegalArgumentException as {@link #in(String, Object...)}
   */
  public static RowFilter notIn(String name, Object... values) {
    return set(Operation.NOT_IN, name, values == null ? null : Arrays.asList(values));
  }

  /**
   * Rows whose column equals none of the values, a null among them, as the expressions spec has it (SQL would leave
   * the nulls out).
   *
   * @throws IllegalArgumentException as {@link #in(String, Object...)}
   */
  public static RowFilter notIn(String name, Collection<?> values) {
    return set(Operation.NOT_IN, name, values);
  }

  /**
   * Rows whose column is null.
   *
   * @throws IllegalArgumentException when the name is null or blank
   */
  public static RowFilter isNull(String name) {
    return unary(Operation.IS_NULL, name);
  }

  /**
   * Rows whose column is not null.
   *
   * @throws IllegalArgumentException when the name is null or blank
   */
  public static RowFilter notNull(String name) {
    return unary(Operation.NOT_NULL, name);
  }

  /**
   * Rows whose {@code float} or {@code double} column is NaN.
   *
   * @throws IllegalArgumentException when the name is null or blank
   */
  public static RowFilter isNaN(String name) {
    return unary(Operation.IS_NAN, name);
  }

  /**
   * Rows whose {@code float} or {@code double} column is not NaN.
   *
   * @throws IllegalArgumentException when the name is null or blank
   */
  public static RowFilter notNaN(String name) {
    return unary(Operation.NOT_NAN, name);
  }

  /**
   * Rows whose {@code string} column starts with the prefix.
   *
   * @throws IllegalArgumentException when the name is null or blank, or the prefix is null
   */
  public static RowFilter startsWith(String name, String prefix) {
    return prefix(Operation.STARTS_WITH, name, prefix);
  }

  /**
   * Rows whose {@code string} column is null or does not start with the prefix.
   *
   * @throws IllegalArgumentException when the name is null or blank, or the prefix is null
   */
  public static RowFilter notStartsWith(String name, String prefix) {
    return prefix(Operation.NOT_STARTS_WITH, name, prefix);
  }

  /**
   * Rows that every filter matches; one filter is itself.
   *
   * @throws IllegalArgumentException when there is no filter or one is null
   */
  public static RowFilter and(RowFilter... filters) {
    return junction(true, filters == null ? null : Arrays.asList(filters));
  }

  /**
   * Rows that every filter matches; one filter is itself.
   *
   * @throws IllegalArgumentException when there is no filter or one is null
   */
  public static RowFilter and(Collection<? extends RowFilter> filters) {
    return junction(true, filters);
  }

  /**
   * Rows that any of the filters matches; one filter is itself.
   *
   * @throws IllegalArgumentException when there is no filter or one is null
   */
  public static RowFilter or(RowFilter... filters) {
    return junction(false, filters == null ? null : Arrays.asList(filters));
  }

  /**
   * Rows that any of the filters matches; one filter is itself.
   *
   * @throws IllegalArgumentException when there is no filter or one is null
   */
  public static RowFilter or(Collection<? extends RowFilter> filters) {
    return junction(false, filters);
  }

  /**
   * Rows that the filter does not match.
   *
   * @throws IllegalArgumentException when the filter is null
   */
  public static RowFilter not(RowFilter filter) {
    if (filter == null) {
      throw new IllegalArgumentException("RowFilter.not: the filter is null");
    }
    if (filter.node instanceof Constant constant) {
      return constant.value() ? ALWAYS_FALSE : ALWAYS_TRUE;
    }
    if (filter.node instanceof Not not) {
      return new RowFilter(not.child());
    }
    return new RowFilter(new Not(filter.node, checkedDepth("not", filter.node.depth() + 1)));
  }

  /** The filter as Iceberg expression JSON, for {@link ScanRequest}'s {@code filter}. */
  public String toJson() {
    StringBuilder json = new StringBuilder();
    this.node.writeJson(json);
    return json.toString();
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof RowFilter filter && this.node.equals(filter.node);
  }

  @Override
  public int hashCode() {
    return this.node.hashCode();
  }

  /** A readable form for logs, e.g. {@code id > 5 and name startsWith "a"}; not a syntax anything parses. */
  @Override
  public String toString() {
    StringBuilder text = new StringBuilder();
    this.node.writeText(text);
    return text.toString();
  }

  private static RowFilter compare(Operation operation, @Nullable String name, @Nullable Object value) {
    String column = checkedName(operation, name);
    return new RowFilter(new Predicate(operation, column, List.of(literal(operation, column, value, null))));
  }

  private static RowFilter prefix(Operation operation, @Nullable String name, @Nullable String prefix) {
    String column = checkedName(operation, name);
    if (prefix == null) {
      throw new IllegalArgumentException(call(operation, column) + ", null): the prefix is null");
    }
    return new RowFilter(new Predicate(operation, column, List.of(new Literal(Kind.STRING, prefix))));
  }

  private static RowFilter unary(Operation operation, @Nullable String name) {
    return new RowFilter(new Predicate(operation, checkedName(operation, name), List.of()));
  }

  private static RowFilter set(Operation operation, @Nullable String name, @Nullable Collection<?> values) {
    String column = checkedName(operation, name);
    if (values == null || values.isEmpty()) {
      // most often a list that came out empty by mistake: matching no row (or every non-null row) is
      // better said with a filter of its own
      throw new IllegalArgumentException(call(operation, column) + "): no values; " + operation.factory
          + " needs at least one" + (operation == Operation.IN ? " (for no row use alwaysFalse())"
              : " (for every non-null row use notNull(" + quoted(column) + "))"));
    }
    List<Literal> literals = new ArrayList<>(values.size());
    int position = 0;
    for (Object value : values) {
      position++;
      literals.add(literal(operation, column, value, position));
    }
    return new RowFilter(new Predicate(operation, column, List.copyOf(literals)));
  }

  private static RowFilter junction(boolean and, @Nullable Collection<? extends RowFilter> filters) {
    String factory = and ? "and" : "or";
    if (filters == null || filters.isEmpty()) {
      throw new IllegalArgumentException("RowFilter." + factory + ": no filters; for " + (and
          ? "every row use alwaysTrue()" : "no row use alwaysFalse()"));
    }
    int position = 0;
    for (RowFilter filter : filters) {
      position++;
      if (filter == null) {
        throw new IllegalArgumentException("RowFilter." + factory + ": filter " + position + " of "
            + filters.size() + " is null");
      }
    }
    List<Node> operands = new ArrayList<>(filters.size());
    for (RowFilter filter : filters) {
      if (filter.node instanceof Constant constant) {
        if (constant.value() != and) {
          return constant.value() ? ALWAYS_TRUE : ALWAYS_FALSE; // false absorbs an and, true an or
        }
        // the identity (true in an and, false in an or) is dropped
      }
      else if (filter.node instanceof Junction junction && junction.and() == and) {
        operands.addAll(junction.operands());
      }
      else {
        operands.add(filter.node);
      }
    }
    if (operands.isEmpty()) {
      return and ? ALWAYS_TRUE : ALWAYS_FALSE;
    }
    if (operands.size() == 1) {
      return new RowFilter(operands.get(0));
    }
    List<Node> copy = List.copyOf(operands);
    return new RowFilter(new Junction(and, copy, checkedDepth(factory, Junction.depth(copy, 0, copy.size()))));
  }

  private static int checkedDepth(String factory, int depth) {
    if (depth > MAX_JSON_DEPTH) {
      throw new IllegalArgumentException("RowFilter." + factory + ": the filter would nest " + depth
          + " levels deep in JSON, more than the " + MAX_JSON_DEPTH + " the planner can send; the depth comes "
          + "from and, or and not nested in one another (a long and(…) or or(…) costs only its logarithm)");
    }
    return depth;
  }

  private static String checkedName(Operation operation, @Nullable String name) {
    if (name == null) {
      throw new IllegalArgumentException("RowFilter." + operation.factory + ": the column name is null");
    }
    if (name.isBlank()) {
      throw new IllegalArgumentException("RowFilter." + operation.factory + ": the column name is blank ("
          + quoted(name) + ")");
    }
    return name;
  }

  /**
   * The value as a literal of the filter.
   *
   * @param position the value's place in an {@code in} list, from 1, or {@code null} for a comparison
   */
  private static Literal literal(Operation operation, String column, @Nullable Object value,
      @Nullable Integer position) {
    String which = position == null ? "the value" : "value " + position;
    if (value == null) {
      throw new IllegalArgumentException(call(operation, column) + ", …): " + which + " is null; no value equals "
          + "or compares with null: use isNull(" + quoted(column) + ") or notNull(" + quoted(column) + ")");
    }
    if (value instanceof String string) {
      return new Literal(Kind.STRING, string);
    }
    if (value instanceof Integer || value instanceof Long) {
      return new Literal(Kind.NUMBER, value.toString());
    }
    if (value instanceof Boolean) {
      return new Literal(Kind.BOOLEAN, value.toString());
    }
    if (value instanceof Float || value instanceof Double) {
      double number = ((Number) value).doubleValue();
      if (Double.isNaN(number)) {
        // Iceberg refuses NaN literals too: NaN equals nothing, so its own predicates say it
        String instead = operation == Operation.NOT_EQ || operation == Operation.NOT_IN
            ? "notNaN(" + quoted(column) + ")"
            : operation == Operation.EQ || operation == Operation.IN ? "isNaN(" + quoted(column) + ")"
                : "isNaN(" + quoted(column) + ") or notNaN(" + quoted(column) + ")";
        throw new IllegalArgumentException(call(operation, column) + ", …): " + which
            + " is NaN, which equals and compares with nothing: use " + instead);
      }
      if (Double.isInfinite(number)) {
        throw new IllegalArgumentException(call(operation, column) + ", …): " + which + " is " + value
            + "; JSON has no infinite numbers, so the catalog could not read the filter");
      }
      return new Literal(Kind.NUMBER, value.toString()); // Float's and Double's shortest round-trip digits
    }
    if (value instanceof BigDecimal decimal) {
      // as Apache Iceberg writes a decimal: plain digits, an exponent only for a negative scale
      return new Literal(Kind.DECIMAL, decimal.scale() >= 0 ? decimal.toPlainString() : decimal.toString());
    }
    if (value instanceof LocalDate date) {
      return new Literal(Kind.DATE, DateTimeFormatter.ISO_LOCAL_DATE.format(date));
    }
    if (value instanceof LocalTime time) {
      return new Literal(Kind.TIME, DateTimeFormatter.ISO_LOCAL_TIME.format(time));
    }
    if (value instanceof LocalDateTime timestamp) {
      return new Literal(Kind.TIMESTAMP, DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(timestamp));
    }
    if (value instanceof OffsetDateTime || value instanceof Instant) {
      // A timestamptz is an instant: in UTC, as Iceberg writes it, because Iceberg's schema-aware parser
      // (SingleValueParser) accepts no other offset.
      try {
        OffsetDateTime utc = value instanceof Instant instant ? instant.atOffset(ZoneOffset.UTC)
            : ((OffsetDateTime) value).withOffsetSameInstant(ZoneOffset.UTC);
        return new Literal(Kind.TIMESTAMPTZ, DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(utc) + UTC_OFFSET);
      }
      catch (DateTimeException outOfRange) {
        throw new IllegalArgumentException(call(operation, column) + ", …): " + which + " " + value
            + " is out of range in UTC", outOfRange);
      }
    }
    if (value instanceof UUID uuid) {
      return new Literal(Kind.UUID, uuid.toString());
    }
    if (value instanceof byte[] bytes) {
      return new Literal(Kind.BINARY, HexFormat.of().withUpperCase().formatHex(bytes));
    }
    throw new IllegalArgumentException(call(operation, column) + ", …): " + which + " has type "
        + value.getClass().getTypeName() + ", which is not a filter value; use " + SUPPORTED_TYPES);
  }

  /** The start of an error message: the call as the caller wrote it, e.g. {@code RowFilter.in("id"}. */
  private static String call(Operation operation, String column) {
    return "RowFilter." + operation.factory + "(" + quoted(column);
  }

  private static String quoted(String text) {
    StringBuilder quoted = new StringBuilder(text.length() + 2);
    appendJsonString(quoted, text);
    return quoted.toString();
  }

  private static void appendJsonString(StringBuilder out, String text) {
    out.append('"');
    JsonStringEncoder.getInstance().quoteAsString(text, out);
    out.append('"');
  }

  /** The predicates, with their names in JSON, in {@link #toString()} and in the factory methods. */
  private enum Operation {
    EQ("eq", "==", "equal"),
    NOT_EQ("not-eq", "!=", "notEqual"),
    LT("lt", "<", "lessThan"),
    LT_EQ("lt-eq", "<=", "lessThanOrEqual"),
    GT("gt", ">", "greaterThan"),
    GT_EQ("gt-eq", ">=", "greaterThanOrEqual"),
    STARTS_WITH("starts-with", "startsWith", "startsWith"),
    NOT_STARTS_WITH("not-starts-with", "notStartsWith", "notStartsWith"),
    IN("in", "in", "in"),
    NOT_IN("not-in", "not in", "notIn"),
    IS_NULL("is-null", "is null", "isNull"),
    NOT_NULL("not-null", "is not null", "notNull"),
    IS_NAN("is-nan", "is NaN", "isNaN"),
    NOT_NAN("not-nan", "is not NaN", "notNaN");

    private final String json;
    private final String text;
    private final String factory;

    Operation(String json, String text, String factory) {
      this.json = json;
      this.text = text;
      this.factory = factory;
    }

    boolean takesValues() {
      return this == IN || this == NOT_IN;
    }
  }

  /** How a literal is written: as a JSON number or boolean, or as a JSON string. */
  private enum Kind {
    STRING, NUMBER, BOOLEAN, DECIMAL, DATE, TIME, TIMESTAMP, TIMESTAMPTZ, UUID, BINARY
  }

  /**
   * A value, already in the text it is sent as, so that equal filters are equal records (a {@code byte[]}
   * would compare by identity).
   */
  private record Literal(Kind kind, String text) {

    void writeJson(StringBuilder out) {
      if (this.kind == Kind.NUMBER || this.kind == Kind.BOOLEAN) {
        out.append(this.text);
      }
      else {
        appendJsonString(out, this.text);
      }
    }

    void writeText(StringBuilder out) {
      switch (this.kind) {
        case STRING -> appendJsonString(out, this.text);
        case BINARY -> out.append("X'").append(this.text).append('\'');
        default -> out.append(this.text);
      }
    }
  }

  /** A filter's expression tree. */
  private sealed interface Node permits Constant, Predicate, Not, Junction, Written {

    /** Levels of JSON objects and arrays: Jackson counts both. */
    int depth();

    void writeJson(StringBuilder out);

    void writeText(StringBuilder out);
  }

  /** An expression given as JSON ({@link #ofJson}), already compact: written as it is. */
  private record Written(String json, int depth) implements Node {

    static int depth(JsonNode node) {
      int deepest = 0;
      for (JsonNode child : node.values()) {
        deepest = Math.max(deepest, depth(child));
      }
      return node.isContainer() ? 1 + deepest : 0;
    }

    @Override
    public void writeJson(StringBuilder out) {
      out.append(this.json);
    }

    @Override
    public void writeText(StringBuilder out) {
      out.append(this.json);
    }
  }

  private record Constant(boolean value) implements Node {

    @Override
    public int depth() {
      return 0;
    }

    @Override
    public void writeJson(StringBuilder out) {
      out.append(this.value);
    }

    @Override
    public void writeText(StringBuilder out) {
      out.append(this.value);
    }
  }

  /** A predicate on one column: no literal (is-null …), one (eq …) or several ({@code in}, {@code not-in}). */
  private record Predicate(Operation operation, String term, List<Literal> literals) implements Node {

    @Override
    public int depth() {
      return this.operation.takesValues() ? 2 : 1;
    }

    @Override
    public void writeJson(StringBuilder out) {
      out.append("{\"type\":\"").append(this.operation.json).append("\",\"term\":");
      appendJsonString(out, this.term);
      if (this.operation.takesValues()) {
        out.append(",\"values\":[");
        for (int i = 0; i < this.literals.size(); i++) {
          if (i > 0) {
            out.append(',');
          }
          this.literals.get(i).writeJson(out);
        }
        out.append(']');
      }
      else if (!this.literals.isEmpty()) {
        out.append(",\"value\":");
        this.literals.get(0).writeJson(out);
      }
      out.append('}');
    }

    @Override
    public void writeText(StringBuilder out) {
      out.append(this.term).append(' ').append(this.operation.text);
      if (this.operation.takesValues()) {
        out.append(" (");
        for (int i = 0; i < this.literals.size(); i++) {
          if (i > 0) {
            out.append(", ");
          }
          this.literals.get(i).writeText(out);
        }
        out.append(')');
      }
      else if (!this.literals.isEmpty()) {
        out.append(' ');
        this.literals.get(0).writeText(out);
      }
    }
  }

  /** @param depth the JSON depth, kept so that wrapping a deep filter costs no walk over it */
  private record Not(Node child, int depth) implements Node {

    @Override
    public void writeJson(StringBuilder out) {
      out.append("{\"type\":\"not\",\"child\":");
      this.child.writeJson(out);
      out.append('}');
    }

    @Override
    public void writeText(StringBuilder out) {
      out.append("not (");
      this.child.writeText(out);
      out.append(')');
    }
  }

  /**
   * An {@code and} or an {@code or} of two or more operands, none of them a constant or a junction of the
   * same kind.
   *
   * @param depth the JSON depth of the balanced tree the operands are written as
   */
  private record Junction(boolean and, List<Node> operands, int depth) implements Node {

    /** The JSON depth of {@code operands[from, to)} written as {@link #writeJson(StringBuilder, int, int)} does. */
    static int depth(List<Node> operands, int from, int to) {
      if (to - from == 1) {
        return operands.get(from).depth();
      }
      int middle = middle(from, to);
      return 1 + Math.max(depth(operands, from, middle), depth(operands, middle, to));
    }

    /** Where a range splits: the left half takes the extra operand, so three are Iceberg's and(and(a, b), c). */
    private static int middle(int from, int to) {
      return from + (to - from + 1) / 2;
    }

    @Override
    public void writeJson(StringBuilder out) {
      writeJson(out, 0, this.operands.size());
    }

    /** JSON has only binary and/or: a balanced tree, so that n operands nest log2(n) deep, not n. */
    private void writeJson(StringBuilder out, int from, int to) {
      if (to - from == 1) {
        this.operands.get(from).writeJson(out);
        return;
      }
      int middle = middle(from, to);
      out.append("{\"type\":\"").append(this.and ? "and" : "or").append("\",\"left\":");
      writeJson(out, from, middle);
      out.append(",\"right\":");
      writeJson(out, middle, to);
      out.append('}');
    }

    @Override
    public void writeText(StringBuilder out) {
      for (int i = 0; i < this.operands.size(); i++) {
        if (i > 0) {
          out.append(this.and ? " and " : " or ");
        }
        Node operand = this.operands.get(i);
        // an operand junction is the other kind: parentheses, whatever the precedence, so a reader need not
        // know it
        if (operand instanceof Junction) {
          out.append('(');
          operand.writeText(out);
          out.append(')');
        }
        else {
          operand.writeText(out);
        }
      }
    }
  }
}
