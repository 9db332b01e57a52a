package io.icebergscan.planning;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import tools.jackson.databind.json.JsonMapper;

import static io.icebergscan.planning.RowFilter.alwaysFalse;
import static io.icebergscan.planning.RowFilter.alwaysTrue;
import static io.icebergscan.planning.RowFilter.and;
import static io.icebergscan.planning.RowFilter.equal;
import static io.icebergscan.planning.RowFilter.greaterThan;
import static io.icebergscan.planning.RowFilter.greaterThanOrEqual;
import static io.icebergscan.planning.RowFilter.in;
import static io.icebergscan.planning.RowFilter.isNaN;
import static io.icebergscan.planning.RowFilter.isNull;
import static io.icebergscan.planning.RowFilter.lessThan;
import static io.icebergscan.planning.RowFilter.lessThanOrEqual;
import static io.icebergscan.planning.RowFilter.not;
import static io.icebergscan.planning.RowFilter.notEqual;
import static io.icebergscan.planning.RowFilter.notIn;
import static io.icebergscan.planning.RowFilter.notNaN;
import static io.icebergscan.planning.RowFilter.notNull;
import static io.icebergscan.planning.RowFilter.notStartsWith;
import static io.icebergscan.planning.RowFilter.or;
import static io.icebergscan.planning.RowFilter.startsWith;
import static io.icebergscan.planning.ScriptedCatalog.ALL_ENDPOINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RowFilter}: the exact JSON of every operator and every value type, the readable form, the
 * simplifications, and the errors for what cannot be a filter. That Apache Iceberg's own parser reads
 * this JSON as the same expression is the test module's {@code RowFilterCompatibilityTests}.
 */
class RowFilterTest {

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @RegisterExtension
  private final MockCatalog catalog = new MockCatalog();

  @Test
  void everyComparisonIsATypeATermAndAValue() {
    assertThat(equal("id", 5).toJson()).isEqualTo("{\"type\":\"eq\",\"term\":\"id\",\"value\":5}");
    assertThat(notEqual("id", 5).toJson()).isEqualTo("{\"type\":\"not-eq\",\"term\":\"id\",\"value\":5}");
    assertThat(lessThan("id", 5).toJson()).isEqualTo("{\"type\":\"lt\",\"term\":\"id\",\"value\":5}");
    assertThat(lessThanOrEqual("id", 5).toJson()).isEqualTo("{\"type\":\"lt-eq\",\"term\":\"id\",\"value\":5}");
    assertThat(greaterThan("id", 5).toJson()).isEqualTo("{\"type\":\"gt\",\"term\":\"id\",\"value\":5}");
    assertThat(greaterThanOrEqual("id", 5).toJson())
        .isEqualTo("{\"type\":\"gt-eq\",\"term\":\"id\",\"value\":5}");
    assertThat(startsWith("name", "ab").toJson())
        .isEqualTo("{\"type\":\"starts-with\",\"term\":\"name\",\"value\":\"ab\"}");
    assertThat(notStartsWith("name", "ab").toJson())
        .isEqualTo("{\"type\":\"not-starts-with\",\"term\":\"name\",\"value\":\"ab\"}");
  }

  @Test
  void setPredicatesCarryValuesInTheirOrder() {
    assertThat(in("id", 3, 1, 2).toJson()).isEqualTo("{\"type\":\"in\",\"term\":\"id\",\"values\":[3,1,2]}");
    assertThat(in("id", List.of(3L, 1L)).toJson()).isEqualTo("{\"type\":\"in\",\"term\":\"id\",\"values\":[3,1]}");
    assertThat(in("day", "a")).isEqualTo(in("day", List.of("a")));
    assertThat(notIn("day", "a", "b").toJson())
        .isEqualTo("{\"type\":\"not-in\",\"term\":\"day\",\"values\":[\"a\",\"b\"]}");
    assertThat(notIn("day", Set.of("a")).toJson())
        .isEqualTo("{\"type\":\"not-in\",\"term\":\"day\",\"values\":[\"a\"]}");
    // a byte[] in the varargs is one value, not an array of values
    assertThat(in("b", new byte[] { 1 }, new byte[] { 2 }).toJson())
        .isEqualTo("{\"type\":\"in\",\"term\":\"b\",\"values\":[\"01\",\"02\"]}");
  }

