package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;

import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.And;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.BoundTerm;
import org.apache.iceberg.expressions.BoundTransform;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expression.Operation;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.Not;
import org.apache.iceberg.expressions.Or;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.expressions.UnboundTerm;
import org.apache.iceberg.transforms.Transform;
import org.apache.iceberg.types.Comparators;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.NaNUtil;

/**
 * Predicates with the semantics of Iceberg's expressions spec, which are two-valued and null-safe: {@code x < 3} and
 * {@code x <= 3} are false when {@code x} is null, comparisons with NaN are false as with null, {@code !=} and
 * {@code not-in} are true for null, and UUIDs order as unsigned bytes. Apache Iceberg 1.12 departs from them: its
 * {@code Evaluator} keeps nulls for {@code lt} and {@code lt-eq} and NaN for {@code gt} and {@code gt-eq}, its
 * {@code Binder} turns {@code x < v} with {@code v} above the type's range into {@code true} (nulls too), its
 * {@code ResidualEvaluator} makes the same errors on null partition values, its metrics and Parquet row-group filters
 * rewrite {@code not(x < v)} as {@code x >= v} (dropping nulls the spec keeps), and it orders UUIDs as signed longs.
 *
 * <p>Two tools close the gap:
 * <ul>
 *   <li>{@link #normalize}: an equivalent filter, under the spec, on which Iceberg's own evaluators give the spec's
 *       answers: without {@code not} (each negation pushed to the leaves as the spec's complement:
 *       {@code not(x < v)} is {@code x >= v or x is null}, and {@code or x is nan} for floating types), and each
 *       range comparison guarded ({@code x < v and x is not null}, {@code and x is not nan}), with the columns named
 *       as the schema names them. Safe to send to a catalog and to hand to Parquet's row-group filters, except
 *       where Iceberg orders UUIDs or tells -0.0 from 0.0 ({@link #icebergEvaluatesAlike}).</li>
 *   <li>{@link #compile}: a check of rows under the spec's semantics, bound once to a struct and thread-safe.</li>
 * </ul>
 */
final class SpecPredicates {

  private static final Comparator<Object> FLOATING = (left, right) -> {
    double x = ((Number) left).doubleValue();
    double y = ((Number) right).doubleValue();
    // IEEE 754 order, as the spec has it: -0.0 equals 0.0 (NaN never gets here)
    return x < y ? -1 : x > y ? 1 : 0;
  };

  private static final Comparator<Object> UNSIGNED_UUIDS = (left, right) -> {
    UUID x = (UUID) left;
    UUID y = (UUID) right;
    int high = Long.compareUnsigned(x.getMostSignificantBits(), y.getMostSignificantBits());
    return high != 0 ? high : Long.compareUnsigned(x.getLeastSignificantBits(), y.getLeastSignificantBits());
  };

  private SpecPredicates() {
  }

  /**
   * An unbound filter equivalent to {@code filter} under the spec, free of {@code not}, each range comparison
   * guarded against null and NaN, and each column named exactly as {@code struct} names it (so it binds
   * case-sensitively).
   *
   * @throws org.apache.iceberg.exceptions.ValidationException (or another {@code RuntimeException} of Iceberg's)
   *     when the filter does not bind to {@code struct}
   */
  static Expression normalize(Expression filter, Types.StructType struct, boolean caseSensitive) {
    return new Normalizer(struct, caseSensitive).normalize(filter, false);
  }

  /** Normalizes the filters of one struct, whose full column names it looks up by field id. */
  private static final class Normalizer {

    private final Types.StructType struct;
    private final boolean caseSensitive;
    private final Map<Integer, String> names;

    Normalizer(Types.StructType struct, boolean caseSensitive) {
      this.struct = struct;
      this.caseSensitive = caseSensitive;
      this.names = TypeUtil.indexNameById(struct);
    }

