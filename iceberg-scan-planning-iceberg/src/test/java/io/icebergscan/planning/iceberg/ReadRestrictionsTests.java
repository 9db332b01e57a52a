package io.icebergscan.planning.iceberg;

import java.util.List;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The read restrictions' wire format and the spec's fail-closed rules: each rule broken is an
 * {@link InvalidReadRestrictionsException} naming the table, the field and the rule, never a value or the filter;
 * served by a catalog, it fails the table's load, so nothing is planned, no request follows the load, and no row is
 * read. What imposes nothing (absent, null, empty, no projections, a row filter absent, null or always true) is no
 * restriction at all.
 */
class ReadRestrictionsTests {

  /** As the catalog numbers it: the top-level columns first, then the nested ones. */
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.required(3, "region", Types.StringType.get()),
      Types.NestedField.optional(4, "address", Types.StructType.of(
          Types.NestedField.optional(7, "street", Types.StringType.get()),
          Types.NestedField.required(8, "zip", Types.IntegerType.get()))),
      Types.NestedField.optional(5, "tags", Types.MapType.ofOptional(9, 10, Types.StringType.get(),
          Types.StringType.get())),
      Types.NestedField.optional(6, "phones", Types.ListType.ofRequired(11, Types.StringType.get())));
  private static final String TABLE = "db.t";
  private static final String SECRET = "alice@secret.example";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static TableIdentifier rules;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    EmbeddedTable table = catalog.createTable(TableIdentifier.of("restrictions", "rules"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    Rows row = new Rows(table);
    table.appendRows(FileFormat.AVRO, List.of(row.of(1L, "a@b.example", "US"), row.of(2L, SECRET, "EU")));
    rules = table.identifier();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).scanReports(false).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  /** Rows of the rules table: id, email, region, the rest null. */
  private record Rows(EmbeddedTable table) {
    org.apache.iceberg.data.Record of(long id, String email, String region) {
      return this.table.newRecord(id, email, region, null, null, null);
    }
  }

  static Stream<Arguments> brokenRules() {
    return Stream.of(
        arguments("an unknown action", "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"mask-to-default\"}]}",
            2, "is not one this reader knows"),
        arguments("an action dropped from the spec",
            "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"apply-expression\"}]}", 2,
            "is not one this reader knows"),
        arguments("the same field twice", "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"mask-alphanum\"},"
            + "{\"field-id\":2,\"action\":\"show-first-4\"}]}", 2, "two projections of the same field"),
        arguments("a map key", "{\"required-column-projections\":[{\"field-id\":9,\"action\":\"mask-alphanum\"}]}", 9,
            "a projection on a map key"),
        arguments("a struct and a field of it", "{\"required-column-projections\":[{\"field-id\":4,"
            + "\"action\":\"replace-with-null\"},{\"field-id\":7,\"action\":\"mask-alphanum\"}]}", 7,
            "nested under field 4"),
        arguments("a map and its value", "{\"required-column-projections\":[{\"field-id\":5,"
            + "\"action\":\"mask-to-fixed-value\"},{\"field-id\":10,\"action\":\"mask-alphanum\"}]}", 10,
            "nested under field 5"),
        arguments("an action on a type it does not take", "{\"required-column-projections\":[{\"field-id\":1,"
            + "\"action\":\"mask-alphanum\"}]}", 1, "long"),
        arguments("replace-with-null on a required column", "{\"required-column-projections\":[{\"field-id\":3,"
            + "\"action\":\"replace-with-null\"}]}", 3, "required"),
        arguments("replace-with-null on a required nested field", "{\"required-column-projections\":[{\"field-id\":8,"
            + "\"action\":\"replace-with-null\"}]}", 8, "required"),
        arguments("replace-with-null on a required list element", "{\"required-column-projections\":[{\"field-id\":11,"
            + "\"action\":\"replace-with-null\"}]}", 11, "required"),
        arguments("a row filter on a field the schema lacks", "{\"required-row-filter\":{\"type\":\"eq\","
            + "\"left\":{\"type\":\"reference\",\"id\":99},\"right\":\"US\"}}", 99, "no field 99"),
        arguments("a row filter by name", "{\"required-row-filter\":{\"type\":\"eq\",\"left\":{\"type\":\"reference\","
            + "\"name\":\"region\"},\"right\":\"US\"}}", null, "field ids"),
        arguments("a row filter in the legacy form, by name", "{\"required-row-filter\":{\"type\":\"eq\","
            + "\"term\":\"region\",\"value\":\"US\"}}", null, "field ids"),
        arguments("a literal the field's type cannot take", "{\"required-row-filter\":{\"type\":\"eq\","
            + "\"left\":{\"type\":\"reference\",\"id\":1},\"right\":\"" + SECRET + "\"}}", 1, "cannot take"),
        arguments("an unknown expression type", "{\"required-row-filter\":{\"type\":\"like\","
            + "\"left\":{\"type\":\"reference\",\"id\":2},\"right\":\"" + SECRET + "\"}}", null,
            "unknown expression type"),
        arguments("a function it cannot apply", "{\"required-row-filter\":{\"type\":\"eq\",\"left\":{\"type\":\"apply\","
            + "\"function\":\"lower\",\"arguments\":[{\"type\":\"reference\",\"id\":2}]},\"right\":\"" + SECRET
            + "\"}}", null, "a function this reader cannot apply"),
        arguments("a member it does not know", "{\"required-row-filter\":true,\"version\":2}", null,
            "'version'"),
        arguments("a projection member it does not know", "{\"required-column-projections\":[{\"field-id\":2,"
            + "\"action\":\"sha-256-global\",\"salt\":\"" + SECRET + "\"}]}", null, "'salt'"),
        arguments("a projection without a field id", "{\"required-column-projections\":[{\"action\":"
            + "\"mask-alphanum\"}]}", null, "no int field-id"),
        arguments("not an object", "[]", null, "not an object"),
        arguments("projections that are not a list", "{\"required-column-projections\":{\"field-id\":2}}", null,
            "not an array"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("brokenRules")
  void aRuleBrokenIsRefusedNamingTheFieldAndTheRuleButNoValue(String name, String json, @Nullable Integer fieldId,
      String rule) {
    assertThatThrownBy(() -> ReadRestrictions.parse(TABLE, json, SCHEMA))
        .isInstanceOfSatisfying(InvalidReadRestrictionsException.class, refused -> {
          assertThat(refused.table()).isEqualTo(TABLE);
          assertThat(refused.fieldId()).isEqualTo(fieldId);
          assertThat(refused.rule()).contains(rule);
          assertThat(refused.getMessage()).contains(TABLE).contains(rule).doesNotContain(SECRET);
        });
  }

  /** The broken rules a catalog can serve: an answer whose member is not even an object is malformed JSON of it. */
  static Stream<Arguments> servedBrokenRules() {
    return brokenRules().filter(rule -> ((String) rule.get()[1]).startsWith("{"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("servedBrokenRules")
  void aCatalogThatSendsABrokenRuleFailsTheLoadSoNothingIsPlannedNorRead(String name, String json,
      @Nullable Integer fieldId, String rule) {
    catalog.readRestrictions(rules, RestrictionPolicy.json(json));
    catalog.clearRecordedRequests();
    catalog.recordRequests(true);
    try {
      assertThatThrownBy(() -> iceberg.loadTable(rules)).isInstanceOf(InvalidReadRestrictionsException.class)
          .hasMessageContaining(rule).hasMessageNotContaining(SECRET);
      assertThatThrownBy(() -> iceberg.streamRows(rules, IcebergScan.all()).collectList().block())
          .isInstanceOf(InvalidReadRestrictionsException.class);
    }
    finally {
      catalog.recordRequests(false);
      catalog.readRestrictions(rules, null);
    }
    // the planner's discovery aside, which its first call makes
    assertThat(catalog.recordedRequests().stream().filter(request -> !request.path().startsWith("/v1/config")))
        .as("nothing after the loads").allSatisfy(request -> {
      assertThat(request.method()).isEqualTo("GET");
      assertThat(request.path()).endsWith("/rules");
    }).hasSize(2);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("nothing")
  void whatImposesNothingIsNoRestriction(String name, @Nullable String json) {
    assertThat(ReadRestrictions.parse(TABLE, json, SCHEMA)).isSameAs(ReadRestrictions.NONE)
        .satisfies(none -> assertThat(none.isEmpty()).isTrue());
  }

  static Stream<Arguments> nothing() {
    String alwaysTrue = "{\"type\":\"or\",\"left\":true,\"right\":{\"type\":\"eq\",\"left\":{\"type\":\"reference\","
        + "\"id\":3},\"right\":\"US\"}}";
    return Stream.of(arguments("absent", null), arguments("null", "null"), arguments("empty", "{}"),
        arguments("no projections", "{\"required-column-projections\":[]}"),
        arguments("null projections and filter", "{\"required-column-projections\":null,\"required-row-filter\":null}"),
        arguments("a true row filter", "{\"required-row-filter\":true}"),
        arguments("the deprecated true", "{\"required-row-filter\":{\"type\":\"true\"}}"),
        arguments("a row filter always true", "{\"required-row-filter\":" + alwaysTrue + "}"));
  }

  @Test
  void aFalseRowFilterIsARestrictionThatLeavesNoRow() {
    ReadRestrictions restrictions = ReadRestrictions.parse(TABLE, "{\"required-row-filter\":false}", SCHEMA);
    assertThat(restrictions.hasRowFilter()).isTrue();
    catalog.readRestrictions(rules, RestrictionPolicy.json("{\"required-row-filter\":false}"));
    try {
      IcebergTable table = iceberg.loadTable(rules);
      try (ScanRows rows = iceberg.readRows(table, IcebergScan.all())) {
        assertThat(rows).isEmpty();
      }
    }
    finally {
      catalog.readRestrictions(rules, null);
    }
  }

  @Test
  void aMaskOnAFieldTheSchemaReadLacksDoesNotApply() {
    // field 12 is in no schema of this table: a read of it reads no such column
    ReadRestrictions restrictions = ReadRestrictions.parse(TABLE, "{\"required-column-projections\":[{\"field-id\":12,"
        + "\"action\":\"mask-alphanum\"}]}", SCHEMA);
    assertThat(restrictions.isEmpty()).isFalse();
    assertThat(restrictions.bind(TABLE, SCHEMA).masks()).isEmpty();
  }

  @Test
  void aRowFilterIsReadInTheSpecsFormWithItsLiteralsTypedByTheField() {
    ReadRestrictions restrictions = ReadRestrictions.parse(TABLE, "{\"required-row-filter\":{\"type\":\"and\","
        + "\"left\":{\"type\":\"in\",\"child\":{\"type\":\"reference\",\"id\":3},\"values\":[\"US\",\"CA\"]},"
        + "\"right\":{\"type\":\"gt-eq\",\"left\":{\"type\":\"literal\",\"value\":5},"
        + "\"right\":{\"type\":\"reference\",\"id\":1}}}}", SCHEMA);
    Expression filter = restrictions.bind(TABLE, SCHEMA).rowFilter();
    assertThat(filter).isNotNull();
    // 5 >= id is id <= 5, on the columns the ids name
    assertThat(filter.toString()).contains("ref(name=\"region\") in").contains("ref(name=\"id\") <= 5");
  }
}
