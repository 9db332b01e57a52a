package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expression.Operation;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SpecPredicates}: predicates with the semantics of Iceberg's expressions spec. Pinned: {@code compile}'s
 * answers on null and NaN (false for every comparison but {@code !=}, {@code not-in} and {@code not-starts-with}),
 * beside Iceberg 1.12's {@code Evaluator}'s where it departs; IEEE 754 zeros, UUIDs as unsigned bytes and strings by
 * code point; {@code normalize}'s shape (no NOT, ranges guarded against null and NaN, negations adding them back,
 * names as the struct writes them, literals beyond the type's range); the key equivalence, over thousands of random
 * filters and rows: the normalized filter means what the filter means, and Iceberg's own {@code Evaluator} gives the
 * spec's answers on it but where it orders UUIDs or compares a floating column with zero
 * ({@code icebergEvaluatesAlike}); {@code conjuncts}, {@code and} and
 * {@code fieldIds}; and a compiled check used from many threads at once.
 */
class SpecPredicatesTests {

  /** The property-based tests' schema: every kind of column a filter treats differently. */
  private static final Schema SCHEMA = new Schema(
      optional(1, "i", Types.IntegerType.get()),
      optional(2, "d", Types.DoubleType.get()),
      optional(3, "s", Types.StringType.get()),
      required(4, "l", Types.LongType.get()),
      optional(5, "dt", Types.DateType.get()),
      optional(6, "u", Types.UUIDType.get()));

  private static final Types.StructType STRUCT = SCHEMA.asStruct();

  private static final long SEED = 20_240_715L;

  private static final UUID LOWEST = new UUID(0L, 1L);
  private static final UUID HIGHEST = new UUID(-1L, -1L);

  // ---- compile: the spec's answers, and where Iceberg's Evaluator departs

  @Test
  void onANullValueEveryComparisonIsFalseButNotEqNotInAndNotStartsWith() {
    StructLike nulls = row(null, null, null, 0L, null, null);
    // predicate, the spec's answer, Iceberg 1.12's Evaluator's
    assertAnswers(nulls, Expressions.lessThan("i", 3), false, true);
    assertAnswers(nulls, Expressions.lessThanOrEqual("i", 3), false, true);
    assertAnswers(nulls, Expressions.greaterThan("i", 3), false, false);
    assertAnswers(nulls, Expressions.greaterThanOrEqual("i", 3), false, false);
    assertAnswers(nulls, Expressions.equal("i", 3), false, false);
    assertAnswers(nulls, Expressions.in("i", 3, 4), false, false);
    assertAnswers(nulls, Expressions.startsWith("s", "a"), false, false);
    assertAnswers(nulls, Expressions.notEqual("i", 3), true, true);
    assertAnswers(nulls, Expressions.notIn("i", 3, 4), true, true);
    assertAnswers(nulls, Expressions.notStartsWith("s", "a"), true, true);
    assertAnswers(nulls, Expressions.isNull("i"), true, true);
    assertAnswers(nulls, Expressions.notNull("i"), false, false);
    assertAnswers(nulls, Expressions.not(Expressions.lessThan("i", 3)), true, false);
    assertAnswers(nulls, Expressions.lessThan("dt", "2024-07-15"), false, true);
    assertAnswers(nulls, Expressions.lessThan("s", "b"), false, true);
    // a transform of null is null
    assertAnswers(nulls, Expressions.lessThan(Expressions.bucket("i", 4), 4), false, true);
  }

  @Test
  void onANaNValueEveryComparisonIsFalseButNotEq() {
    StructLike nan = row(0, Double.NaN, "", 0L, null, null);
    assertAnswers(nan, Expressions.lessThan("d", 1.5), false, false);
    assertAnswers(nan, Expressions.lessThanOrEqual("d", 1.5), false, false);
    assertAnswers(nan, Expressions.greaterThan("d", 1.5), false, true);
    assertAnswers(nan, Expressions.greaterThanOrEqual("d", 1.5), false, true);
    assertAnswers(nan, Expressions.equal("d", 1.5), false, false);
    assertAnswers(nan, Expressions.in("d", 1.5, 2.0), false, false);
    assertAnswers(nan, Expressions.notEqual("d", 1.5), true, true);
    assertAnswers(nan, Expressions.notIn("d", 1.5, 2.0), true, true);
    assertAnswers(nan, Expressions.isNaN("d"), true, true);
    assertAnswers(nan, Expressions.notNaN("d"), false, false);
    assertAnswers(nan, Expressions.not(Expressions.greaterThan("d", 1.5)), true, false);
    // and a value that is neither null nor NaN is compared as ever
    StructLike one = row(1, 1.0, "b", 0L, LocalDate.of(2024, 7, 15), null);
    assertAnswers(one, Expressions.lessThan("d", 1.5), true, true);
    assertAnswers(one, Expressions.lessThanOrEqual("d", 1.0), true, true);
    assertAnswers(one, Expressions.greaterThan("d", 1.0), false, false);
    assertAnswers(one, Expressions.greaterThanOrEqual("d", 1.0), true, true);
    assertAnswers(one, Expressions.notNaN("d"), true, true);
    assertAnswers(one, Expressions.isNull("d"), false, false);
    assertAnswers(one, Expressions.in("i", 1, 2), true, true);
    assertAnswers(one, Expressions.notIn("i", 1, 2), false, false);
    assertAnswers(one, Expressions.startsWith("s", "b"), true, true);
    assertAnswers(one, Expressions.notStartsWith("s", "b"), false, false);
    assertAnswers(one, Expressions.equal("dt", "2024-07-15"), true, true);
  }