    Expression normalize(Expression filter, boolean negated) {
      return switch (filter.op()) {
        case TRUE -> negated ? Expressions.alwaysFalse() : filter;
        case FALSE -> negated ? Expressions.alwaysTrue() : filter;
        case NOT -> normalize(((Not) filter).child(), !negated);
        case AND -> {
          And and = (And) filter;
          Expression left = normalize(and.left(), negated);
          Expression right = normalize(and.right(), negated);
          yield negated ? Expressions.or(left, right) : Expressions.and(left, right);
        }
        case OR -> {
          Or or = (Or) filter;
          Expression left = normalize(or.left(), negated);
          Expression right = normalize(or.right(), negated);
          yield negated ? Expressions.and(left, right) : Expressions.or(left, right);
        }
        default -> leaf(filter, negated);
      };
    }

    private Expression leaf(Expression filter, boolean negated) {
      if (!(filter instanceof UnboundPredicate<?> given)) {
        throw new IllegalArgumentException("not an unbound predicate: " + filter.op());
      }
      // bound on its own only to learn the column: the predicate itself is bound by whoever evaluates it
      BoundTerm<?> bound = given.term().bind(this.struct, this.caseSensitive);
      return SpecPredicates.leaf(given, exactly(bound), bound, negated);
    }

    /** The term as the struct names its column: it binds case-sensitively whatever case the filter was written in. */
    @SuppressWarnings("unchecked")
    private UnboundTerm<Object> exactly(BoundTerm<?> bound) {
      String name = this.names.get(bound.ref().fieldId());
      if (bound instanceof BoundTransform<?, ?> transform) {
        return Expressions.transform(name, (Transform<?, Object>) transform.transform());
      }
      return Expressions.ref(name);
    }
  }

  private static Expression leaf(UnboundPredicate<?> given, UnboundTerm<Object> term, BoundTerm<?> bound,
      boolean negated) {
    List<Object> values = new ArrayList<>();
    if (given.literals() != null) {
      given.literals().forEach(literal -> values.add(literal.value()));
    }
    Operation op = negated ? given.op().negate() : given.op();
    Expression predicate = predicate(op, term, values);
    if (!isRange(op)) {
      return predicate;
    }
    boolean optional = bound.ref().field().isOptional();
    boolean floating = isFloating(bound.type());
    if (negated) {
      // not(x < v) holds for null and NaN, which x >= v does not: they are added back
      Expression complement = guarded(predicate, term, optional, floating);
      if (optional) {
        complement = Expressions.or(complement, Expressions.isNull(term));
      }
      return floating ? Expressions.or(complement, Expressions.isNaN(term)) : complement;
    }
    return guarded(predicate, term, optional, floating);
  }

  /** A range comparison that holds for neither null nor NaN, whatever an evaluator makes of them. */
  private static Expression guarded(Expression comparison, UnboundTerm<Object> term, boolean optional,
      boolean floating) {
    Expression guarded = comparison;
    if (optional) {
      guarded = Expressions.and(guarded, Expressions.notNull(term));
    }
    return floating ? Expressions.and(guarded, Expressions.notNaN(term)) : guarded;
  }

  /** A predicate of Iceberg's from its operation, term and values: the one place both JSON and filters make them. */
  @SuppressWarnings({ "unchecked", "rawtypes" })
  static Expression predicate(Operation op, UnboundTerm<Object> term, List<Object> values) {
    UnboundTerm column = term;
    return switch (op) {
      case IS_NULL, NOT_NULL, IS_NAN, NOT_NAN -> Expressions.predicate(op, term);
      case IN, NOT_IN -> Expressions.predicate(op, term, values);
      case LT -> Expressions.lessThan(column, values.get(0));
      case LT_EQ -> Expressions.lessThanOrEqual(column, values.get(0));
      case GT -> Expressions.greaterThan(column, values.get(0));
      case GT_EQ -> Expressions.greaterThanOrEqual(column, values.get(0));
      case EQ -> Expressions.equal(column, values.get(0));
      case NOT_EQ -> Expressions.notEqual(column, values.get(0));
      case STARTS_WITH -> Expressions.startsWith(column, values.get(0).toString());
      case NOT_STARTS_WITH -> Expressions.notStartsWith(column, values.get(0).toString());
      default -> throw new IllegalArgumentException("not a predicate: " + op);
    };
  }

