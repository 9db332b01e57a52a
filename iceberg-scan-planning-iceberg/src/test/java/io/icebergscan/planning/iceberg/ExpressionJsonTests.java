package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;

import io.icebergscan.planning.iceberg.ExpressionJson.InvalidExpressionException;
import io.icebergscan.planning.iceberg.ExpressionJson.References;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * {@link ExpressionJson}: both JSON forms of the REST spec read as Iceberg's unbound expressions. Pinned: every
 * predicate, reference, literal and transform function of the expressions spec's form (Appendix B) and of the legacy
 * term form; literals typed by the column they are compared with (dates, timestamps at their precision, decimals,
 * UUIDs, binary as hex) and, without a schema, as Iceberg's own parser types them; which references each
 * {@link References} allows, and ids resolved to the full name of nested fields; strictness (an unknown type or
 * member, two columns or two constants compared, a null constant, an unknown function or catalog, a bad transform
 * parameter, a transform of a transform, malformed JSON, mixed forms: each an {@link InvalidExpressionException},
 * never a predicate dropped); and messages that name the path and the field but never quote a value.
 */
class ExpressionJsonTests {

  private static final Types.StructType ADDRESS = Types.StructType.of(
      required(13, "city", Types.StringType.get()),
      optional(14, "zip", Types.IntegerType.get()));

  private static final Schema SCHEMA = new Schema(
      required(1, "id", Types.LongType.get()),
      optional(2, "count", Types.IntegerType.get()),
      optional(3, "score", Types.DoubleType.get()),
      optional(4, "name", Types.StringType.get()),
      optional(5, "day", Types.DateType.get()),
      optional(6, "at", Types.TimestampType.withoutZone()),
      optional(7, "placed", Types.TimestampType.withZone()),
      optional(8, "ns", Types.TimestampNanoType.withoutZone()),
      optional(9, "amount", Types.DecimalType.of(10, 2)),
      optional(10, "token", Types.UUIDType.get()),
      optional(11, "payload", Types.BinaryType.get()),
      optional(12, "address", ADDRESS),
      optional(15, "code", Types.FixedType.ofLength(3)),
      optional(16, "flag", Types.BooleanType.get()));

  private static final Types.StructType STRUCT = SCHEMA.asStruct();

  private static final String PATH = "required-row-filter";

  /** A value no message may quote. */
  private static final String SECRET = "alice@x.example";

  // ---- the expressions spec's form

  @Test
  void andAndOrCombineTheirLeftAndRight() {
    Expression and = parse("{'type':'and','left':{'type':'is-null','child':{'type':'reference','id':2}},"
        + "'right':{'type':'lt','left':{'type':'reference','id':1},'right':3}}");
    assertEquivalent(and, Expressions.and(Expressions.isNull("count"), Expressions.lessThan("id", 3L)));
    assertThat(and.op()).isEqualTo(Expression.Operation.AND);

    Expression or = parse("{'type':'or','left':{'type':'is-null','child':{'type':'reference','id':2}},"
        + "'right':{'type':'lt','left':{'type':'reference','id':1},'right':3}}");
    assertEquivalent(or, Expressions.or(Expressions.isNull("count"), Expressions.lessThan("id", 3L)));
    assertThat(or.op()).isEqualTo(Expression.Operation.OR);
  }

  @Test
  void notNegatesItsChild() {
    Expression not = parse("{'type':'not','child':{'type':'lt','left':{'type':'reference','id':2},'right':3}}");
    // a NOT, kept as such: rewriting it away is normalization's business, under the spec's semantics
    assertThat(not).isInstanceOf(Not.class);
    assertEquivalent(((Not) not).child(), Expressions.lessThan("count", 3));
  }

  @Test
  void eachTestReadsItsChild() {
    assertParsesAs("{'type':'is-null','child':{'type':'reference','id':2}}", Expressions.isNull("count"));
    assertParsesAs("{'type':'not-null','child':{'type':'reference','id':2}}", Expressions.notNull("count"));
    assertParsesAs("{'type':'is-nan','child':{'type':'reference','id':3}}", Expressions.isNaN("score"));
    assertParsesAs("{'type':'not-nan','child':{'type':'reference','id':3}}", Expressions.notNaN("score"));
    assertThat(refused("{'type':'is-null','child':3}").getMessage()).contains(PATH + ".child");
    assertThat(refused("{'type':'is-null','child':{'type':'literal','value':3}}").getMessage())
        .contains(PATH + ".child");
  }

  @Test
  void eachComparisonReadsItsLeftAndRight() {
    assertParsesAs(comparison("lt", 1, "3"), Expressions.lessThan("id", 3L));
    assertParsesAs(comparison("lt-eq", 1, "3"), Expressions.lessThanOrEqual("id", 3L));
    assertParsesAs(comparison("gt", 1, "3"), Expressions.greaterThan("id", 3L));
    assertParsesAs(comparison("gt-eq", 1, "3"), Expressions.greaterThanOrEqual("id", 3L));
    assertParsesAs(comparison("eq", 1, "3"), Expressions.equal("id", 3L));
    assertParsesAs(comparison("not-eq", 1, "3"), Expressions.notEqual("id", 3L));
    assertParsesAs(comparison("starts-with", 4, "'ab'"), Expressions.startsWith("name", "ab"));
    assertParsesAs(comparison("not-starts-with", 4, "'ab'"), Expressions.notStartsWith("name", "ab"));
  }