  @Test
  void negativeZeroEqualsZero() {
    StructLike negativeZero = row(0, -0.0, "", 0L, null, null);
    assertThat(compiled(Expressions.equal("d", 0.0), negativeZero)).isTrue();
    assertThat(compiled(Expressions.in("d", 0.0, 1.5), negativeZero)).isTrue();
    assertThat(compiled(Expressions.in("d", 0.0), negativeZero)).isTrue();
    assertThat(compiled(Expressions.notEqual("d", 0.0), negativeZero)).isFalse();
    assertThat(compiled(Expressions.notIn("d", 0.0, 1.5), negativeZero)).isFalse();
    assertThat(compiled(Expressions.lessThan("d", 0.0), negativeZero)).isFalse();
    assertThat(compiled(Expressions.greaterThanOrEqual("d", 0.0), negativeZero)).isTrue();
    assertThat(compiled(Expressions.equal("d", -0.0), row(0, 0.0, "", 0L, null, null))).isTrue();
  }

  @Test
  void uuidsOrderAsUnsignedBytes() {
    StructLike highest = row(0, 0.0, "", 0L, null, HIGHEST);
    assertThat(compiled(Expressions.greaterThan("u", LOWEST), highest)).isTrue();
    assertThat(compiled(Expressions.lessThan("u", LOWEST), highest)).isFalse();
    // Iceberg compares them as signed longs: ffffffff-... is -1, below 00000000-...-0001
    assertThat(Comparators.forType(Types.UUIDType.get()).compare(HIGHEST, LOWEST)).isNegative();
    assertThat(new Evaluator(STRUCT, Expressions.greaterThan("u", LOWEST), true).eval(highest)).isFalse();
    StructLike lowest = row(0, 0.0, "", 0L, null, LOWEST);
    UUID middle = UUID.fromString("80000000-0000-0000-0000-000000000000");
    assertThat(compiled(Expressions.lessThan("u", middle), lowest)).isTrue();
    assertThat(compiled(Expressions.lessThanOrEqual("u", middle), highest)).isFalse();
    assertThat(compiled(Expressions.greaterThanOrEqual("u", middle), highest)).isTrue();
  }

  @Test
  void icebergEvaluatesAlikeButARangeComparisonOnAUuidColumn() {
    assertThat(ordersUuids(Expressions.greaterThan("u", LOWEST))).isTrue();
    assertThat(ordersUuids(Expressions.lessThanOrEqual("u", LOWEST))).isTrue();
    assertThat(ordersUuids(Expressions.not(Expressions.lessThan("u", LOWEST)))).isTrue();
    assertThat(ordersUuids(Expressions.and(Expressions.lessThan("i", 3), Expressions.greaterThanOrEqual("u", LOWEST))))
        .isTrue();
    assertThat(ordersUuids(Expressions.or(Expressions.lessThan("i", 3), Expressions.lessThan("u", LOWEST))))
        .isTrue();
    assertThat(ordersUuids(Expressions.equal("u", LOWEST))).isFalse();
    assertThat(ordersUuids(Expressions.notEqual("u", LOWEST))).isFalse();
    assertThat(ordersUuids(Expressions.in("u", LOWEST, HIGHEST))).isFalse();
    assertThat(ordersUuids(Expressions.isNull("u"))).isFalse();
    assertThat(ordersUuids(Expressions.lessThan("i", 3))).isFalse();
    assertThat(ordersUuids(Expressions.greaterThan("s", "a"))).isFalse();
    assertThat(ordersUuids(Expressions.or(Expressions.lessThan("l", 3L), Expressions.equal("u", LOWEST))))
        .isFalse();
    // a bucket of a UUID is an int, ordered as Iceberg orders ints
    assertThat(ordersUuids(Expressions.lessThan(Expressions.bucket("u", 4), 2))).isFalse();
    assertThat(SpecPredicates.icebergEvaluatesAlike(Expressions.alwaysTrue(), STRUCT)).isTrue();
  }