  @Test
  void unaryPredicatesHaveNoValue() {
    assertThat(isNull("x").toJson()).isEqualTo("{\"type\":\"is-null\",\"term\":\"x\"}");
    assertThat(notNull("x").toJson()).isEqualTo("{\"type\":\"not-null\",\"term\":\"x\"}");
    assertThat(isNaN("x").toJson()).isEqualTo("{\"type\":\"is-nan\",\"term\":\"x\"}");
    assertThat(notNaN("x").toJson()).isEqualTo("{\"type\":\"not-nan\",\"term\":\"x\"}");
  }

  @Test
  void constantsAreBareBooleans() {
    assertThat(alwaysTrue().toJson()).isEqualTo("true");
    assertThat(alwaysFalse().toJson()).isEqualTo("false");
  }

  @Test
  void andOrAndNotNestTheirOperands() {
    String a = "{\"type\":\"eq\",\"term\":\"a\",\"value\":1}";
    String b = "{\"type\":\"eq\",\"term\":\"b\",\"value\":2}";
    assertThat(and(equal("a", 1), equal("b", 2)).toJson())
        .isEqualTo("{\"type\":\"and\",\"left\":" + a + ",\"right\":" + b + "}");
    assertThat(or(equal("a", 1), equal("b", 2)).toJson())
        .isEqualTo("{\"type\":\"or\",\"left\":" + a + ",\"right\":" + b + "}");
    assertThat(not(equal("a", 1)).toJson()).isEqualTo("{\"type\":\"not\",\"child\":" + a + "}");
    assertThat(and(List.of(equal("a", 1), equal("b", 2)))).isEqualTo(and(equal("a", 1), equal("b", 2)));
    assertThat(or(List.of(equal("a", 1), equal("b", 2)))).isEqualTo(or(equal("a", 1), equal("b", 2)));
  }