  @Test
  void aLiteralOnTheLeftTurnsTheComparisonAround() {
    // 3 < x means x > 3
    assertParsesAs(turnedAround("lt", 1, "3"), Expressions.greaterThan("id", 3L));
    assertParsesAs(turnedAround("lt-eq", 1, "3"), Expressions.greaterThanOrEqual("id", 3L));
    assertParsesAs(turnedAround("gt", 1, "3"), Expressions.lessThan("id", 3L));
    assertParsesAs(turnedAround("gt-eq", 1, "3"), Expressions.lessThanOrEqual("id", 3L));
    assertParsesAs(turnedAround("eq", 1, "3"), Expressions.equal("id", 3L));
    assertParsesAs(turnedAround("not-eq", 1, "3"), Expressions.notEqual("id", 3L));
  }

  @Test
  void aStartsWithTestWithItsColumnOnTheRightIsRefused() {
    // 'ab' starts with x is not x starts with 'ab': there is no turning it around
    assertThat(refused(turnedAround("starts-with", 4, "'ab'")).getMessage()).contains(PATH).contains("left");
    assertThat(refused(turnedAround("not-starts-with", 4, "'ab'")).getMessage()).contains(PATH).contains("left");
  }

  @Test
  void setsTakeAnArrayOfLiteralsOrALiteralsObject() {
    assertParsesAs("{'type':'in','child':{'type':'reference','id':1},'values':[1,{'type':'literal','value':2},3]}",
        Expressions.in("id", 1L, 2L, 3L));
    assertParsesAs("{'type':'not-in','child':{'type':'reference','id':1},'values':[1,2]}",
        Expressions.notIn("id", 1L, 2L));
    assertParsesAs("{'type':'in','child':{'type':'reference','id':1},"
        + "'values':{'type':'literals','values':[1,2],'data-type':'long'}}", Expressions.in("id", 1L, 2L));
    assertParsesAs("{'type':'not-in','child':{'type':'reference','id':2},"
        + "'values':{'type':'literals','values':[1,2],'data-type':'int'}}", Expressions.notIn("count", 1, 2));
    // the literals object's data type is checked as a literal's is
    assertThat(refused("{'type':'in','child':{'type':'reference','id':1},"
        + "'values':{'type':'literals','values':['1'],'data-type':'string'}}").fieldId()).isEqualTo(1);
    assertThat(refused("{'type':'in','child':{'type':'reference','id':1},'values':{'type':'literals','values':[1]}}")
        .getMessage()).contains("data-type");
    assertThat(refused("{'type':'in','child':{'type':'reference','id':1},'values':3}").getMessage())
        .contains(PATH + ".values");
  }

  @Test
  void trueAndFalseAreJsonBooleansOrTheDeprecatedObjects() {
    assertThat(parse("true")).isSameAs(Expressions.alwaysTrue());
    assertThat(parse("false")).isSameAs(Expressions.alwaysFalse());
    assertThat(parse("{'type':'true'}")).isSameAs(Expressions.alwaysTrue());
    assertThat(parse("{'type':'false'}")).isSameAs(Expressions.alwaysFalse());
    assertThat(parse("{'type':'and','left':true,'right':{'type':'false'}}")).isSameAs(Expressions.alwaysFalse());
  }

  @Test
  void referencesAreByIdOrByName() {
    assertParsesAs("{'type':'eq','left':{'type':'reference','id':2},'right':7}", Expressions.equal("count", 7));
    assertParsesAs("{'type':'eq','left':{'type':'reference','name':'count'},'right':7}",
        Expressions.equal("count", 7));
    assertThat(refused("{'type':'eq','left':{'type':'reference'},'right':7}").getMessage())
        .contains(PATH + ".left");
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':'2'},'right':7}").getMessage())
        .contains(PATH + ".left.id");
  }