  /** The conjuncts of a filter: its top-level ANDs split, an OR never. */
  static List<Expression> conjuncts(Expression filter) {
    List<Expression> conjuncts = new ArrayList<>();
    collect(filter, conjuncts);
    return conjuncts;
  }

  private static void collect(Expression filter, List<Expression> conjuncts) {
    if (filter.op() == Operation.AND) {
      collect(((And) filter).left(), conjuncts);
      collect(((And) filter).right(), conjuncts);
    }
    else if (filter.op() != Operation.TRUE) {
      conjuncts.add(filter);
    }
  }

  /** The conjunction of these filters, {@code true} for none. */
  static Expression and(List<Expression> filters) {
    Expression conjunction = Expressions.alwaysTrue();
    for (Expression filter : filters) {
      conjunction = Expressions.and(conjunction, filter);
    }
    return conjunction;
  }

  /** The field ids a normalized filter reads. */
  static Set<Integer> fieldIds(Expression filter, Types.StructType struct) {
    return filter.op() == Operation.TRUE || filter.op() == Operation.FALSE ? Set.of()
        : new HashSet<>(Binder.boundReferences(struct, List.of(filter), true));
  }

  /**
   * Whether Iceberg's own evaluators (a catalog's, Parquet's row-group filters, a task's residual) answer a
   * normalized filter as the spec does, so that it may be sent and pushed down: not where it orders UUIDs, which
   * Iceberg compares as signed longs, nor where it compares a floating column with zero, since Iceberg tells -0.0
   * from 0.0 where IEEE 754 and the spec do not. Such a filter is checked on rows only.
   */
  static boolean icebergEvaluatesAlike(Expression filter, Types.StructType struct) {
    return switch (filter.op()) {
      case TRUE, FALSE -> true;
      case AND -> icebergEvaluatesAlike(((And) filter).left(), struct)
          && icebergEvaluatesAlike(((And) filter).right(), struct);
      case OR -> icebergEvaluatesAlike(((Or) filter).left(), struct)
          && icebergEvaluatesAlike(((Or) filter).right(), struct);
      case NOT -> icebergEvaluatesAlike(((Not) filter).child(), struct);
      default -> {
        UnboundPredicate<?> predicate = (UnboundPredicate<?>) filter;
        Type type = predicate.term().bind(struct, true).type();
        if (type.typeId() == Type.TypeID.UUID) {
          yield !isRange(filter.op());
        }
        yield !isFloating(type) || predicate.literals() == null
            || predicate.literals().stream().noneMatch(literal -> ((Number) literal.value()).doubleValue() == 0);
      }
    };
  }

  /**
   * A check of rows of {@code struct} (with values as Iceberg's internal ones: an {@code InternalRecordWrapper}
   * around a generic record) under the spec's semantics, for any filter that binds to it. Bound once, a predicate
   * at a time (Iceberg's {@code Binder} turns {@code x < v} above the type's range into {@code true}, nulls and all);
   * thread-safe.
   */
  static Predicate<StructLike> compile(Expression filter, Types.StructType struct) {
    return switch (filter.op()) {
      case TRUE -> row -> true;
      case FALSE -> row -> false;
      case AND -> compile(((And) filter).left(), struct).and(compile(((And) filter).right(), struct));
      case OR -> compile(((Or) filter).left(), struct).or(compile(((Or) filter).right(), struct));
      case NOT -> compile(((Not) filter).child(), struct).negate();
      default -> leaf(filter, struct);
    };
  }

  @SuppressWarnings("unchecked")
  private static Predicate<StructLike> leaf(Expression predicate, Types.StructType struct) {
    if (predicate instanceof BoundPredicate<?> bound) {
      return leaf((BoundPredicate<Object>) bound);
    }
    Expression bound = Binder.bind(struct, predicate, true);
    if (bound instanceof BoundPredicate<?> bounded) {
      return leaf((BoundPredicate<Object>) bounded);
    }
    if (bound.op() == Operation.TRUE && isRange(predicate.op())) {
      // a constant beyond the type's range: the comparison holds for every value but null and NaN
      BoundTerm<?> term = ((UnboundPredicate<?>) predicate).term().bind(struct, true);
      return row -> {
        Object value = term.eval(row);
        return value != null && !NaNUtil.isNaN(value);
      };
    }
    return compile(bound, struct);
  }