  @Test
  void stringsCompareByCodePoint() {
    String grinning = "\uD83D\uDE00";
    String lastOfTheBasicPlane = "\uFFFF";
    // as UTF-16 code units U+1F600 (0xD83D ...) would sort below U+FFFF; as code points (and UTF-8 bytes) above
    assertThat(compiled(Expressions.greaterThan("s", lastOfTheBasicPlane), row(0, 0.0, grinning, 0L, null, null)))
        .isTrue();
    assertThat(compiled(Expressions.lessThan("s", grinning), row(0, 0.0, lastOfTheBasicPlane, 0L, null, null)))
        .isTrue();
    assertThat(compiled(Expressions.lessThan("s", lastOfTheBasicPlane), row(0, 0.0, grinning, 0L, null, null)))
        .isFalse();
    assertThat(compiled(Expressions.startsWith("s", grinning), row(0, 0.0, grinning + "a", 0L, null, null)))
        .isTrue();
  }

  @Test
  void aFilterThatDoesNotBindIsRefused() {
    assertThatThrownBy(() -> SpecPredicates.compile(Expressions.lessThan("missing", 3), STRUCT))
        .isInstanceOf(ValidationException.class);
    assertThatThrownBy(() -> SpecPredicates.normalize(Expressions.lessThan("missing", 3), STRUCT, true))
        .isInstanceOf(ValidationException.class);
    // case-sensitively, 'I' is not 'i'
    assertThatThrownBy(() -> SpecPredicates.normalize(Expressions.lessThan("I", 3), STRUCT, true))
        .isInstanceOf(ValidationException.class);
  }

  // ---- normalize