  @Test
  void literalsAreBareOrObjectsWithAnOptionalDataType() {
    assertParsesAs("{'type':'eq','left':{'type':'reference','id':1},'right':3}", Expressions.equal("id", 3L));
    assertParsesAs("{'type':'eq','left':{'type':'reference','id':1},'right':{'type':'literal','value':3}}",
        Expressions.equal("id", 3L));
    assertParsesAs("{'type':'eq','left':{'type':'reference','id':1},"
        + "'right':{'type':'literal','value':3,'data-type':'long'}}", Expressions.equal("id", 3L));
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':1},'right':{'value':3}}").getMessage())
        .contains("type");
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':1},'right':{'type':'literal'}}")
        .getMessage()).contains("value");
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':1},"
        + "'right':{'type':'literal','value':3,'data-type':'integer'}}").getMessage())
        .contains(PATH + ".right.data-type");
  }

  @Test
  void anIntDataTypeLiteralIsAcceptedAgainstALongColumn() {
    Expression parsed = parse("{'type':'lt','left':{'type':'reference','id':1},"
        + "'right':{'type':'literal','value':3,'data-type':'int'}}");
    // an int promotes to a long: the bound literal is the column's type
    assertThat(boundValue(parsed)).isEqualTo(3L);
  }

  @Test
  void aStringDataTypeLiteralIsRefusedAgainstALongColumn() {
    InvalidExpressionException refused = refused("{'type':'lt','left':{'type':'reference','id':1},"
        + "'right':{'type':'literal','value':'3','data-type':'string'}}");
    assertThat(refused.fieldId()).isEqualTo(1);
    assertThat(refused.getMessage()).contains(PATH + ".right");
  }

  @Test
  void eachTransformIsAppliedToItsReference() {
    assertParsesAs(applied("'identity'", "{'type':'reference','id':1}", "3"), Expressions.equal("id", 3L));
    assertParsesAs(applied("'year'", "{'type':'reference','id':5}", "54"),
        Expressions.equal(Expressions.year("day"), 54));
    assertParsesAs(applied("'month'", "{'type':'reference','id':6}", "654"),
        Expressions.equal(Expressions.month("at"), 654));
    // a day is a date: its literal is a date's ISO text
    assertParsesAs(applied("'day'", "{'type':'reference','id':7}", "'2024-07-15'"),
        Expressions.equal(Expressions.day("placed"), 19919));
    assertParsesAs(applied("'hour'", "{'type':'reference','id':6}", "478069"),
        Expressions.equal(Expressions.hour("at"), 478069));
    assertParsesAs(applied("'bucket'", "16,{'type':'reference','id':1}", "3"),
        Expressions.equal(Expressions.bucket("id", 16), 3));
    assertParsesAs(applied("'truncate'", "{'type':'literal','value':4},{'type':'reference','id':4}", "'abcd'"),
        Expressions.equal(Expressions.truncate("name", 4), "abcd"));
    // the result of the transform types the literal: a bucket is an int, whatever it hashes
    assertThat(refused(applied("'bucket'", "16,{'type':'reference','id':4}", "'abcd'")).fieldId()).isEqualTo(4);
    // a bucket of another width is another predicate
    assertThat(ExpressionUtil.equivalent(Expressions.equal(Expressions.bucket("id", 8), 3),
        parse(applied("'bucket'", "16,{'type':'reference','id':1}", "3")), STRUCT, true)).isFalse();
  }

  @Test
  void aFunctionIsNamedByAStringAListAnIdentifierOrIcebergsCatalog() {
    Expression expected = Expressions.equal(Expressions.bucket("id", 16), 3);
    for (String function : List.of("'bucket'", "['bucket']", "{'identifier':['bucket']}",
        "{'catalog':'iceberg_functions','identifier':['bucket']}", "{'catalog':null,'identifier':['bucket']}")) {
      assertParsesAs(applied(function, "16,{'type':'reference','id':1}", "3"), expected);
    }
  }

  @Test
  void whatIcebergsOwnParserWritesIsReadBack() {
    Expression filter = Expressions.and(Expressions.lessThan("id", 3L),
        Expressions.or(Expressions.isNull("count"), Expressions.in("name", "a", "b")));
    Expression read = ExpressionJson.parse(ExpressionJson.tree(ExpressionParser.toJson(filter)), null,
        References.NAMES, PATH);
    assertEquivalent(read, filter);
  }

  // ---- the legacy form

  @Test
  void theLegacyFormReadsATermAndAValue() {
    assertParsesAs("{'type':'lt','term':'id','value':3}", Expressions.lessThan("id", 3L));
    assertParsesAs("{'type':'lt','term':{'type':'reference','term':'id'},'value':3}",
        Expressions.lessThan("id", 3L));
    assertParsesAs("{'type':'eq','term':{'type':'transform','transform':'bucket[16]','term':'id'},'value':3}",
        Expressions.equal(Expressions.bucket("id", 16), 3));
    assertParsesAs("{'type':'eq','term':{'type':'transform','transform':'truncate[4]',"
        + "'term':{'type':'reference','term':'name'}},'value':'abcd'}",
        Expressions.equal(Expressions.truncate("name", 4), "abcd"));
    assertParsesAs("{'type':'starts-with','term':'name','value':'ab'}", Expressions.startsWith("name", "ab"));
    assertParsesAs("{'type':'is-null','term':'count'}", Expressions.isNull("count"));
    assertParsesAs("{'type':'not-nan','term':'score'}", Expressions.notNaN("score"));
  }

  @Test
  void theLegacyFormTakesValuesForSets() {
    assertParsesAs("{'type':'in','term':'id','values':[1,2]}", Expressions.in("id", 1L, 2L));
    assertParsesAs("{'type':'not-in','term':'name','values':['a','b']}", Expressions.notIn("name", "a", "b"));
  }

  @Test
  void aLegacyTransformOfATransformOrOfAnUnknownTermIsRefused() {
    assertThat(refused("{'type':'eq','term':{'type':'transform','transform':'bucket[16]',"
        + "'term':{'type':'transform','transform':'truncate[4]','term':'name'}},'value':3}").getMessage())
        .contains(PATH + ".term");
    assertThat(refused("{'type':'eq','term':{'type':'transform','transform':'void','term':'id'},'value':3}")
        .fieldId()).isEqualTo(1);
    assertThat(refused("{'type':'eq','term':{'type':'column','term':'id'},'value':3}").getMessage())
        .contains(PATH + ".term.type");
    assertThat(refused("{'type':'eq','term':3,'value':3}").getMessage()).contains(PATH + ".term");
  }

  // ---- typed literals

  @Test
  void aDateLiteralBindsToItsDayFromEpoch() {
    assertThat(boundValue(parse(comparison("eq", 5, "'2024-07-15'")))).isEqualTo(19919);
    assertThat(boundValue(parse("{'type':'in','child':{'type':'reference','id':5},"
        + "'values':{'type':'literals','values':['2024-07-15','1970-01-02'],'data-type':'date'}}")))
        .isEqualTo(List.of(1, 19919));
  }

  @Test
  void aTimestampNsLiteralKeepsItsNanoseconds() {
    // a long would be read as microseconds: the ISO text keeps every digit
    assertThat(boundValue(parse(comparison("gt-eq", 8, "'2024-07-15T13:45:30.123456789'"))))
        .isEqualTo(1_721_051_130_123_456_789L);
  }

  @Test
  void aTimestampLiteralBindsToMicrosecondsAndATimestamptzOneHonoursItsOffset() {
    assertThat(boundValue(parse(comparison("lt", 6, "'2024-07-15T13:45:30.123456'"))))
        .isEqualTo(1_721_051_130_123_456L);
    assertThat(boundValue(parse(comparison("lt", 7, "'2024-07-15T13:45:30+00:00'"))))
        .isEqualTo(1_721_051_130_000_000L);
    assertThat(boundValue(parse(comparison("lt", 7, "'2024-07-15T15:45:30+02:00'"))))
        .isEqualTo(1_721_051_130_000_000L);
  }

  @Test
  void aDecimalLiteralBindsToThatDecimal() {
    assertThat(boundValue(parse(comparison("lt", 9, "'12.34'")))).isEqualTo(new BigDecimal("12.34"));
    assertThat(boundValue(parse(comparison("lt", 9, "12.34")))).isEqualTo(new BigDecimal("12.34"));
    assertThat(refused(comparison("lt", 9, "'twelve'")).fieldId()).isEqualTo(9);
  }

  @Test
  void aUuidLiteralBindsToThatUuid() {
    assertThat(boundValue(parse(comparison("eq", 10, "'f79c3e09-677c-4bbd-a479-3f349cb785e7'"))))
        .isEqualTo(UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
    // UUID.fromString takes '1-1-1-1-1': the spec's single-value form is the canonical 36 characters
    assertThat(refused(comparison("eq", 10, "'1-1-1-1-1'")).fieldId()).isEqualTo(10);
  }

  @Test
  void aBinaryLiteralIsHex() {
    assertThat(boundValue(parse(comparison("eq", 11, "'0aFF10'"))))
        .isEqualTo(ByteBuffer.wrap(new byte[] { 0x0a, (byte) 0xff, 0x10 }));
    assertThat(boundValue(parse(comparison("eq", 15, "'0a0b0c'"))))
        .isEqualTo(ByteBuffer.wrap(new byte[] { 0x0a, 0x0b, 0x0c }));
    assertThat(refused(comparison("eq", 11, "'0aF'")).fieldId()).isEqualTo(11);
    assertThat(refused(comparison("eq", 11, "'zz'")).fieldId()).isEqualTo(11);
    // a fixed[3] takes three bytes, no fewer
    assertThat(refused(comparison("eq", 15, "'0a0b'")).fieldId()).isEqualTo(15);
  }

  @Test
  void aLongTooLargeForAnIntIsKeptWholeAgainstAnIntColumn() {
    // the int column is promoted to compare with it, as the spec aligns types: never narrowed (3_000_000_000 as an
    // int is negative), so every int is below it, and a null is not
    for (String literal : List.of("3000000000", "{'type':'literal','value':3000000000,'data-type':'long'}")) {
      Expression parsed = parse(comparison("lt", 2, literal));
      assertThat(((UnboundPredicate<?>) parsed).literal().value()).as(literal).isEqualTo(3_000_000_000L);
      var check = SpecPredicates.compile(SpecPredicates.normalize(parsed, STRUCT, true), STRUCT);
      assertThat(check.test(row("count", Integer.MAX_VALUE))).as(literal).isTrue();
      assertThat(check.test(row("count", null))).as(literal).isFalse();
    }
    Expression below = parse(comparison("gt", 2, "-3000000000"));
    assertThat(((UnboundPredicate<?>) below).literal().value()).isEqualTo(-3_000_000_000L);
    var check = SpecPredicates.compile(SpecPredicates.normalize(below, STRUCT, true), STRUCT);
    assertThat(check.test(row("count", Integer.MIN_VALUE))).isTrue();
    assertThat(check.test(row("count", null))).isFalse();
    // within an int's range, an int
    assertThat(((UnboundPredicate<?>) parse(comparison("lt", 2, "3"))).literal().value()).isEqualTo(3);
  }

  @Test
  void aNumberBeyondALongsRangeIsRefusedWithoutQuotingIt() {
    for (int id : List.of(1, 2)) {
      InvalidExpressionException refused = refused(comparison("lt", id, "9223372036854775808"));
      assertThat(refused.fieldId()).isEqualTo(id);
      assertThat(refused.getMessage()).contains(PATH + ".right").doesNotContain("9223372036854775808");
    }
  }

  @Test
  void aLiteralTheColumnsTypeCannotTakeIsRefusedNamingTheField() {
    assertThat(refused(comparison("eq", 1, "'3'")).fieldId()).isEqualTo(1);
    assertThat(refused(comparison("eq", 5, "'1.2.3'")).fieldId()).isEqualTo(5);
    assertThat(refused(comparison("eq", 2, "3.5")).fieldId()).isEqualTo(2);
    assertThat(refused(comparison("eq", 16, "'true'")).fieldId()).isEqualTo(16);
    assertThat(refused(comparison("eq", 4, "3")).fieldId()).isEqualTo(4);
    assertThat(refused(comparison("eq", 3, "'1.5'")).fieldId()).isEqualTo(3);
    // a timestamptz needs its offset, and a timestamp has none
    assertThat(refused(comparison("eq", 7, "'2024-07-15T13:45:30'")).fieldId()).isEqualTo(7);
    assertThat(refused(comparison("eq", 6, "'2024-07-15T13:45:30+00:00'")).fieldId()).isEqualTo(6);
    // a timestamp is its ISO text, never a number of some unit
    assertThat(refused(comparison("eq", 8, "1721051130123456")).fieldId()).isEqualTo(8);
    assertThat(refused(comparison("eq", 6, "1721051130123456")).fieldId()).isEqualTo(6);
    assertThat(refused(comparison("eq", 5, "19919")).fieldId()).isEqualTo(5);
    // by name as by id, and in the legacy form
    assertThat(refused("{'type':'eq','left':{'type':'reference','name':'day'},'right':'1.2.3'}").fieldId())
        .isEqualTo(5);
    assertThat(refused("{'type':'eq','term':'day','value':'1.2.3'}").fieldId()).isEqualTo(5);
    // and in a set
    assertThat(refused("{'type':'in','child':{'type':'reference','id':5},'values':['2024-07-15','1.2.3']}")
        .getMessage()).contains(PATH + ".values[1]");
  }

  @Test
  void withoutASchemaValuesAreTypedAsIcebergsParserTypesThemAndConvertedWhenBound() {
    Expression day = parseWithoutSchema("{'type':'eq','left':{'type':'reference','name':'day'},'right':'2024-07-15'}");
    assertThat(((UnboundPredicate<?>) day).literal().value()).isEqualTo("2024-07-15");
    assertThat(boundValue(day)).isEqualTo(19919);

    Expression count = parseWithoutSchema("{'type':'lt','term':'count','value':3}");
    assertThat(((UnboundPredicate<?>) count).literal().value()).isEqualTo(3L);
    assertThat(boundValue(count)).isEqualTo(3);

    Expression flag = parseWithoutSchema("{'type':'eq','left':{'type':'reference','name':'flag'},'right':true}");
    assertThat(((UnboundPredicate<?>) flag).literal().value()).isEqualTo(true);
  }

  // ---- references

  @Test
  void fieldIdsOnlyRefuseANameAndTheLegacyTerm() {
    assertThat(ExpressionJson.parse(json("{'type':'eq','left':{'type':'reference','id':1},'right':3}"), SCHEMA,
        References.IDS, PATH).op()).isEqualTo(Expression.Operation.EQ);
    for (String byName : List.of("{'type':'eq','left':{'type':'reference','name':'id'},'right':3}",
        "{'type':'eq','term':'id','value':3}", "{'type':'eq','term':{'type':'reference','term':'id'},'value':3}",
        "{'type':'eq','left':{'type':'reference','term':'id'},'right':3}",
        "{'type':'eq','term':{'type':'transform','transform':'bucket[16]','term':'id'},'value':3}")) {
      Throwable thrown = catchThrowable(() -> ExpressionJson.parse(json(byName), SCHEMA, References.IDS, PATH));
      assertThat(thrown).as(byName).isInstanceOf(InvalidExpressionException.class);
      assertThat(thrown.getMessage()).as(byName).contains("field ids");
    }
  }

  @Test
  void namesOnlyRefuseAnId() {
    Throwable thrown = catchThrowable(() -> ExpressionJson.parse(
        json("{'type':'eq','left':{'type':'reference','id':1},'right':3}"), SCHEMA, References.NAMES, PATH));
    assertThat(thrown).isInstanceOf(InvalidExpressionException.class);
    assertThat(((InvalidExpressionException) thrown).fieldId()).isEqualTo(1);
    assertThat(ExpressionJson.parse(json("{'type':'eq','left':{'type':'reference','name':'id'},'right':3}"),
        SCHEMA, References.NAMES, PATH).op()).isEqualTo(Expression.Operation.EQ);
  }

  @Test
  void idsNeedASchema() {
    assertThatThrownBy(() -> ExpressionJson.parse(json("true"), null, References.IDS, PATH))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void anIdTheSchemaLacksIsRefusedNamingThatId() {
    InvalidExpressionException refused = refused("{'type':'is-null','child':{'type':'reference','id':99}}");
    assertThat(refused.fieldId()).isEqualTo(99);
    assertThat(refused.getMessage()).contains("99").contains(PATH + ".child");
  }

  @Test
  void anIdOfANestedFieldResolvesToItsFullName() {
    Expression parsed = parse("{'type':'eq','left':{'type':'reference','id':14},'right':12345}");
    assertThat(((UnboundPredicate<?>) parsed).ref().name()).isEqualTo("address.zip");
    BoundPredicate<?> bound = (BoundPredicate<?>) Binder.bind(STRUCT, parsed, true);
    assertThat(bound.ref().fieldId()).isEqualTo(14);
    assertThat(bound.asLiteralPredicate().literal().value()).isEqualTo(12345);
    // and the nested field's type types the literal
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':13},'right':12345}").fieldId()).isEqualTo(13);
  }

  // ---- strictness

  @Test
  void anUnknownExpressionTypeIsRefused() {
    assertThat(refused("{'type':'xor','left':true,'right':false}").getMessage()).contains(PATH + ".type");
    assertThat(refused("{'left':true,'right':false}").getMessage()).contains("type");
    // a value expression is not a predicate
    assertThat(refused("{'type':'reference','id':16}").getMessage()).contains(PATH + ".type");
    assertThat(refused("{'type':'not','child':{'type':'literal','value':true}}").getMessage())
        .contains(PATH + ".child.type");
    assertThat(refused("3").getMessage()).contains(PATH);
    assertThat(refused("'id'").getMessage()).contains(PATH);
    assertThat(refused("null").getMessage()).contains(PATH);
    assertThat(refused("[true]").getMessage()).contains(PATH);
  }

  @Test
  void anUnknownMemberIsRefusedWhereverItIs() {
    List<String> withExtra = List.of(
        "{'type':'lt','left':{'type':'reference','id':1},'right':3,'extra':1}",
        "{'type':'and','left':true,'right':true,'extra':1}",
        "{'type':'or','left':true,'right':true,'extra':1}",
        "{'type':'not','child':true,'extra':1}",
        "{'type':'true','extra':1}",
        "{'type':'is-null','child':{'type':'reference','id':2},'extra':1}",
        "{'type':'in','child':{'type':'reference','id':1},'values':[1],'extra':1}",
        "{'type':'lt','left':{'type':'reference','id':1,'extra':1},'right':3}",
        "{'type':'lt','left':{'type':'reference','name':'id','extra':1},'right':3}",
        "{'type':'lt','left':{'type':'reference','id':1,'name':'id'},'right':3}",
        "{'type':'lt','left':{'type':'reference','id':1},'right':{'type':'literal','value':3,'extra':1}}",
        "{'type':'in','child':{'type':'reference','id':1},"
            + "'values':{'type':'literals','values':[1],'data-type':'long','extra':1}}",
        "{'type':'eq','left':{'type':'apply','function':'identity','arguments':[{'type':'reference','id':1}],"
            + "'extra':1},'right':3}",
        "{'type':'eq','left':{'type':'apply','function':{'identifier':['identity'],'extra':1},"
            + "'arguments':[{'type':'reference','id':1}]},'right':3}",
        "{'type':'lt','term':'id','value':3,'extra':1}",
        "{'type':'lt','term':{'type':'reference','term':'id','extra':1},'value':3}",
        "{'type':'eq','term':{'type':'transform','transform':'bucket[16]','term':'id','extra':1},'value':3}");
    for (String json : withExtra) {
      assertThat(refused(json).getMessage()).as(json).contains("unknown member");
    }
  }

  @Test
  void aComparisonOfTwoReferencesIsRefused() {
    assertThat(refused("{'type':'eq','left':{'type':'reference','id':1},'right':{'type':'reference','id':2}}")
        .getMessage()).contains("two columns");
    assertThat(refused("{'type':'lt','left':{'type':'reference','id':1},'right':{'type':'apply','function':"
        + "'identity','arguments':[{'type':'reference','id':2}]}}").getMessage()).contains("two columns");
  }

  @Test
  void aComparisonOfTwoLiteralsIsRefused() {
    assertThat(refused("{'type':'eq','left':1,'right':1}").getMessage()).contains("two constants");
    assertThat(refused("{'type':'lt','left':{'type':'literal','value':1},'right':2}").getMessage())
        .contains("two constants");
  }

  @Test
  void aNullLiteralIsRefused() {
    assertThat(refused(comparison("eq", 2, "null")).getMessage()).contains(PATH + ".right").contains("is-null");
    assertThat(refused(comparison("not-eq", 2, "{'type':'literal','value':null}")).getMessage())
        .contains(PATH + ".right");
    assertThat(refused("{'type':'in','child':{'type':'reference','id':2},'values':[1,null]}").getMessage())
        .contains(PATH + ".values[1]");
    assertThat(refused("{'type':'in','child':{'type':'reference','id':2},"
        + "'values':{'type':'literals','values':[null],'data-type':'int'}}").getMessage())
        .contains(PATH + ".values.values[0]");
    assertThat(refused("{'type':'eq','term':'count','value':null}").getMessage()).contains(PATH + ".value");
  }

  @Test
  void anObjectOrAnArrayAsAValueIsRefused() {
    assertThat(refused(comparison("eq", 2, "{'type':'literal','value':{'a':1}}")).getMessage()).contains("object");
    assertThat(refused(comparison("eq", 2, "{'type':'literal','value':[1]}")).getMessage()).contains("array");
    assertThat(refused(comparison("eq", 2, "[1]")).getMessage()).contains("array");
    assertThat(refused("{'type':'in','child':{'type':'reference','id':2},'values':[[1]]}").getMessage())
        .contains("array");
    assertThat(refused("{'type':'eq','term':'count','value':{'a':1}}").getMessage()).contains(PATH + ".value");
  }

  @Test
  void anUnknownFunctionOrOneOfAnotherCatalogIsRefused() {
    for (String function : List.of("'upper'", "'void'", "'if_else'", "['iceberg','bucket']", "[]", "3",
        "{'identifier':[]}", "{'catalog':'iceberg_functions'}")) {
      assertThat(refused(applied(function, "16,{'type':'reference','id':1}", "3")).getMessage()).as(function)
          .contains(PATH + ".left.function");
    }
    for (String catalog : List.of("'sql_functions'", "'spark_builtin_functions'", "3")) {
      assertThat(refused(applied("{'catalog':" + catalog + ",'identifier':['bucket']}",
          "16,{'type':'reference','id':1}", "3")).getMessage()).as(catalog).contains(PATH + ".left.function.catalog");
    }
  }

  @Test
  void bucketAndTruncateNeedAPositiveIntParameterFirst() {
    for (String arguments : List.of("{'type':'reference','id':1}", "0,{'type':'reference','id':1}",
        "-1,{'type':'reference','id':1}", "16.5,{'type':'reference','id':1}", "'16',{'type':'reference','id':1}",
        "2147483648,{'type':'reference','id':1}", "{'type':'literal','value':0},{'type':'reference','id':1}",
        "{'type':'reference','id':1},16", "16,{'type':'reference','id':1},1")) {
      assertThat(refused(applied("'bucket'", arguments, "3")).getMessage()).as(arguments)
          .contains(PATH + ".left.arguments");
    }
    assertThat(refused(applied("'truncate'", "0,{'type':'reference','id':4}", "'a'")).getMessage())
        .contains(PATH + ".left.arguments[0]");
    assertThat(refused(applied("'year'", "1,{'type':'reference','id':5}", "54")).getMessage())
        .contains(PATH + ".left.arguments");
    assertThat(refused("{'type':'eq','left':{'type':'apply','function':'identity','arguments':3},'right':3}")
        .getMessage()).contains(PATH + ".left.arguments");
  }

  @Test
  void aTransformOfATransformOrOfAConstantIsRefused() {
    assertThat(refused(applied("'bucket'", "16,{'type':'apply','function':'identity','arguments':"
        + "[{'type':'reference','id':1}]}", "3")).getMessage()).contains(PATH + ".left.arguments[1]");
    assertThat(refused(applied("'year'", "'2024-07-15'", "54")).getMessage())
        .contains(PATH + ".left.arguments[0]");
  }

  @Test
  void aTransformThatDoesNotApplyToTheColumnsTypeIsRefusedNamingTheField() {
    assertThat(refused(applied("'hour'", "{'type':'reference','id':5}", "1")).fieldId()).isEqualTo(5);
    assertThat(refused(applied("'bucket'", "16,{'type':'reference','id':3}", "1")).fieldId()).isEqualTo(3);
    assertThat(refused(applied("'truncate'", "4,{'type':'reference','id':5}", "'2024-07-15'")).fieldId())
        .isEqualTo(5);
  }

  @Test
  void textThatIsNotWellFormedJsonIsRefusedByTree() {
    for (String text : List.of("{\"type\":", "{\"type\":\"true\"} {}", "{'type':'true'}", "",
        "{\"type\":\"true\",\"type\":\"false\"}")) {
      Throwable thrown = catchThrowable(() -> ExpressionJson.parse(ExpressionJson.tree(text), SCHEMA,
          References.ANY, PATH));
      assertThat(thrown).as(text).isInstanceOf(InvalidExpressionException.class);
    }
    // duplicate members: one object, one meaning, refused by tree() itself
    assertThatThrownBy(() -> ExpressionJson.tree("{\"type\":\"lt\",\"left\":{\"type\":\"reference\",\"id\":1},"
        + "\"right\":3,\"right\":4}")).isInstanceOf(InvalidExpressionException.class)
        .hasMessageContaining("not well-formed JSON");
  }

  @Test
  void mixedFormsAreRefused() {
    for (String json : List.of("{'type':'lt','term':'id','left':{'type':'reference','id':1},'right':3}",
        "{'type':'lt','term':'id','value':3,'right':3}",
        "{'type':'lt','left':{'type':'reference','id':1},'value':3}",
        "{'type':'is-null','term':'count','child':{'type':'reference','id':2}}",
        "{'type':'in','term':'id','child':{'type':'reference','id':1},'values':[1]}")) {
      assertThat(refused(json).getMessage()).as(json).contains("unknown member");
    }
  }

  @Test
  void messagesNameThePathAndTheFieldButNeverTheValue() {
    List<String> holdingTheSecret = List.of(comparison("eq", 1, "'" + SECRET + "'"),
        comparison("lt", 5, "'" + SECRET + "'"),
        comparison("eq", 1, "{'type':'literal','value':'" + SECRET + "','data-type':'long'}"),
        "{'type':'eq','term':'id','value':'" + SECRET + "'}",
        "{'type':'and','left':true,'right':" + comparison("eq", 10, "'" + SECRET + "'") + "}");
    List<String> paths = List.of(PATH + ".right", PATH + ".right", PATH + ".right", PATH + ".value",
        PATH + ".right.right");
    List<Integer> fieldIds = List.of(1, 5, 1, 1, 10);
    for (int i = 0; i < holdingTheSecret.size(); i++) {
      InvalidExpressionException refused = refused(holdingTheSecret.get(i));
      assertThat(refused.getMessage()).as(holdingTheSecret.get(i)).contains(paths.get(i)).doesNotContain(SECRET);
      assertThat(refused.fieldId()).as(holdingTheSecret.get(i)).isEqualTo(fieldIds.get(i));
    }
    InvalidExpressionException inSet = refused("{'type':'in','child':{'type':'reference','id':10},"
        + "'values':['f79c3e09-677c-4bbd-a479-3f349cb785e7','" + SECRET + "']}");
    assertThat(inSet.getMessage()).contains(PATH + ".values[1]").doesNotContain(SECRET);
    assertThat(inSet.fieldId()).isEqualTo(10);
    // the JSON parser's own message quotes the text it stopped at: tree() says only where
    Throwable malformed = catchThrowable(() -> ExpressionJson.tree("{\"right\": " + SECRET + "}"));
    assertThat(malformed).isInstanceOf(InvalidExpressionException.class);
    assertThat(malformed.getMessage()).contains("line 1").doesNotContain(SECRET).doesNotContain("alice");
    assertThat(malformed.getCause()).isNull();
  }

  // ---- defects

  @Test
  void aTransformParameterIsALiteralWithoutUnknownMembers() {
    assertThat(refused(applied("'bucket'", "{'type':'literal','value':16,'extra':1},{'type':'reference','id':1}",
        "3")).getMessage()).contains("unknown member");
    assertThat(refused(applied("'bucket'", "{'type':'reference','value':16},{'type':'reference','id':1}", "3"))
        .getMessage()).contains(PATH + ".left.arguments[0]");
  }

  @Test
  void theValuesOfALiteralsObjectAreBareValues() {
    assertThat(refused("{'type':'in','child':{'type':'reference','id':1},"
        + "'values':{'type':'literals','values':[{'value':5,'extra':1}],'data-type':'long'}}").getMessage())
        .contains(PATH + ".values.values[0]");
  }

  @Test
  void aLegacyTransformIcebergCannotApplyIsRefused() {
    for (String transform : List.of("bucket", "bucket[-1]", "truncate[x]")) {
      assertThat(refused("{'type':'eq','term':{'type':'transform','transform':'" + transform + "','term':'name'},"
          + "'value':'a'}").getMessage()).as(transform).contains(PATH + ".term");
    }
  }

  @Test
  void aNumberBeyondTheDoubleRangeIsRefusedWithoutQuotingIt() {
    Throwable thrown = catchThrowable(() -> parse(comparison("lt", 3, "1e400")));
    assertThat(thrown).isInstanceOf(InvalidExpressionException.class);
    assertThat(((InvalidExpressionException) thrown).fieldId()).isEqualTo(3);
    assertThat(thrown.getMessage()).doesNotContain("400");
  }

  @Test
  void aTimestampLiteralFinerThanTheColumnIsRefused() {
    // truncated to ...30.123456, 'at >= ...30.1234567' would hold for a row at ...30.123456, which the spec excludes
    assertThat(refused(comparison("gt-eq", 6, "'2024-07-15T13:45:30.1234567'")).fieldId()).isEqualTo(6);
    assertThat(refused(comparison("gt-eq", 7, "'2024-07-15T13:45:30.123456789+00:00'")).fieldId()).isEqualTo(7);
  }

  @Test
  void aLongDataTypeLiteralIsRefusedAgainstATimestampNsColumn() {
    // accepted, and bound as 1_721_051_130_123_456_000 ns: a thousand times the value, as Iceberg reads a long
    assertThat(refused(comparison("gt-eq", 8, "{'type':'literal','value':1721051130123456,'data-type':'long'}"))
        .fieldId()).isEqualTo(8);
    assertThat(refused(comparison("gt-eq", 8,
        "{'type':'literal','value':1721051130123456789,'data-type':'long'}")).fieldId()).isEqualTo(8);
  }

  @Test
  void aDecimalLiteralOfAnotherScaleIsRefused() {
    assertThat(refused(comparison("lt", 9, "'12.345'")).fieldId()).isEqualTo(9);
    assertThat(refused(comparison("lt", 9, "'12.3'")).fieldId()).isEqualTo(9);
  }

  @Test
  void aNullLiteralIsRefusedNamingTheFieldItIsComparedWith() {
    assertThat(refused(comparison("eq", 2, "null")).fieldId()).isEqualTo(2);
    assertThat(refused(comparison("eq", 2, "{'type':'literal','value':{'a':1}}")).fieldId()).isEqualTo(2);
  }

  @Test
  void aTestTheColumnsTypeDoesNotAllowIsRefused() {
    assertThat(refused(comparison("starts-with", 1, "3")).fieldId()).isEqualTo(1);
    assertThat(refused(comparison("starts-with", 10, "'f79c3e09-677c-4bbd-a479-3f349cb785e7'")).fieldId())
        .isEqualTo(10);
    assertThat(refused("{'type':'is-nan','child':{'type':'reference','id':1}}").fieldId()).isEqualTo(1);
  }

  @Test
  void aFractionalValueWithoutASchemaIsADoubleAsIcebergsParserTypesIt() {
    Expression score = parseWithoutSchema("{'type':'lt','left':{'type':'reference','name':'score'},'right':1.5}");
    // Iceberg 1.12 converts no decimal literal to a double: binding fails, quoting the value
    assertThat(boundValue(score)).isEqualTo(1.5d);
    assertThat(((UnboundPredicate<?>) score).literal().value()).isEqualTo(1.5d);
  }

  // ---- helpers

  /** JSON written with single quotes, for legibility. */
  private static JsonNode json(String singleQuoted) {
    return ExpressionJson.tree(singleQuoted.replace('\'', '"'));
  }

  private static Expression parse(String singleQuoted) {
    return ExpressionJson.parse(json(singleQuoted), SCHEMA, References.ANY, PATH);
  }

  private static Expression parseWithoutSchema(String singleQuoted) {
    return ExpressionJson.parse(json(singleQuoted), null, References.NAMES, PATH);
  }

  private static InvalidExpressionException refused(String singleQuoted) {
    Throwable thrown = catchThrowable(() -> parse(singleQuoted));
    assertThat(thrown).as(singleQuoted).isInstanceOf(InvalidExpressionException.class);
    return (InvalidExpressionException) thrown;
  }

  private static String comparison(String type, int id, String right) {
    return "{'type':'" + type + "','left':{'type':'reference','id':" + id + "},'right':" + right + "}";
  }

  private static String turnedAround(String type, int id, String left) {
    return "{'type':'" + type + "','left':" + left + ",'right':{'type':'reference','id':" + id + "}}";
  }

  private static String applied(String function, String arguments, String right) {
    return "{'type':'eq','left':{'type':'apply','function':" + function + ",'arguments':[" + arguments + "]},"
        + "'right':" + right + "}";
  }

  private static void assertParsesAs(String singleQuoted, Expression expected) {
    assertEquivalent(parse(singleQuoted), expected);
  }

  private static void assertEquivalent(Expression actual, Expression expected) {
    assertThat(ExpressionUtil.equivalent(expected, actual, STRUCT, true)).as("%s, expected %s", actual, expected)
        .isTrue();
  }

  /** The literal (or the sorted literals) of a predicate once bound to the schema: the typed value. */
  private static Object boundValue(Expression unbound) {
    BoundPredicate<?> bound = (BoundPredicate<?>) Binder.bind(STRUCT, unbound, true);
    if (bound.isSetPredicate()) {
      return bound.asSetPredicate().literalSet().stream().map(value -> (Integer) value).sorted().toList();
    }
    return bound.asLiteralPredicate().literal().value();
  }

  private static InternalRecordWrapper row(String field, Object value) {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField(field, value);
    return new InternalRecordWrapper(STRUCT).wrap(record);
  }
}
