package io.icebergscan.planning.test;

import java.math.BigDecimal;
import java.util.UUID;
import java.util.stream.Stream;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/** The {@code read-restrictions} JSON a policy serves, checked as text. */
class RestrictionPolicyTests {

  static final Schema SCHEMA = new Schema(required(1, "id", Types.LongType.get()),
      optional(2, "name", Types.StringType.get()), optional(3, "day", Types.DateType.get()),
      optional(4, "ts", Types.TimestampType.withoutZone()), optional(5, "tstz", Types.TimestampType.withZone()),
      optional(6, "price", Types.DecimalType.of(10, 2)), optional(7, "uid", Types.UUIDType.get()),
      optional(8, "flag", Types.BooleanType.get()), optional(9, "score", Types.DoubleType.get()),
      optional(10, "address", Types.StructType.of(optional(11, "zip", Types.StringType.get()),
          optional(12, "city", Types.StringType.get()))),
      optional(13, "email", Types.StringType.get()));

  static Stream<Arguments> predicates() {
    return Stream.of(
        // comparisons, literals as the field's type writes them
        arguments(Expressions.lessThan("id", 5), cmp("lt", 1, "5")),
        arguments(Expressions.lessThanOrEqual("id", 5L), cmp("lt-eq", 1, "5")),
        arguments(Expressions.greaterThan("score", 1.5), cmp("gt", 9, "1.5")),
        arguments(Expressions.greaterThanOrEqual("price", new BigDecimal("12.34")), cmp("gt-eq", 6, "\"12.34\"")),
        arguments(Expressions.equal("name", "US"), cmp("eq", 2, "\"US\"")),
        arguments(Expressions.notEqual("flag", true), cmp("not-eq", 8, "true")),
        arguments(Expressions.equal("day", "2024-07-15"), cmp("eq", 3, "\"2024-07-15\"")),
        arguments(Expressions.lessThan("ts", "2024-07-15T13:45:30.5"), cmp("lt", 4, "\"2024-07-15T13:45:30.5\"")),
        arguments(Expressions.greaterThan("tstz", "2024-07-15T13:45:30+02:00"),
            cmp("gt", 5, "\"2024-07-15T11:45:30+00:00\"")),
        arguments(Expressions.equal("uid", UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7")),
            cmp("eq", 7, "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"")),
        arguments(Expressions.startsWith("name", "Ab"), cmp("starts-with", 2, "\"Ab\"")),
        arguments(Expressions.notStartsWith("name", "Ab"), cmp("not-starts-with", 2, "\"Ab\"")),
        arguments(Expressions.equal("address.zip", "12345"), cmp("eq", 11, "\"12345\"")),
        // literals converted to the field's type, as Iceberg binds them
        arguments(Expressions.equal("price", 12.3), cmp("eq", 6, "\"12.30\"")),
        arguments(Expressions.equal("id", 7), cmp("eq", 1, "7")),
        // sets, in the order of the field's type
        arguments(Expressions.in("id", 3, 1, 2),
            "{\"type\":\"in\",\"child\":" + ref(1) + ",\"values\":[" + lit("1") + "," + lit("2") + "," + lit("3")
                + "]}"),
        arguments(Expressions.notIn("name", "b", "a"),
            "{\"type\":\"not-in\",\"child\":" + ref(2) + ",\"values\":[" + lit("\"a\"") + "," + lit("\"b\"") + "]}"),
        arguments(Expressions.in("day", "2024-07-15"), cmp("eq", 3, "\"2024-07-15\"")),
        // tests
        arguments(Expressions.isNull("name"), "{\"type\":\"is-null\",\"child\":" + ref(2) + "}"),
        arguments(Expressions.notNull("name"), "{\"type\":\"not-null\",\"child\":" + ref(2) + "}"),
        arguments(Expressions.isNaN("score"), "{\"type\":\"is-nan\",\"child\":" + ref(9) + "}"),
        arguments(Expressions.notNaN("score"), "{\"type\":\"not-nan\",\"child\":" + ref(9) + "}"),
        // a test that binding decides: id is required
        arguments(Expressions.notNull("id"), "true"),
        // logic
        arguments(Expressions.not(Expressions.equal("name", "x")),
            "{\"type\":\"not\",\"child\":" + cmp("eq", 2, "\"x\"") + "}"),
        arguments(Expressions.and(Expressions.equal("name", "x"), Expressions.or(Expressions.isNull("day"),
            Expressions.greaterThan("id", 0))),
            "{\"type\":\"and\",\"left\":" + cmp("eq", 2, "\"x\"") + ",\"right\":{\"type\":\"or\",\"left\":"
                + "{\"type\":\"is-null\",\"child\":" + ref(3) + "},\"right\":" + cmp("gt", 1, "0") + "}}"),
        arguments(Expressions.alwaysTrue(), "true"),
        arguments(Expressions.alwaysFalse(), "false"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("predicates")
  void writesTheRowFilterInTheNewJsonFormWithFieldIds(Expression filter, String expected) {
    assertThat(RestrictionPolicy.builder().rowFilter(filter).build().toJson(SCHEMA))
        .isEqualTo("{\"required-row-filter\":" + expected + "}");
  }

  @Test
  void writesMasksByFieldIdInTheOrderGivenAfterTheRowFilter() {
    RestrictionPolicy policy = RestrictionPolicy.builder().mask("email", "mask-alphanum")
        .mask("address.zip", "replace-with-null").rowFilter(Expressions.equal("name", "US"))
        .mask("name", "no-such-action").build();

    assertThat(policy.toJson(SCHEMA)).isEqualTo("{\"required-row-filter\":" + cmp("eq", 2, "\"US\"")
        + ",\"required-column-projections\":[{\"field-id\":13,\"action\":\"mask-alphanum\"},"
        + "{\"field-id\":11,\"action\":\"replace-with-null\"},{\"field-id\":2,\"action\":\"no-such-action\"}]}");
  }

  @Test
  void resolvesColumnsAgainstTheSchemaItIsGiven() {
    RestrictionPolicy policy = RestrictionPolicy.builder().rowFilter(Expressions.equal("name", "US"))
        .mask("email", "mask-alphanum").build();
    Schema renumbered = new Schema(optional(21, "email", Types.StringType.get()),
        optional(22, "name", Types.StringType.get()));

    assertThat(policy.toJson(renumbered)).isEqualTo("{\"required-row-filter\":" + cmp("eq", 22, "\"US\"")
        + ",\"required-column-projections\":[{\"field-id\":21,\"action\":\"mask-alphanum\"}]}");
  }

  @Test
  void aPolicyWithNeitherServesAnEmptyObject() {
    assertThat(RestrictionPolicy.builder().build().toJson(SCHEMA)).isEqualTo("{}");
  }

  @Test
  void refusesColumnsTheSchemaLacksNamingThem() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RestrictionPolicy.builder().mask("phone", "mask-alphanum").build().toJson(SCHEMA))
        .withMessageContaining("phone");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RestrictionPolicy.builder().rowFilter(Expressions.equal("country", "US")).build()
            .toJson(SCHEMA))
        .withMessageContaining("country");
  }

  @Test
  void refusesLiteralsThatDoNotConvertAndTransforms() {
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RestrictionPolicy.builder().rowFilter(Expressions.equal("id", "abc")).build()
            .toJson(SCHEMA))
        .withMessageContaining("long");
    assertThatIllegalArgumentException()
        .isThrownBy(() -> RestrictionPolicy.builder().rowFilter(Expressions.equal(Expressions.bucket("id", 16), 3))
            .build().toJson(SCHEMA))
        .withMessageContaining("bucket[16]");
  }

  @ParameterizedTest
  @ValueSource(strings = { "{}", "null", "{ \"required-row-filter\" : {\"type\":\"apply\",\"function\":\"f\"},\n"
      + "  \"required-column-projections\": [{\"field-id\": 99, \"action\": \"explode\"}], \"extra\": [1, 2] }" })
  void servesJsonVerbatimWhateverTheSchema(String json) {
    assertThat(RestrictionPolicy.json(json).toJson(SCHEMA)).isEqualTo(json);
  }

  @ParameterizedTest
  @ValueSource(strings = { "", "[]", "true", "\"text\"", "{", "{} {}", "{\"a\":1}x" })
  void jsonMustBeOneObjectOrNull(String json) {
    assertThatIllegalArgumentException().isThrownBy(() -> RestrictionPolicy.json(json));
  }

  @Test
  void toStringShowsTheMasksButNotTheFilterValues() {
    RestrictionPolicy policy = RestrictionPolicy.builder()
        .rowFilter(Expressions.and(Expressions.equal("name", "Top-Secret"), Expressions.lessThan("id", 424242)))
        .mask("email", "mask-alphanum").build();

    assertThat(policy.toString()).contains("email=mask-alphanum", "name", "id").doesNotContain("Top-Secret", "424242");
    assertThat(RestrictionPolicy.json("{\"required-row-filter\":{\"value\":\"Top-Secret\"}}").toString())
        .doesNotContain("Top-Secret");
  }

  @Test
  void masksCoverTheFieldsNestedUnderThem() {
    assertThat(RestrictionPolicy.builder().mask("address", "mask-to-fixed-value").mask("email", "mask-alphanum")
        .build().maskedFields(SCHEMA))
        .containsOnlyKeys(10, 11, 12, 13).containsEntry(11, "address").containsEntry(13, "email");
    assertThat(RestrictionPolicy.json("{\"required-column-projections\":[{\"field-id\":10,\"action\":\"x\"},"
        + "{\"field-id\":\"13\"},{\"field-id\":404}]}").maskedFields(SCHEMA))
        .containsOnlyKeys(10, 11, 12);
  }

  /** A comparison of a field and a literal. */
  static String cmp(String type, int fieldId, String value) {
    return "{\"type\":\"" + type + "\",\"left\":" + ref(fieldId) + ",\"right\":" + lit(value) + "}";
  }

  static String ref(int fieldId) {
    return "{\"type\":\"reference\",\"id\":" + fieldId + "}";
  }

  static String lit(String value) {
    return "{\"type\":\"literal\",\"value\":" + value + "}";
  }
}
