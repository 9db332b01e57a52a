package io.icebergscan.planning.test;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.RestException;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundLiteralPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * {@link RowFilter}'s JSON read by Apache Iceberg's own {@link ExpressionParser} (what its REST server
 * runs on a plan request's {@code filter}) means what the same filter built with Iceberg's
 * {@link Expressions} means: once bound to a schema, which is where Iceberg converts a value to its
 * column's type (an ISO date string to a {@code date}, a hex string to {@code binary} …). And on Iceberg's
 * server, a {@code RowFilter} prunes the same files as the Iceberg expression.
 */
class RowFilterCompatibilityTests {

  /** A column of every primitive type a filter value can be for, and a nested one. */
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "i", Types.IntegerType.get()),
      Types.NestedField.optional(3, "f", Types.FloatType.get()),
      Types.NestedField.optional(4, "d", Types.DoubleType.get()),
      Types.NestedField.optional(5, "dec", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(6, "s", Types.StringType.get()),
      Types.NestedField.optional(7, "b", Types.BooleanType.get()),
      Types.NestedField.optional(8, "day", Types.DateType.get()),
      Types.NestedField.optional(9, "t", Types.TimeType.get()),
      Types.NestedField.optional(10, "ts", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(11, "tstz", Types.TimestampType.withZone()),
      Types.NestedField.optional(12, "u", Types.UUIDType.get()),
      Types.NestedField.optional(13, "bin", Types.BinaryType.get()),
      Types.NestedField.optional(14, "fix", Types.FixedType.ofLength(4)),
      Types.NestedField.optional(15, "ts_ns", Types.TimestampNanoType.withoutZone()),
      Types.NestedField.optional(16, "tstz_ns", Types.TimestampNanoType.withZone()),
      Types.NestedField.optional(17, "address", Types.StructType.of(
          Types.NestedField.optional(18, "city", Types.StringType.get()))));

  private static final Types.StructType STRUCT = SCHEMA.asStruct();

  private static final LocalDate DAY = LocalDate.of(2026, 11, 4);
  private static final LocalDateTime NOON = DAY.atTime(12, 0);
  private static final UUID ID = UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7");

  private static final EmbeddedIcebergCatalog CATALOG = EmbeddedIcebergCatalog.create();
  private static final AtomicInteger TABLES = new AtomicInteger();

  @BeforeAll
  static void start() {
    CATALOG.start();
  }

  @AfterAll
  static void stop() {
    CATALOG.close();
  }

  /**
   * Each operator, and each value type on the column type it is for, next to the Iceberg expression it
   * should mean. The Iceberg side gives dates, times and timestamps as numbers (days, microseconds since
   * the epoch), so that the strings {@code RowFilter} writes are checked, not compared with themselves.
   */
  static Stream<Arguments> filters() {
    return Stream.of(
        arguments(RowFilter.equal("id", 5), Expressions.equal("id", 5L)),
        arguments(RowFilter.notEqual("id", 5L), Expressions.notEqual("id", 5L)),
        arguments(RowFilter.lessThan("i", 7), Expressions.lessThan("i", 7)),
        arguments(RowFilter.lessThanOrEqual("i", -7), Expressions.lessThanOrEqual("i", -7)),
        arguments(RowFilter.greaterThan("id", 7_000_000_000L), Expressions.greaterThan("id", 7_000_000_000L)),
        arguments(RowFilter.greaterThanOrEqual("id", 0), Expressions.greaterThanOrEqual("id", 0L)),
        arguments(RowFilter.equal("f", 0.1f), Expressions.equal("f", 0.1f)),
        arguments(RowFilter.lessThan("f", 3.4e38f), Expressions.lessThan("f", 3.4e38f)),
        arguments(RowFilter.greaterThan("d", 2.5e-12), Expressions.greaterThan("d", 2.5e-12)),
        arguments(RowFilter.lessThan("d", -0.0), Expressions.lessThan("d", -0.0)),
        arguments(RowFilter.equal("dec", new BigDecimal("12.50")), Expressions.equal("dec", new BigDecimal("12.50"))),
        arguments(RowFilter.greaterThan("dec", new BigDecimal("-99999999.99")),
            Expressions.greaterThan("dec", new BigDecimal("-99999999.99"))),
        arguments(RowFilter.equal("s", "a \"quoted\" \\ line\nand \u00e9\u0001"),
            Expressions.equal("s", "a \"quoted\" \\ line\nand \u00e9\u0001")),
        arguments(RowFilter.equal("b", true), Expressions.equal("b", true)),
        arguments(RowFilter.notEqual("b", false), Expressions.notEqual("b", false)),
        arguments(RowFilter.equal("day", DAY), Expressions.equal("day", (int) DAY.toEpochDay())),
        arguments(RowFilter.lessThan("day", LocalDate.of(1969, 12, 31)), Expressions.lessThan("day", -1)),
        arguments(RowFilter.equal("t", LocalTime.of(10, 15, 30, 123_456_000)),
            Expressions.equal("t", (10 * 3600 + 15 * 60 + 30) * 1_000_000L + 123_456)),
        arguments(RowFilter.greaterThan("t", LocalTime.MIDNIGHT), Expressions.greaterThan("t", 0L)),
        arguments(RowFilter.equal("ts", NOON), Expressions.equal("ts", micros(NOON.toInstant(ZoneOffset.UTC)))),
        arguments(RowFilter.equal("tstz", NOON.atOffset(ZoneOffset.ofHours(2))),
            Expressions.equal("tstz", micros(NOON.toInstant(ZoneOffset.ofHours(2))))),
        arguments(RowFilter.lessThan("tstz", Instant.parse("2026-11-04T10:00:00.000001Z")),
            Expressions.lessThan("tstz", micros(Instant.parse("2026-11-04T10:00:00.000001Z")))),
        arguments(RowFilter.equal("u", ID), Expressions.equal("u", ID)),
        arguments(RowFilter.equal("bin", new byte[] { 0, (byte) 0xca, (byte) 0xfe }),
            Expressions.equal("bin", ByteBuffer.wrap(new byte[] { 0, (byte) 0xca, (byte) 0xfe }))),
        arguments(RowFilter.equal("fix", new byte[] { 1, 2, 3, 4 }),
            Expressions.equal("fix", new byte[] { 1, 2, 3, 4 })),
        arguments(RowFilter.startsWith("s", "ab"), Expressions.startsWith("s", "ab")),
        arguments(RowFilter.notStartsWith("s", "ab"), Expressions.notStartsWith("s", "ab")),
        arguments(RowFilter.equal("address.city", "Oslo"), Expressions.equal("address.city", "Oslo")),
        arguments(RowFilter.in("id", 3, 1, 2), Expressions.in("id", 3L, 1L, 2L)),
        arguments(RowFilter.notIn("s", List.of("a", "b")), Expressions.notIn("s", "a", "b")),
        arguments(RowFilter.in("day", DAY, DAY.plusDays(1)),
            Expressions.in("day", (int) DAY.toEpochDay(), (int) DAY.toEpochDay() + 1)),
        arguments(RowFilter.in("u", ID), Expressions.in("u", ID)),
        arguments(RowFilter.isNull("s"), Expressions.isNull("s")),
        arguments(RowFilter.notNull("s"), Expressions.notNull("s")),
        arguments(RowFilter.isNaN("d"), Expressions.isNaN("d")),
        arguments(RowFilter.notNaN("f"), Expressions.notNaN("f")),
        arguments(RowFilter.alwaysTrue(), Expressions.alwaysTrue()),
        arguments(RowFilter.alwaysFalse(), Expressions.alwaysFalse()),
        arguments(RowFilter.and(RowFilter.equal("id", 1), RowFilter.isNull("s")),
            Expressions.and(Expressions.equal("id", 1L), Expressions.isNull("s"))),
        arguments(RowFilter.or(RowFilter.equal("id", 1), RowFilter.equal("id", 2), RowFilter.equal("id", 3)),
            Expressions.or(Expressions.or(Expressions.equal("id", 1L), Expressions.equal("id", 2L)),
                Expressions.equal("id", 3L))),
        // four operands: a balanced tree, where Iceberg's and(a, b, c, d) nests to the left
        arguments(RowFilter.and(RowFilter.notNull("s"), RowFilter.equal("b", true), RowFilter.lessThan("i", 3),
            RowFilter.startsWith("s", "x")),
            Expressions.and(Expressions.and(Expressions.notNull("s"), Expressions.equal("b", true)),
                Expressions.and(Expressions.lessThan("i", 3), Expressions.startsWith("s", "x")))),
        arguments(RowFilter.not(RowFilter.or(RowFilter.isNull("s"), RowFilter.equal("day", DAY))),
            Expressions.not(
                Expressions.or(Expressions.isNull("s"), Expressions.equal("day", (int) DAY.toEpochDay())))));
  }

  /**
   * As Iceberg's server reads a plan request's filter (without the schema, values converted when bound),
   * and as its schema-aware parser does (values converted by the column's type while parsing): both bind
   * to the expression Iceberg builds.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("filters")
  void icebergsParserReadsTheSameExpression(RowFilter filter, Expression iceberg) {
    String json = filter.toJson();
    Expression asTheServerReadsIt = ExpressionParser.fromJson(json);
    Expression byTheSchema = ExpressionParser.fromJson(json, SCHEMA);

    assertSameWhenBound(asTheServerReadsIt, iceberg);
    assertSameWhenBound(byTheSchema, iceberg);
  }

  /** A {@code timestamp_ns} keeps its nanoseconds; Iceberg's expressions take no nanosecond number to compare. */
  @Test
  void nanosecondTimestampsKeepTheirNanoseconds() {
    LocalDateTime local = NOON.plusNanos(123_456_789);
    OffsetDateTime zoned = local.atOffset(ZoneOffset.ofHours(-5));

    assertThat(boundValue(RowFilter.equal("ts_ns", local)))
        .isEqualTo(ChronoUnit.NANOS.between(Instant.EPOCH, local.toInstant(ZoneOffset.UTC)));
    assertThat(boundValue(RowFilter.equal("tstz_ns", zoned)))
        .isEqualTo(ChronoUnit.NANOS.between(Instant.EPOCH, zoned.toInstant()));
  }

  /** Iceberg writes a filter it parsed from ours back as the same JSON: nothing was lost or reinterpreted. */
  @Test
  void icebergWritesOurJsonBackUnchanged() {
    RowFilter filter = RowFilter.and(RowFilter.greaterThan("id", 100), RowFilter.in("s", "a", "b"),
        RowFilter.not(RowFilter.startsWith("s", "x")), RowFilter.or(RowFilter.isNull("d"), RowFilter.notNaN("d")));

    assertThat(ExpressionParser.toJson(ExpressionParser.fromJson(filter.toJson()))).isEqualTo(filter.toJson());
  }

  /** On Iceberg's server, through the planner: the same files as the Iceberg expression, pruned the same way. */
  @Test
  void prunesTheSameFilesAsTheIcebergExpression() {
    CATALOG.tasksPerPlanTask(1);
    // Day 1: f0 (ids 0..99), f1 (0..100), f2 (0..101); day 2: a and b, without column bounds.
    EmbeddedTable table = Tables.withEveryKindOfDelete(CATALOG, newTable("pruned"));
    Map<RowFilter, Expression> filters = Map.of(
        RowFilter.and(RowFilter.equal("day", "1"), RowFilter.greaterThan("id", 100)),
        Expressions.and(Expressions.equal("day", "1"), Expressions.greaterThan("id", 100L)),
        RowFilter.or(RowFilter.in("day", "2", "3"), RowFilter.greaterThanOrEqual("id", 101)),
        Expressions.or(Expressions.in("day", "2", "3"), Expressions.greaterThanOrEqual("id", 101L)),
        RowFilter.not(RowFilter.startsWith("day", "2")), Expressions.not(Expressions.startsWith("day", "2")));

    for (Map.Entry<RowFilter, Expression> entry : filters.entrySet()) {
      ScanPlan plan = plan(table.identifier(), ScanRequest.builder().filter(entry.getKey()).build());
      assertThat(Tables.views(plan.tasks())).as("%s", entry.getKey())
          .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan.filter(entry.getValue())))
          .containsExactlyInAnyOrderElementsOf(
              Tables.plannedByIcebergClient(CATALOG, table.identifier(), scan -> scan.filter(entry.getValue())));
    }

    RowFilter idAbove100 = RowFilter.greaterThan("id", 100);
    ScanPlan byBoth = plan(table.identifier(),
        ScanRequest.builder().filter(RowFilter.and(RowFilter.equal("day", "1"), idAbove100)).build());
    assertThat(byBoth.tasks()).extracting(task -> task.dataFile().filePath())
        .containsExactly("s3://bucket/t/day=1/f2.parquet");
    // the server's residual is the data part of our filter, written as we write it
    assertThat(byBoth.tasks()).extracting(task -> CompatibilityTests.json(task.residualFilter()))
        .containsExactly(CompatibilityTests.json(idAbove100.toJson()));
  }

  /**
   * Dates and instants, end to end: a date partition and timestamptz bounds prune as Iceberg's expression
   * with the same values as ISO strings does, with the instant given at an offset other than UTC.
   */
  @Test
  void prunesByDateAndInstantAsIcebergDoes() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "day", Types.DateType.get()),
        Types.NestedField.optional(3, "at", Types.TimestampType.withZone()));
    EmbeddedTable table = CATALOG.createTable(newTable("dated"), schema,
        PartitionSpec.builderFor(schema).identity("day").build(), 2);
    table.append(
        atFile(table, "d3-early", "2026-11-03", "2026-11-03T00:00:00Z", "2026-11-03T12:00:00Z"),
        atFile(table, "d4-early", "2026-11-04", "2026-11-04T00:00:00Z", "2026-11-04T06:00:00Z"),
        atFile(table, "d4-late", "2026-11-04", "2026-11-04T06:00:00Z", "2026-11-04T23:00:00Z"));
    // 09:00 at +02:00 is 07:00 UTC: after all of d4-early
    RowFilter filter = RowFilter.and(RowFilter.equal("day", DAY),
        RowFilter.greaterThanOrEqual("at", OffsetDateTime.of(DAY, LocalTime.of(9, 0), ZoneOffset.ofHours(2))));
    Expression iceberg = Expressions.and(Expressions.equal("day", "2026-11-04"),
        Expressions.greaterThanOrEqual("at", "2026-11-04T07:00:00+00:00"));

    ScanPlan plan = plan(table.identifier(), ScanRequest.builder().filter(filter).build());

    assertThat(plan.tasks()).extracting(task -> task.dataFile().filePath())
        .containsExactly("s3://bucket/at/d4-late.parquet");
    assertThat(Tables.views(plan.tasks()))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan.filter(iceberg)));
  }

  /** A column the table does not have is the catalog's 400, a typed exception whose message names it. */
  @Test
  void anUnknownColumnIsTheCatalogsBadRequestNamingIt() {
    EmbeddedTable table = CATALOG.createTable(newTable("unknown"), Tables.SCHEMA);
    table.appendDataFiles(1);

    assertThatExceptionOfType(RestException.class)
        .isThrownBy(() -> plan(table.identifier(),
            ScanRequest.builder().filter(RowFilter.greaterThan("no_such_column", 5)).build()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(400);
          assertThat(failure.errorType()).isEqualTo("ValidationException");
          assertThat(failure.getMessage()).contains("no_such_column");
        });
  }

  /**
   * A value of the wrong Java type for its column is found by the catalog, which alone knows the schema.
   *
   * <p><b>Finding (Iceberg's server).</b> Apache Iceberg answers 400 {@code ValidationException} when a
   * value does not convert to the column's type, but 500 {@code DateTimeParseException} when a string
   * does not parse as the column's date or timestamp: a {@code LocalDateTime} (no offset) for a
   * {@code timestamptz} column is the server's 500. The planner surfaces either as it is.
   */
  @Test
  void aValueOfTheWrongTypeIsTheCatalogsError() {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "at", Types.TimestampType.withZone()));
    EmbeddedTable table = CATALOG.createTable(newTable("typed"), schema);
    table.appendDataFiles(1);

    assertThatExceptionOfType(RestException.class)
        .isThrownBy(() -> plan(table.identifier(), ScanRequest.builder().filter(RowFilter.equal("id", "5")).build()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(400);
          assertThat(failure.errorType()).isEqualTo("ValidationException");
          assertThat(failure.getMessage()).contains("Invalid value for conversion to type long");
        });
    assertThatExceptionOfType(RestException.class)
        .isThrownBy(() -> plan(table.identifier(), ScanRequest.builder().filter(RowFilter.equal("at", NOON)).build()))
        .satisfies(failure -> {
          assertThat(failure.statusCode()).isEqualTo(500);
          assertThat(failure.errorType()).isEqualTo("DateTimeParseException");
        });
    assertThat(plan(table.identifier(), ScanRequest.builder()
        .filter(RowFilter.equal("at", NOON.atOffset(ZoneOffset.UTC))).build()).tasks()).hasSize(1);
  }

  private static void assertSameWhenBound(Expression parsed, Expression iceberg) {
    Expression ours = Binder.bind(STRUCT, parsed, true);
    Expression theirs = Binder.bind(STRUCT, iceberg, true);
    // Iceberg's JSON of a bound expression writes each value by its column's type: the same JSON is the
    // same operator, column and value; equivalent() also compares the values with the type's comparator.
    assertThat(ExpressionParser.toJson(ours)).isEqualTo(ExpressionParser.toJson(theirs));
    assertThat(ExpressionUtil.equivalent(parsed, iceberg, STRUCT, true)).as("equivalent: %s and %s", parsed, iceberg)
        .isTrue();
  }

  /** The value of a single predicate, as Iceberg's server binds it. */
  private static Object boundValue(RowFilter filter) {
    Expression bound = Binder.bind(STRUCT, ExpressionParser.fromJson(filter.toJson()), true);
    assertThat(bound).isInstanceOf(BoundLiteralPredicate.class);
    return ((BoundLiteralPredicate<?>) bound).literal().value();
  }

  private static long micros(Instant instant) {
    return ChronoUnit.MICROS.between(Instant.EPOCH, instant);
  }

  private static DataFile atFile(EmbeddedTable table, String name, String day, String lower, String upper) {
    Types.TimestampType type = Types.TimestampType.withZone();
    return table.dataFile("s3://bucket/at/" + name + ".parquet", 10).withPartitionPath("day=" + day)
        .withMetrics(new Metrics(10L, null, Map.of(3, 10L), Map.of(3, 0L), null,
            Map.of(3, Conversions.toByteBuffer(type, micros(Instant.parse(lower)))),
            Map.of(3, Conversions.toByteBuffer(type, micros(Instant.parse(upper))))))
        .build();
  }

  private static TableIdentifier newTable(String name) {
    return TableIdentifier.of("filters", name + "_" + TABLES.incrementAndGet());
  }

  private static ScanPlan plan(TableIdentifier table, ScanRequest request) {
    try (ScanPlanner planner = ScanPlanner.builder().uri(CATALOG.uri()).maxConcurrency(4)
        .pollInitialDelay(Duration.ofMillis(10)).build()) {
      return planner.plan(CompatibilityTests.ours(table), request);
    }
  }
}