  private static Predicate<StructLike> leaf(BoundPredicate<Object> predicate) {
    BoundTerm<Object> term = predicate.term();
    Type type = term.type();
    Operation op = predicate.op();
    if (predicate.isUnaryPredicate()) {
      return switch (op) {
        case IS_NULL -> row -> term.eval(row) == null;
        case NOT_NULL -> row -> term.eval(row) != null;
        case IS_NAN -> row -> NaNUtil.isNaN(term.eval(row));
        case NOT_NAN -> row -> !NaNUtil.isNaN(term.eval(row));
        default -> throw new IllegalArgumentException("not a test: " + op);
      };
    }
    Comparator<Object> order = comparator(type);
    if (predicate.isSetPredicate()) {
      Set<Object> values = predicate.asSetPredicate().literalSet();
      // members of equal value but another scale or sign of zero: IEEE 754 and the spec call them equal
      Predicate<StructLike> in = isFloating(type) || type.typeId() == Type.TypeID.DECIMAL
          ? row -> {
            Object value = term.eval(row);
            return value != null && !NaNUtil.isNaN(value)
                && values.stream().anyMatch(member -> order.compare(value, member) == 0);
          }
          : row -> {
            Object value = term.eval(row);
            return value != null && values.contains(value);
          };
      return op == Operation.IN ? in : in.negate();
    }
    Literal<Object> literal = predicate.asLiteralPredicate().literal();
    Object constant = literal.value();
    return switch (op) {
      case LT -> row -> compared(term.eval(row), constant, order) < 0;
      case LT_EQ -> row -> compared(term.eval(row), constant, order) <= 0;
      case GT -> row -> {
        int compared = compared(term.eval(row), constant, order);
        return compared > 0 && compared != INCOMPARABLE;
      };
      case GT_EQ -> row -> {
        int compared = compared(term.eval(row), constant, order);
        return compared >= 0 && compared != INCOMPARABLE;
      };
      case EQ -> row -> compared(term.eval(row), constant, order) == 0;
      case NOT_EQ -> row -> compared(term.eval(row), constant, order) != 0;
      case STARTS_WITH -> row -> startsWith(term.eval(row), constant);
      case NOT_STARTS_WITH -> row -> !startsWith(term.eval(row), constant);
      default -> throw new IllegalArgumentException("not a comparison: " + op);
    };
  }

  /** What {@link #compared} gives a null or NaN: no order holds, and nothing equals it. */
  private static final int INCOMPARABLE = Integer.MAX_VALUE;

  /**
   * The order of a value against a constant, or {@link #INCOMPARABLE} for null and NaN (which the constant never
   * is): {@code < 0} and {@code <= 0} fail for it as {@code > 0} and {@code >= 0} must, by the callers' check.
   */
  private static int compared(Object value, Object constant, Comparator<Object> order) {
    if (value == null || NaNUtil.isNaN(value)) {
      return INCOMPARABLE;
    }
    int compared = order.compare(value, constant);
    // an order that happened to be MAX_VALUE is still greater
    return compared == INCOMPARABLE ? 1 : compared;
  }

  private static boolean startsWith(Object value, Object prefix) {
    return value != null && value.toString().startsWith(prefix.toString());
  }

  @SuppressWarnings("unchecked")
  private static Comparator<Object> comparator(Type type) {
    return switch (type.typeId()) {
      case FLOAT, DOUBLE -> FLOATING;
      case UUID -> UNSIGNED_UUIDS;
      default -> Comparators.forType(type.asPrimitiveType());
    };
  }

  private static boolean isRange(Operation op) {
    return op == Operation.LT || op == Operation.LT_EQ || op == Operation.GT || op == Operation.GT_EQ;
  }

  private static boolean isFloating(Type type) {
    return type.typeId() == Type.TypeID.FLOAT || type.typeId() == Type.TypeID.DOUBLE;
  }
}