  /** Three operands nest as Iceberg's {@code and(a, b, c)} does; more nest as a balanced tree. */
  @Test
  void manyOperandsAreABalancedTree() {
    String a = p("a").toJson();
    String b = p("b").toJson();
    String c = p("c").toJson();
    String d = p("d").toJson();
    String e = p("e").toJson();
    assertThat(and(p("a"), p("b"), p("c")).toJson()).isEqualTo(and(and(p("a"), p("b")), p("c")).toJson())
        .isEqualTo(binary("and", binary("and", a, b), c));
    assertThat(or(p("a"), p("b"), p("c"), p("d"), p("e")).toJson())
        .isEqualTo(binary("or", binary("or", binary("or", a, b), c), binary("or", d, e)));

    List<RowFilter> thousand = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      thousand.add(p("c" + i));
    }
    assertThat(depth(MAPPER.readTree(and(thousand).toJson()))).isEqualTo(10 + 1);
    // built one at a time, as a loop would, it is the same list and the same tree
    RowFilter oneByOne = thousand.get(0);
    for (RowFilter next : thousand.subList(1, thousand.size())) {
      oneByOne = and(oneByOne, next);
    }
    assertThat(oneByOne).isEqualTo(and(thousand));
    assertThat(oneByOne.toJson()).isEqualTo(and(thousand).toJson());
  }

  @Test
  void constantsSimplifyAsIcebergsExpressionsDo() {
    RowFilter a = p("a");
    assertThat(and(a, alwaysTrue())).isEqualTo(a);
    assertThat(and(alwaysTrue(), a, alwaysFalse())).isEqualTo(alwaysFalse());
    assertThat(and(alwaysTrue(), alwaysTrue())).isEqualTo(alwaysTrue());
    assertThat(or(a, alwaysFalse())).isEqualTo(a);
    assertThat(or(alwaysFalse(), a, alwaysTrue())).isEqualTo(alwaysTrue());
    assertThat(or(alwaysFalse(), alwaysFalse())).isEqualTo(alwaysFalse());
    assertThat(not(alwaysTrue())).isEqualTo(alwaysFalse());
    assertThat(not(alwaysFalse())).isEqualTo(alwaysTrue());
    assertThat(not(not(a))).isEqualTo(a);
    assertThat(and(a)).isEqualTo(a);
    assertThat(or(List.of(a))).isEqualTo(a);
  }

  /** Each value type's JSON: numbers and booleans bare, everything else a string Iceberg converts on binding. */
  @Test
  void everyValueTypeIsWrittenAsIcebergReadsIt() {
    assertThat(value("text \"quoted\" \\ and\nnewline \u00e9"))
        .isEqualTo("\"text \\\"quoted\\\" \\\\ and\\nnewline \u00e9\"");
    assertThat(value(42)).isEqualTo("42");
    assertThat(value(-7_000_000_000L)).isEqualTo("-7000000000");
    assertThat(value(true)).isEqualTo("true");
    assertThat(value(false)).isEqualTo("false");
    assertThat(value(1.5f)).isEqualTo("1.5");
    assertThat(value(0.1f)).as("a float's own digits, not its double widening").isEqualTo("0.1");
    assertThat(value(-0.0)).isEqualTo("-0.0");
    assertThat(value(2.5e-12)).isEqualTo("2.5E-12");
    assertThat(value(new BigDecimal("12.50"))).isEqualTo("\"12.50\"");
    assertThat(value(new BigDecimal("123456789012345678.91"))).isEqualTo("\"123456789012345678.91\"");
    assertThat(value(new BigDecimal("1E+3"))).as("a negative scale keeps its exponent").isEqualTo("\"1E+3\"");
    assertThat(value(LocalDate.of(2026, 11, 4))).isEqualTo("\"2026-11-04\"");
    assertThat(value(LocalTime.of(10, 15))).isEqualTo("\"10:15:00\"");
    assertThat(value(LocalTime.of(10, 15, 30, 123_456_000))).isEqualTo("\"10:15:30.123456\"");
    assertThat(value(LocalDateTime.of(2026, 11, 4, 10, 15))).isEqualTo("\"2026-11-04T10:15:00\"");
    assertThat(value(LocalDateTime.of(2026, 11, 4, 10, 15, 0, 1)))
        .as("nanoseconds, for timestamp_ns").isEqualTo("\"2026-11-04T10:15:00.000000001\"");
    assertThat(value(OffsetDateTime.of(2026, 11, 4, 10, 15, 0, 0, ZoneOffset.ofHours(2))))
        .as("in UTC, the only offset Iceberg's schema-aware parser accepts")
        .isEqualTo("\"2026-11-04T08:15:00+00:00\"");
    assertThat(value(Instant.parse("2026-11-04T08:15:00.5Z"))).isEqualTo("\"2026-11-04T08:15:00.5+00:00\"");
    assertThat(value(UUID.fromString("F79C3E09-677C-4BBD-A479-3F349CB785E7")))
        .isEqualTo("\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"");
    assertThat(value(new byte[] { 0, (byte) 0xca, (byte) 0xfe, 127 })).isEqualTo("\"00CAFE7F\"");
    assertThat(value(new byte[0])).isEqualTo("\"\"");
  }

  @Test
  void columnNamesAreEscapedAndNestedNamesKept() {
    assertThat(isNull("a \"b\"\t").toJson()).isEqualTo("{\"type\":\"is-null\",\"term\":\"a \\\"b\\\"\\t\"}");
    assertThat(equal("address.city", "Oslo").toJson())
        .isEqualTo("{\"type\":\"eq\",\"term\":\"address.city\",\"value\":\"Oslo\"}");
  }

  @Test
  void theJsonIsValidAndParsesToWhatWasBuilt() {
    RowFilter filter = and(or(equal("a", "x\u0001\u2028"), in("b", 1, 2)), not(isNull("c \\ d")));
    assertThat(MAPPER.readTree(filter.toJson())).isEqualTo(MAPPER.readTree("""
        {"type":"and",
         "left":{"type":"or","left":{"type":"eq","term":"a","value":"x\\u0001\\u2028"},
                 "right":{"type":"in","term":"b","values":[1,2]}},
         "right":{"type":"not","child":{"type":"is-null","term":"c \\\\ d"}}}"""));
  }

  @Test
  void toStringIsReadable() {
    assertThat(and(greaterThan("id", 5), startsWith("name", "a"))).hasToString("id > 5 and name startsWith \"a\"");
    assertThat(or(and(p("a"), p("b")), not(notNull("c")))).hasToString("(a == 1 and b == 1) or not (c is not null)");
    assertThat(and(or(p("a"), p("b")), in("d", "x", "y"))).hasToString("(a == 1 or b == 1) and d in (\"x\", \"y\")");
    assertThat(notIn("d", 1, 2)).hasToString("d not in (1, 2)");
    assertThat(notEqual("a", 1.5)).hasToString("a != 1.5");
    assertThat(lessThan("a", new BigDecimal("1.50"))).hasToString("a < 1.50");
    assertThat(lessThanOrEqual("d", LocalDate.of(2026, 1, 2))).hasToString("d <= 2026-01-02");
    assertThat(greaterThanOrEqual("t", Instant.EPOCH)).hasToString("t >= 1970-01-01T00:00:00+00:00");
    assertThat(equal("b", new byte[] { 10 })).hasToString("b == X'0A'");
    assertThat(equal("s", "say \"hi\"")).hasToString("s == \"say \\\"hi\\\"\"");
    assertThat(isNaN("f")).hasToString("f is NaN");
    assertThat(notNaN("f")).hasToString("f is not NaN");
    assertThat(isNull("f")).hasToString("f is null");
    assertThat(notStartsWith("s", "x")).hasToString("s notStartsWith \"x\"");
    assertThat(alwaysTrue()).hasToString("true");
    assertThat(alwaysFalse()).hasToString("false");
  }

  @Test
  void filtersAreEqualWhenTheyAreTheSameExpression() {
    assertThat(equal("b", new byte[] { 1, 2 })).isEqualTo(equal("b", new byte[] { 1, 2 }))
        .hasSameHashCodeAs(equal("b", new byte[] { 1, 2 }));
    assertThat(in("id", 1, 2)).isEqualTo(in("id", List.of(1, 2))).isNotEqualTo(in("id", 2, 1));
    assertThat(equal("id", 1)).isNotEqualTo(notEqual("id", 1)).isNotEqualTo(equal("ID", 1));
    assertThat(and(p("a"), p("b"))).isNotEqualTo(or(p("a"), p("b")));
  }

  /** A caller's array changed after the filter was built does not change the filter. */
  @Test
  void valuesAreCopied() {
    byte[] bytes = { 1 };
    Object[] values = { 1, 2 };
    RowFilter byBytes = equal("b", bytes);
    RowFilter byValues = in("id", values);
    bytes[0] = 9;
    values[0] = 9;
    assertThat(byBytes.toJson()).contains("\"01\"");
    assertThat(byValues.toJson()).contains("[1,2]");
  }

  @Test
  void aNullOrBlankColumnNameIsRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> equal(null, 1))
        .withMessage("RowFilter.equal: the column name is null");
    assertThatIllegalArgumentException().isThrownBy(() -> isNull(" \t"))
        .withMessage("RowFilter.isNull: the column name is blank (\" \\t\")");
    assertThatIllegalArgumentException().isThrownBy(() -> in("", 1)).withMessageContaining("RowFilter.in")
        .withMessageContaining("blank");
    assertThatIllegalArgumentException().isThrownBy(() -> startsWith(null, "a"))
        .withMessageContaining("RowFilter.startsWith").withMessageContaining("null");
  }

  @Test
  void aNullValueIsRefusedPointingToIsNull() {
    assertThatIllegalArgumentException().isThrownBy(() -> equal("id", null))
        .withMessageStartingWith("RowFilter.equal(\"id\", …): the value is null")
        .withMessageContaining("isNull(\"id\")");
    assertThatIllegalArgumentException().isThrownBy(() -> greaterThan("id", null))
        .withMessageContaining("isNull(\"id\")");
    assertThatIllegalArgumentException().isThrownBy(() -> in("id", 1, null))
        .withMessageStartingWith("RowFilter.in(\"id\", …): value 2 is null").withMessageContaining("isNull(\"id\")");
    assertThatIllegalArgumentException().isThrownBy(() -> notIn("id", Arrays.asList(null, 1)))
        .withMessageStartingWith("RowFilter.notIn(\"id\", …): value 1 is null");
    assertThatIllegalArgumentException().isThrownBy(() -> startsWith("s", null))
        .withMessage("RowFilter.startsWith(\"s\", null): the prefix is null");
    assertThatIllegalArgumentException().isThrownBy(() -> notStartsWith("s", null))
        .withMessageContaining("prefix is null");
  }

  @Test
  void anEmptyInListIsRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> in("id"))
        .withMessage("RowFilter.in(\"id\"): no values; in needs at least one (for no row use alwaysFalse())");
    assertThatIllegalArgumentException().isThrownBy(() -> in("id", List.of())).withMessageContaining("no values");
    assertThatIllegalArgumentException().isThrownBy(() -> notIn("id", Set.of()))
        .withMessage("RowFilter.notIn(\"id\"): no values; notIn needs at least one "
            + "(for every non-null row use notNull(\"id\"))");
    assertThatIllegalArgumentException().isThrownBy(() -> in("id", (Object[]) null)).withMessageContaining("no values");
  }

  @ParameterizedTest
  @ValueSource(strings = { "double", "float" })
  void nanIsRefusedPointingToIsNaN(String type) {
    Object nan = type.equals("double") ? (Object) Double.NaN : (Object) Float.NaN;
    assertThatIllegalArgumentException().isThrownBy(() -> equal("f", nan))
        .withMessage("RowFilter.equal(\"f\", …): the value is NaN, which equals and compares with nothing: "
            + "use isNaN(\"f\")");
    assertThatIllegalArgumentException().isThrownBy(() -> notEqual("f", nan))
        .withMessageEndingWith("use notNaN(\"f\")");
    assertThatIllegalArgumentException().isThrownBy(() -> lessThan("f", nan))
        .withMessageEndingWith("use isNaN(\"f\") or notNaN(\"f\")");
    assertThatIllegalArgumentException().isThrownBy(() -> in("f", 1.0, nan))
        .withMessageStartingWith("RowFilter.in(\"f\", …): value 2 is NaN").withMessageEndingWith("use isNaN(\"f\")");
    assertThatIllegalArgumentException().isThrownBy(() -> notIn("f", nan)).withMessageEndingWith("use notNaN(\"f\")");
  }

  @Test
  void infinityIsRefusedBecauseJsonCannotCarryIt() {
    assertThatIllegalArgumentException().isThrownBy(() -> lessThan("f", Double.POSITIVE_INFINITY))
        .withMessageStartingWith("RowFilter.lessThan(\"f\", …): the value is Infinity;")
        .withMessageContaining("JSON has no infinite numbers");
    assertThatIllegalArgumentException().isThrownBy(() -> in("f", 1f, Float.NEGATIVE_INFINITY))
        .withMessageStartingWith("RowFilter.in(\"f\", …): value 2 is -Infinity;");
  }

  @Test
  void anUnsupportedValueTypeIsRefusedByItsClass() {
    assertThatIllegalArgumentException().isThrownBy(() -> equal("d", new Date(0)))
        .withMessageStartingWith("RowFilter.equal(\"d\", …): the value has type java.util.Date, which is not a "
            + "filter value;")
        .withMessageContaining("LocalDate");
    assertThatIllegalArgumentException().isThrownBy(() -> in("s", "a", new StringBuilder("b")))
        .withMessageStartingWith("RowFilter.in(\"s\", …): value 2 has type java.lang.StringBuilder");
    assertThatIllegalArgumentException().isThrownBy(() -> equal("s", (short) 1))
        .withMessageContaining("java.lang.Short");
    assertThatIllegalArgumentException().isThrownBy(() -> in("x", (Object) new int[] { 1 }))
        .withMessageContaining("has type int[]");
    assertThatIllegalArgumentException().isThrownBy(() -> equal("x", List.of(1)))
        .withMessageContaining("java.util.");
  }

  @Test
  void anOffsetTimestampOutOfRangeInUtcIsRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> equal("t", OffsetDateTime.MAX))
        .withMessageStartingWith("RowFilter.equal(\"t\", …): the value " + OffsetDateTime.MAX)
        .withMessageEndingWith("is out of range in UTC");
    assertThatIllegalArgumentException().isThrownBy(() -> equal("t", Instant.MAX))
        .withMessageContaining("out of range");
  }

  @Test
  void nullOrMissingFiltersInAJunctionAreRefused() {
    assertThatIllegalArgumentException().isThrownBy(() -> and(p("a"), null))
        .withMessage("RowFilter.and: filter 2 of 2 is null");
    assertThatIllegalArgumentException().isThrownBy(() -> or(alwaysTrue(), null))
        .as("checked before any simplification").withMessage("RowFilter.or: filter 2 of 2 is null");
    assertThatIllegalArgumentException().isThrownBy(() -> and())
        .withMessage("RowFilter.and: no filters; for every row use alwaysTrue()");
    assertThatIllegalArgumentException().isThrownBy(() -> or(List.of()))
        .withMessage("RowFilter.or: no filters; for no row use alwaysFalse()");
    assertThatIllegalArgumentException().isThrownBy(() -> not(null)).withMessage("RowFilter.not: the filter is null");
  }

  @Test
  void aFilterTooDeepToSendIsRefusedWhenBuilt() {
    RowFilter deepest = deep(RowFilter.MAX_JSON_DEPTH);
    assertThat(depth(MAPPER.readTree(deepest.toJson()))).isEqualTo(RowFilter.MAX_JSON_DEPTH);

    assertThatIllegalArgumentException().isThrownBy(() -> not(deepest))
        .withMessageStartingWith("RowFilter.not: the filter would nest 500 levels deep in JSON, more than the 499");
    assertThatIllegalArgumentException().isThrownBy(() -> and(deepest, in("x", 1)))
        .withMessageContaining("nest 500 levels");
  }

  /** The deepest filter the builder allows reaches the catalog: the limit is the planner's, not a guess. */
  @Test
  void theDeepestFilterAllowedIsSentAsItIs() throws Exception {
    this.catalog.server().enqueue(json(ALL_ENDPOINTS));
    this.catalog.server().enqueue(json("{\"status\":\"completed\",\"plan-id\":\"p\"}"));
    RowFilter deepest = deep(RowFilter.MAX_JSON_DEPTH);

    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).build()) {
      planner.plan(TableIdentifier.of("db", "t"), ScanRequest.builder().filter(deepest).build());
    }

    take();
    assertThat(MAPPER.readTree(take().getBody().utf8()).get("filter")).isEqualTo(MAPPER.readTree(deepest.toJson()));
  }

  @Test
  void theScanRequestCarriesTheFiltersJson() {
    RowFilter filter = and(greaterThan("amount", new BigDecimal("100.00")), in("region", "emea", "apac"));
    assertThat(ScanRequest.builder().filter(filter).build().filter()).isEqualTo(filter);
    assertThat(ScanRequest.builder().filter(alwaysTrue()).build().filter()).isSameAs(alwaysTrue());
    assertThatIllegalArgumentException().isThrownBy(() -> ScanRequest.builder().filter((RowFilter) null))
        .withMessageContaining("filter is null");
  }

  @Test
  void aFilterGivenAsJsonIsKeptCompactWithItsNumbersAsWritten() {
    RowFilter given = RowFilter.ofJson("""
        { "type" : "and",
          "left" : {"type": "gt", "term": "amount", "value": 123456789012345678.91},
          "right": {"type": "in", "term": "x", "values": [1e400, 0.10]} }""");

    assertThat(given.toJson()).isEqualTo("{\"type\":\"and\",\"left\":{\"type\":\"gt\",\"term\":\"amount\","
        + "\"value\":123456789012345678.91},\"right\":{\"type\":\"in\",\"term\":\"x\",\"values\":[1E+400,0.10]}}");
    assertThat(given).isEqualTo(RowFilter.ofJson(given.toJson())).hasSameHashCodeAs(RowFilter.ofJson(given.toJson()));
    assertThat(given).hasToString(given.toJson());
  }

  @Test
  void aFilterGivenAsJsonCombinesWithTypedOnes() {
    RowFilter given = RowFilter.ofJson("{\"type\":\"not-null\",\"term\":\"a\"}");

    assertThat(and(given, equal("b", 2)).toJson())
        .isEqualTo(binary("and", "{\"type\":\"not-null\",\"term\":\"a\"}", equal("b", 2).toJson()));
    assertThat(not(given).toJson()).isEqualTo("{\"type\":\"not\",\"child\":{\"type\":\"not-null\",\"term\":\"a\"}}");
    assertThat(RowFilter.ofJson(" true ")).isSameAs(alwaysTrue());
    assertThat(RowFilter.ofJson("false")).isSameAs(alwaysFalse());
    assertThat(and(RowFilter.ofJson("true"), given)).isEqualTo(given);
  }

  @ParameterizedTest
  @ValueSource(strings = {"{not json", "{\"type\":\"eq\"} {}", "[true]", "5", "\"eq\"", "null"})
  void textThatIsNoExpressionIsRefusedWhenGiven(String json) {
    assertThatIllegalArgumentException().isThrownBy(() -> RowFilter.ofJson(json))
        .withMessageStartingWith("RowFilter.ofJson: the filter ");
  }

  @Test
  void aNullOrBlankJsonFilterIsRefusedPointingToNoFilter() {
    assertThatIllegalArgumentException().isThrownBy(() -> RowFilter.ofJson(null))
        .withMessage("RowFilter.ofJson: the filter JSON is null: leave the filter unset to scan without one");
    assertThatIllegalArgumentException().isThrownBy(() -> RowFilter.ofJson(" "))
        .withMessage("RowFilter.ofJson: the filter JSON is blank: leave the filter unset to scan without one");
  }

  @Test
  void aJsonFilterTooDeepToSendIsRefusedWhenGiven() {
    String deepest = deep(RowFilter.MAX_JSON_DEPTH).toJson();

    assertThat(RowFilter.ofJson(deepest).toJson()).isEqualTo(deepest);
    assertThatIllegalArgumentException().isThrownBy(() -> not(RowFilter.ofJson(deepest)))
        .withMessageContaining("nest 500 levels");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RowFilter.ofJson("{\"type\":\"not\",\"child\":" + deepest + "}"))
        .withMessageStartingWith("RowFilter.ofJson: the filter would nest 500 levels deep in JSON");
  }

  /** A filter that nests {@code depth} levels deep in JSON: an and of an or of an and … of a predicate. */
  private static RowFilter deep(int depth) {
    RowFilter filter = equal("x", 0);
    for (int level = 2; level <= depth; level++) {
      RowFilter next = equal("x", level);
      filter = level % 2 == 0 ? and(next, filter) : or(next, filter);
    }
    return filter;
  }

  private static RowFilter p(String name) {
    return equal(name, 1);
  }

  private static String binary(String type, String left, String right) {
    return "{\"type\":\"" + type + "\",\"left\":" + left + ",\"right\":" + right + "}";
  }

  private static String value(Object value) {
    String json = equal("v", value).toJson();
    String prefix = "{\"type\":\"eq\",\"term\":\"v\",\"value\":";
    assertThat(json).startsWith(prefix).endsWith("}");
    assertThat(MAPPER.readTree(json).isObject()).as("valid JSON: %s", json).isTrue();
    return json.substring(prefix.length(), json.length() - 1);
  }

  /** Nesting as Jackson counts it: objects and arrays. */
  private static int depth(tools.jackson.databind.JsonNode node) {
    if (!node.isContainer()) {
      return 0;
    }
    int deepest = 0;
    for (tools.jackson.databind.JsonNode child : node) {
      deepest = Math.max(deepest, depth(child));
    }
    return 1 + deepest;
  }

  private static MockResponse json(String body) {
    return new MockResponse.Builder().code(200).setHeader("Content-Type", "application/json").body(body).build();
  }

  private RecordedRequest take() throws InterruptedException {
    RecordedRequest request = this.catalog.server().takeRequest(10, TimeUnit.SECONDS);
    assertThat(request).as("a request").isNotNull();
    return request;
  }
}