  @Test
  void aNormalizedFilterHasNoNot() {
    Expression filter = Expressions.not(Expressions.and(Expressions.not(Expressions.equal("i", 1)),
        Expressions.or(Expressions.isNull("s"), Expressions.not(Expressions.in("l", 1L, 2L)))));
    Expression normalized = SpecPredicates.normalize(filter, STRUCT, true);
    assertThat(hasNot(normalized)).as("%s", normalized).isFalse();
    // not(not(i = 1) and (s is null or not(l in (1, 2)))) = i = 1 or (s is not null and l in (1, 2))
    assertThat(normalized.toString()).isEqualTo(Expressions.or(Expressions.equal("i", 1),
        Expressions.and(Expressions.notNull("s"), Expressions.in("l", 1L, 2L))).toString());
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.alwaysTrue()), STRUCT, true))
        .isSameAs(Expressions.alwaysFalse());
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.startsWith("s", "a")), STRUCT, true).toString())
        .isEqualTo(Expressions.notStartsWith("s", "a").toString());
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.isNaN("d")), STRUCT, true).toString())
        .isEqualTo(Expressions.notNaN("d").toString());
  }

  @Test
  void aRangeOnAnOptionalColumnIsGuardedByNotNull() {
    for (Expression range : List.of(Expressions.lessThan("i", 3), Expressions.lessThanOrEqual("i", 3),
        Expressions.greaterThan("i", 3), Expressions.greaterThanOrEqual("i", 3))) {
      assertThat(SpecPredicates.normalize(range, STRUCT, true).toString()).isEqualTo(Expressions.and(range,
          Expressions.notNull("i")).toString());
    }
    // so that Iceberg's Evaluator, which keeps a null for 'lt', gives the spec's answer
    StructLike nulls = row(null, null, null, 0L, null, null);
    Expression normalized = SpecPredicates.normalize(Expressions.lessThan("i", 3), STRUCT, true);
    assertThat(new Evaluator(STRUCT, normalized, true).eval(nulls)).isFalse();
    assertThat(new Evaluator(STRUCT, normalized, true).eval(row(2, null, null, 0L, null, null))).isTrue();
    // a comparison that is not a range needs no guard
    assertThat(SpecPredicates.normalize(Expressions.equal("i", 3), STRUCT, true).toString())
        .isEqualTo(Expressions.equal("i", 3).toString());
  }

  @Test
  void aRangeOnAFloatingColumnIsGuardedByNotNaN() {
    assertThat(SpecPredicates.normalize(Expressions.greaterThan("d", 1.5), STRUCT, true).toString())
        .isEqualTo(Expressions.and(Expressions.and(Expressions.greaterThan("d", 1.5), Expressions.notNull("d")),
            Expressions.notNaN("d")).toString());
    Expression normalized = SpecPredicates.normalize(Expressions.greaterThan("d", 1.5), STRUCT, true);
    assertThat(new Evaluator(STRUCT, normalized, true).eval(row(0, Double.NaN, "", 0L, null, null))).isFalse();
  }

  @Test
  void aRangeOnARequiredColumnIsLeftAlone() {
    assertThat(SpecPredicates.normalize(Expressions.lessThan("l", 3L), STRUCT, true).toString())
        .isEqualTo(Expressions.lessThan("l", 3L).toString());
  }

  @Test
  void notOfARangeAddsBackNullAndNaN() {
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.lessThan("i", 3)), STRUCT, true).toString())
        .isEqualTo(Expressions.or(Expressions.and(Expressions.greaterThanOrEqual("i", 3), Expressions.notNull("i")),
            Expressions.isNull("i")).toString());
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.lessThanOrEqual("d", 1.5)), STRUCT, true)
        .toString()).isEqualTo(Expressions.or(Expressions.or(Expressions.and(Expressions.and(
            Expressions.greaterThan("d", 1.5), Expressions.notNull("d")), Expressions.notNaN("d")),
            Expressions.isNull("d")), Expressions.isNaN("d")).toString());
    assertThat(SpecPredicates.normalize(Expressions.not(Expressions.greaterThan("l", 3L)), STRUCT, true).toString())
        .isEqualTo(Expressions.lessThanOrEqual("l", 3L).toString());
    // what Iceberg's rewriteNot gives (i >= 3) drops the null row that not(i < 3) keeps
    StructLike nulls = row(null, Double.NaN, null, 0L, null, null);
    Expression notLess = SpecPredicates.normalize(Expressions.not(Expressions.lessThan("i", 3)), STRUCT, true);
    assertThat(new Evaluator(STRUCT, notLess, true).eval(nulls)).isTrue();
    assertThat(new Evaluator(STRUCT, notLess, true).eval(row(2, null, null, 0L, null, null))).isFalse();
    Expression notGreater = SpecPredicates.normalize(Expressions.not(Expressions.greaterThan("d", 1.5)), STRUCT,
        true);
    assertThat(new Evaluator(STRUCT, notGreater, true).eval(nulls)).isTrue();
    assertThat(new Evaluator(STRUCT, notGreater, true).eval(row(0, 2.0, null, 0L, null, null))).isFalse();
  }

  @Test
  void namesComeOutAsTheStructWritesThem() {
    Expression normalized = SpecPredicates.normalize(Expressions.and(Expressions.lessThan("I", 3),
        Expressions.equal(Expressions.bucket("S", 4), 1)), STRUCT, false);
    assertThat(normalized.toString()).contains("ref(name=\"i\")").contains("ref(name=\"s\")")
        .doesNotContain("\"I\"").doesNotContain("\"S\"");
    // so it binds case-sensitively, as Iceberg's Parquet filters and this class's own compile bind
    assertThat(Binder.bind(STRUCT, normalized, true).op()).isEqualTo(Operation.AND);
    // and a nested field by its full name
    Types.StructType nested = new Schema(optional(1, "address", Types.StructType.of(
        optional(2, "zip", Types.IntegerType.get())))).asStruct();
    assertThat(SpecPredicates.normalize(Expressions.lessThan("ADDRESS.ZIP", 3), nested, false).toString())
        .isEqualTo(Expressions.and(Expressions.lessThan("address.zip", 3), Expressions.notNull("address.zip"))
            .toString());
  }

  @Test
  void aLiteralAboveTheTypesRangeStillLeavesNullsOut() {
    Expression above = Expressions.lessThan("i", 3_000_000_000L);
    // Iceberg's Binder alone makes 'i < 3_000_000_000' true, nulls included
    assertThat(Binder.bind(STRUCT, above, true)).isSameAs(Expressions.alwaysTrue());
    Expression normalized = SpecPredicates.normalize(above, STRUCT, true);
    StructLike nulls = row(null, null, null, 0L, null, null);
    StructLike highest = row(Integer.MAX_VALUE, null, null, 0L, null, null);
    assertThat(new Evaluator(STRUCT, normalized, true).eval(nulls)).isFalse();
    assertThat(new Evaluator(STRUCT, normalized, true).eval(highest)).isTrue();
    assertThat(SpecPredicates.compile(normalized, STRUCT).test(nulls)).isFalse();
    assertThat(SpecPredicates.compile(normalized, STRUCT).test(highest)).isTrue();
    // and below it, for a greater-than
    Expression below = SpecPredicates.normalize(Expressions.greaterThanOrEqual("i", -3_000_000_000L), STRUCT, true);
    assertThat(new Evaluator(STRUCT, below, true).eval(nulls)).isFalse();
    assertThat(new Evaluator(STRUCT, below, true).eval(row(Integer.MIN_VALUE, null, null, 0L, null, null))).isTrue();
  }

  // ---- the key equivalence

  @Test
  void normalizationKeepsTheSpecsMeaningAndIcebergsEvaluatorGivesItsAnswers() {
    Random random = new Random(SEED);
    List<StructLike> rows = new ArrayList<>();
    for (int n = 0; n < 300; n++) {
      rows.add(randomRow(random));
    }
    List<String> changedMeaning = new ArrayList<>();
    List<String> icebergDeparts = new ArrayList<>();
    List<String> withNot = new ArrayList<>();
    int checkedWithIceberg = 0;
    int uuidDepartures = 0;
    int originalDepartures = 0;
    int filters = 3000;
    for (int n = 0; n < filters; n++) {
      Expression filter = randomFilter(random, 0);
      Expression normalized = SpecPredicates.normalize(filter, STRUCT, true);
      if (hasNot(normalized)) {
        withNot.add(filter + " -> " + normalized);
      }
      Predicate<StructLike> spec = SpecPredicates.compile(filter, STRUCT);
      Predicate<StructLike> specOfNormalized = SpecPredicates.compile(normalized, STRUCT);
      Evaluator iceberg = new Evaluator(STRUCT, normalized, true);
      Evaluator icebergOnOriginal = new Evaluator(STRUCT, filter, true);
      boolean rowsOnly = !SpecPredicates.icebergEvaluatesAlike(normalized, STRUCT);
      checkedWithIceberg += rowsOnly ? 0 : 1;
      for (StructLike row : rows) {
        boolean expected = spec.test(row);
        if (specOfNormalized.test(row) != expected) {
          changedMeaning.add(filter + " -> " + normalized + " on " + show(row));
        }
        boolean byIceberg = iceberg.eval(row);
        if (!rowsOnly && byIceberg != expected) {
          icebergDeparts.add(filter + " -> " + normalized + " on " + show(row));
        }
        uuidDepartures += rowsOnly && byIceberg != expected ? 1 : 0;
        originalDepartures += icebergOnOriginal.eval(row) != expected ? 1 : 0;
      }
    }
    String seed = "seed " + SEED;
    assertThat(withNot).as(seed + ": normalized filters holding a NOT").isEmpty();
    assertThat(changedMeaning).as(seed + ": compile(normalize(f)) != compile(f)").isEmpty();
    assertThat(icebergDeparts).as(seed + ": Iceberg's Evaluator on normalize(f) != compile(f)").isEmpty();
    // the check above is not vacuous: most filters were handed to Iceberg's Evaluator
    assertThat(checkedWithIceberg).as(seed).isGreaterThan(filters / 2);
    // and it discriminates: on the filters as given, Iceberg's Evaluator departs from the spec, as it does on
    // UUID ranges and comparisons with zero even normalized
    assertThat(originalDepartures).as(seed + ": Iceberg's Evaluator on f != compile(f)").isPositive();
    assertThat(uuidDepartures).as(seed + ": Iceberg's Evaluator on UUID ranges").isPositive();
  }

  // ---- conjuncts, and, fieldIds

  @Test
  void conjunctsSplitTopLevelAndsOnly() {
    Expression a = Expressions.lessThan("i", 3);
    Expression b = Expressions.isNull("s");
    Expression c = Expressions.or(Expressions.equal("l", 1L), Expressions.equal("l", 2L));
    Expression d = Expressions.not(Expressions.and(Expressions.equal("l", 1L), Expressions.isNull("s")));
    assertThat(SpecPredicates.conjuncts(Expressions.and(Expressions.and(a, b), Expressions.and(c, d))))
        .containsExactly(a, b, c, d);
    // an OR, or a NOT of an AND, is never split
    assertThat(SpecPredicates.conjuncts(c)).containsExactly(c);
    assertThat(SpecPredicates.conjuncts(d)).containsExactly(d);
    assertThat(SpecPredicates.conjuncts(Expressions.alwaysFalse())).containsExactly(Expressions.alwaysFalse());
  }

  @Test
  void conjunctsDropTrue() {
    assertThat(SpecPredicates.conjuncts(Expressions.alwaysTrue())).isEmpty();
  }

  @Test
  void theConjunctionOfNoneIsTrueAndOfSomeIsTheirAnd() {
    Expression a = Expressions.lessThan("i", 3);
    Expression b = Expressions.isNull("s");
    assertThat(SpecPredicates.and(List.of())).isSameAs(Expressions.alwaysTrue());
    Expression both = SpecPredicates.and(List.of(a, b));
    assertThat(both).isInstanceOf(And.class);
    assertThat(SpecPredicates.conjuncts(both)).containsExactly(a, b);
  }

  @Test
  void fieldIdsAreTheIdsAFilterReads() {
    Expression filter = SpecPredicates.normalize(Expressions.and(Expressions.lessThan("i", 3),
        Expressions.not(Expressions.or(Expressions.startsWith("s", "a"),
            Expressions.equal(Expressions.bucket("l", 4), 1)))), STRUCT, true);
    assertThat(SpecPredicates.fieldIds(filter, STRUCT)).containsExactlyInAnyOrder(1, 3, 4);
    assertThat(SpecPredicates.fieldIds(SpecPredicates.normalize(Expressions.isNaN("d"), STRUCT, true), STRUCT))
        .containsExactly(2);
    assertThat(SpecPredicates.fieldIds(Expressions.alwaysTrue(), STRUCT)).isEmpty();
    assertThat(SpecPredicates.fieldIds(Expressions.alwaysFalse(), STRUCT)).isEmpty();
  }

  // ---- thread safety

  @Test
  void aCompiledCheckGivesTheSameAnswersFromManyThreadsAtOnce() throws Exception {
    Random random = new Random(SEED);
    List<StructLike> rows = new ArrayList<>();
    for (int n = 0; n < 20_000; n++) {
      rows.add(randomRow(random));
    }
    Expression filter = Expressions.or(
        Expressions.and(Expressions.lessThan("i", 1), Expressions.startsWith("s", "a")),
        Expressions.or(Expressions.and(Expressions.greaterThanOrEqual("d", 0.0), Expressions.in("l", 0L, 1L, 2L)),
            Expressions.and(Expressions.not(Expressions.lessThan("u", new UUID(Long.MIN_VALUE, 0L))),
                Expressions.equal(Expressions.bucket("dt", 4), 1))));
    Predicate<StructLike> check = SpecPredicates.compile(filter, STRUCT);
    boolean[] expected = answers(check, rows);
    int held = 0;
    for (boolean answer : expected) {
      held += answer ? 1 : 0;
    }
    assertThat(held).as("rows the filter holds for").isBetween(1, rows.size() - 1);

    int threads = 8;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      CountDownLatch ready = new CountDownLatch(threads);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<boolean[]>> results = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        results.add(pool.submit(() -> {
          ready.countDown();
          if (!start.await(10, TimeUnit.SECONDS)) {
            throw new IllegalStateException("never started");
          }
          boolean[] answers = null;
          for (int pass = 0; pass < 5; pass++) {
            answers = answers(check, rows);
          }
          return answers;
        }));
      }
      assertThat(ready.await(10, TimeUnit.SECONDS)).isTrue();
      start.countDown();
      for (Future<boolean[]> result : results) {
        assertThat(Arrays.equals(result.get(60, TimeUnit.SECONDS), expected)).isTrue();
      }
    }
    finally {
      pool.shutdownNow();
      assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }
  }

  // ---- defects

  @Test
  void inOnADecimalIsIndependentOfScale() {
    Schema decimals = new Schema(optional(1, "amount", Types.DecimalType.of(10, 2)));
    GenericRecord record = GenericRecord.create(decimals);
    record.setField("amount", new BigDecimal("12.30"));
    StructLike row = new InternalRecordWrapper(decimals.asStruct()).wrap(record);
    assertThat(SpecPredicates.compile(Expressions.equal("amount", new BigDecimal("12.3")), decimals.asStruct())
        .test(row)).isTrue();
    assertThat(SpecPredicates.compile(Expressions.in("amount", new BigDecimal("12.3"), new BigDecimal("1.00")),
        decimals.asStruct()).test(row)).isTrue();
    assertThat(SpecPredicates.compile(Expressions.notIn("amount", new BigDecimal("12.3"), new BigDecimal("1.00")),
        decimals.asStruct()).test(row)).isFalse();
  }

  @Test
  void aLiteralBeyondTheTypesRangeIsFalseForNullEvenUnnormalized() {
    StructLike nulls = row(null, null, null, 0L, null, null);
    assertThat(compiled(Expressions.lessThan("i", 3_000_000_000L), nulls)).isFalse();
    assertThat(compiled(Expressions.lessThanOrEqual("i", 3_000_000_000L), nulls)).isFalse();
    assertThat(compiled(Expressions.greaterThan("i", -3_000_000_000L), nulls)).isFalse();
    assertThat(compiled(Expressions.greaterThanOrEqual("i", -3_000_000_000L), nulls)).isFalse();
  }

  /**
   * Iceberg's evaluators tell -0.0 from 0.0 (Double.compareTo), which IEEE 754 and the spec call equal: a filter that
   * compares a floating column with zero is not one they answer alike, so it is checked on rows only; a comparison
   * with another number is.
   */
  @Test
  void aComparisonOfAFloatingColumnWithZeroIsCheckedOnRowsOnly() {
    StructLike negativeZero = row(0, -0.0, "", 0L, null, null);
    for (Expression filter : List.of(Expressions.equal("d", 0.0), Expressions.in("d", 0.0, 1.5),
        Expressions.notEqual("d", 0.0), Expressions.notIn("d", 0.0, 1.5), Expressions.lessThan("d", 0.0),
        Expressions.greaterThanOrEqual("d", 0.0))) {
      Expression normalized = SpecPredicates.normalize(filter, STRUCT, true);
      assertThat(SpecPredicates.icebergEvaluatesAlike(normalized, STRUCT)).as("%s", normalized).isFalse();
      assertThat(new Evaluator(STRUCT, normalized, true).eval(negativeZero)).as("Iceberg on %s", normalized)
          .isNotEqualTo(compiled(filter, negativeZero));
    }
    assertThat(SpecPredicates.icebergEvaluatesAlike(SpecPredicates.normalize(Expressions.lessThan("d", 1.5), STRUCT,
        true), STRUCT)).isTrue();
    assertThat(compiled(Expressions.in("d", 0.0, 1.5), negativeZero)).isTrue();
    assertThat(compiled(Expressions.greaterThanOrEqual("d", 0.0), negativeZero)).isTrue();
  }

  // ---- helpers

  /** The spec's answer by {@code compile} and Iceberg 1.12's by its {@code Evaluator}, both asserted. */
  private static void assertAnswers(StructLike row, Expression filter, boolean spec, boolean iceberg) {
    assertThat(compiled(filter, row)).as("the spec's answer to %s on %s", filter, show(row)).isEqualTo(spec);
    assertThat(new Evaluator(STRUCT, filter, true).eval(row)).as("Iceberg's answer to %s on %s", filter, show(row))
        .isEqualTo(iceberg);
  }

  private static boolean compiled(Expression filter, StructLike row) {
    return SpecPredicates.compile(filter, STRUCT).test(row);
  }

  /** Whether a filter is checked on rows only, for it orders UUIDs: Iceberg orders them as signed longs. */
  private static boolean ordersUuids(Expression filter) {
    return !SpecPredicates.icebergEvaluatesAlike(SpecPredicates.normalize(filter, STRUCT, true), STRUCT);
  }

  private static boolean[] answers(Predicate<StructLike> check, List<StructLike> rows) {
    boolean[] answers = new boolean[rows.size()];
    for (int n = 0; n < answers.length; n++) {
      answers[n] = check.test(rows.get(n));
    }
    return answers;
  }

  private static boolean hasNot(Expression filter) {
    return switch (filter.op()) {
      case NOT -> true;
      case AND -> hasNot(((And) filter).left()) || hasNot(((And) filter).right());
      case OR -> hasNot(((Or) filter).left()) || hasNot(((Or) filter).right());
      default -> false;
    };
  }

  /** A row of {@link #SCHEMA} as the check expects it: a generic record with Iceberg's internal values. */
  private static StructLike row(Integer i, Double d, String s, long l, LocalDate dt, UUID u) {
    GenericRecord record = GenericRecord.create(SCHEMA);
    record.setField("i", i);
    record.setField("d", d);
    record.setField("s", s);
    record.setField("l", l);
    record.setField("dt", dt);
    record.setField("u", u);
    return new InternalRecordWrapper(STRUCT).wrap(record);
  }

  private static String show(StructLike row) {
    List<Object> values = new ArrayList<>();
    for (int n = 0; n < row.size(); n++) {
      values.add(row.get(n, Object.class));
    }
    return values.toString();
  }

  // ---- random filters and rows, with values near each other

  private static final Integer[] INTS = { -2, -1, 0, 1, 2, Integer.MIN_VALUE, Integer.MAX_VALUE };
  /** -0.0 and 0.0 too: a filter comparing with either is one Iceberg's Evaluator is not asked to answer. */
  private static final Double[] DOUBLES = { -1.5, -0.0, 0.0, 1.5, 2.0 };
  private static final String[] STRINGS = { "", "a", "ab", "b", "ba", "\uFFFF", "\uD83D\uDE00" };
  private static final String[] PREFIXES = { "", "a", "b", "\uD83D\uDE00" };
  private static final Long[] LONGS = { -2L, -1L, 0L, 1L, 2L, Long.MIN_VALUE, Long.MAX_VALUE };
  private static final LocalDate[] DATES = { LocalDate.of(2024, 7, 14), LocalDate.of(2024, 7, 15),
      LocalDate.of(2024, 7, 16) };
  private static final UUID[] UUIDS = { LOWEST, new UUID(Long.MAX_VALUE, -1L), new UUID(Long.MIN_VALUE, 0L),
      HIGHEST };
  private static final String[] COLUMNS = { "i", "d", "s", "l", "dt", "u" };

  private static StructLike randomRow(Random random) {
    Double d;
    int doubles = random.nextInt(10);
    if (doubles == 0) {
      d = null;
    }
    else if (doubles == 1) {
      d = Double.NaN;
    }
    else if (doubles == 2) {
      d = random.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
    }
    else {
      d = pick(random, DOUBLES);
    }
    return row(orNull(random, pick(random, INTS)), d, orNull(random, pick(random, STRINGS)), pick(random, LONGS),
        orNull(random, pick(random, DATES)), orNull(random, pick(random, UUIDS)));
  }

  private static <T> T orNull(Random random, T value) {
    return random.nextInt(7) == 0 ? null : value;
  }

  private static <T> T pick(Random random, T[] values) {
    return values[random.nextInt(values.length)];
  }

  private static Expression randomFilter(Random random, int depth) {
    int kind = random.nextInt(depth >= 3 ? 4 : 10);
    if (kind < 4) {
      return random.nextInt(40) == 0 ? (random.nextBoolean() ? Expressions.alwaysTrue() : Expressions.alwaysFalse())
          : randomPredicate(random);
    }
    Expression left = randomFilter(random, depth + 1);
    if (kind >= 8) {
      return Expressions.not(left);
    }
    Expression right = randomFilter(random, depth + 1);
    return kind < 6 ? Expressions.and(left, right) : Expressions.or(left, right);
  }

  private static final Operation[] COMPARISONS = { Operation.LT, Operation.LT_EQ, Operation.GT, Operation.GT_EQ,
      Operation.EQ, Operation.NOT_EQ, Operation.IN, Operation.NOT_IN };

  @SuppressWarnings({ "unchecked", "rawtypes" })
  private static Expression randomPredicate(Random random) {
    int column = random.nextInt(COLUMNS.length);
    String name = COLUMNS[column];
    int shape = random.nextInt(12);
    if (shape == 0) {
      return random.nextBoolean() ? Expressions.isNull(name) : Expressions.notNull(name);
    }
    if (shape == 1 && column == 1) {
      return random.nextBoolean() ? Expressions.isNaN(name) : Expressions.notNaN(name);
    }
    if (shape == 2 && column == 2) {
      String prefix = pick(random, PREFIXES);
      return random.nextBoolean() ? Expressions.startsWith(name, prefix) : Expressions.notStartsWith(name, prefix);
    }
    UnboundTerm term = Expressions.ref(name);
    Object[] values = literals(column);
    if (shape == 3 && column != 1 && column != 4) {
      // a bucket of the column: an int
      term = Expressions.bucket(name, 4);
      values = new Integer[] { 0, 1, 2, 3 };
    }
    else if (shape == 4 && column == 2) {
      term = Expressions.truncate(name, 1);
      if (random.nextBoolean()) {
        return Expressions.startsWith(term, pick(random, PREFIXES));
      }
    }
    Operation op = pick(random, COMPARISONS);
    if (op == Operation.IN || op == Operation.NOT_IN) {
      List<Object> set = new ArrayList<>();
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        set.add(pick(random, values));
      }
      return Expressions.predicate(op, term, set);
    }
    Object value = pick(random, values);
    return switch (op) {
      case LT -> Expressions.lessThan(term, value);
      case LT_EQ -> Expressions.lessThanOrEqual(term, value);
      case GT -> Expressions.greaterThan(term, value);
      case GT_EQ -> Expressions.greaterThanOrEqual(term, value);
      case EQ -> Expressions.equal(term, value);
      default -> Expressions.notEqual(term, value);
    };
  }

  private static Object[] literals(int column) {
    return switch (column) {
      case 0 -> INTS;
      case 1 -> DOUBLES;
      case 2 -> STRINGS;
      case 3 -> LONGS;
      case 4 -> Arrays.stream(DATES).map(LocalDate::toString).toArray();
      default -> UUIDS;
    };
  }
}
