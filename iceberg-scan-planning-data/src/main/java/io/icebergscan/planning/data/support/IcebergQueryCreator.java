package io.icebergscan.planning.data.support;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Sort;
import org.springframework.data.repository.query.ParameterAccessor;
import org.springframework.data.repository.query.parser.AbstractQueryCreator;
import org.springframework.data.repository.query.parser.Part;
import org.springframework.data.repository.query.parser.PartTree;
import org.springframework.util.ObjectUtils;

/**
 * A derived query's predicate as an Apache Iceberg filter, made per call: its property paths resolve to the columns of
 * the schema the call reads, and its arguments become literals of those columns' types. Only the keywords whose
 * meaning Iceberg's filters have are {@link #SUPPORTED}; {@code PartTreeIcebergQuery} refuses the others at start-up.
 */
final class IcebergQueryCreator extends AbstractQueryCreator<Expression, Expression> {

  /** The keywords Iceberg evaluates, on the catalog's server and on every row read. */
  static final Set<Part.Type> SUPPORTED = EnumSet.of(Part.Type.SIMPLE_PROPERTY, Part.Type.NEGATING_SIMPLE_PROPERTY,
      Part.Type.GREATER_THAN, Part.Type.GREATER_THAN_EQUAL, Part.Type.LESS_THAN, Part.Type.LESS_THAN_EQUAL,
      Part.Type.AFTER, Part.Type.BEFORE, Part.Type.BETWEEN, Part.Type.IN, Part.Type.NOT_IN, Part.Type.IS_NULL,
      Part.Type.IS_NOT_NULL, Part.Type.TRUE, Part.Type.FALSE, Part.Type.STARTING_WITH);

  private final TableReads<?>.Call call;
  private final IcebergLiterals literals;
  private final String method;
  private int argument;

  IcebergQueryCreator(PartTree tree, ParameterAccessor parameters, TableReads<?>.Call call, IcebergLiterals literals,
      String method) {
    super(tree, parameters);
    this.call = call;
    this.literals = literals;
    this.method = method;
  }

  @Override
  protected Expression create(Part part, Iterator<Object> arguments) {
    Types.NestedField column = this.call.column(part.getProperty());
    String name = this.call.columnName(part.getProperty());
    return switch (part.getType()) {
      case SIMPLE_PROPERTY -> {
        Object value = next(arguments);
        yield value == null ? Expressions.isNull(name) : Expressions.equal(name, literal(value, column));
      }
      case NEGATING_SIMPLE_PROPERTY -> {
        Object value = next(arguments);
        yield value == null ? Expressions.notNull(name) : Expressions.notEqual(name, literal(value, column));
      }
      case GREATER_THAN, AFTER -> Expressions.greaterThan(name, required(arguments, column));
      case GREATER_THAN_EQUAL -> Expressions.greaterThanOrEqual(name, required(arguments, column));
      case LESS_THAN, BEFORE -> Expressions.lessThan(name, required(arguments, column));
      case LESS_THAN_EQUAL -> Expressions.lessThanOrEqual(name, required(arguments, column));
      case BETWEEN -> Expressions.and(Expressions.greaterThanOrEqual(name, required(arguments, column)),
          Expressions.lessThanOrEqual(name, required(arguments, column)));
      case IN -> {
        List<Object> values = values(arguments, column);
        yield values.isEmpty() ? Expressions.alwaysFalse() : Expressions.in(name, values);
      }
      case NOT_IN -> {
        List<Object> values = values(arguments, column);
        yield values.isEmpty() ? Expressions.alwaysTrue() : Expressions.notIn(name, values);
      }
      case IS_NULL -> Expressions.isNull(name);
      case IS_NOT_NULL -> Expressions.notNull(name);
      case TRUE -> Expressions.equal(name, true);
      case FALSE -> Expressions.equal(name, false);
      case STARTING_WITH -> {
        if (column.type().typeId() != org.apache.iceberg.types.Type.TypeID.STRING) {
          throw new IllegalArgumentException(this.method + " filters column '" + name + "' of type " + column.type()
              + " with StartingWith, which only a string column takes");
        }
        yield Expressions.startsWith(name, (String) required(arguments, column));
      }
      default -> throw new IllegalStateException(part.getType() + " is refused at start-up");
    };
  }

  @Override
  protected Expression and(Part part, Expression base, Iterator<Object> arguments) {
    return Expressions.and(base, create(part, arguments));
  }

  @Override
  protected Expression or(Expression base, Expression criteria) {
    return Expressions.or(base, criteria);
  }

  @Override
  protected Expression complete(@Nullable Expression criteria, Sort sort) {
    return criteria == null ? Expressions.alwaysTrue() : criteria;
  }

  private @Nullable Object next(Iterator<Object> arguments) {
    this.argument++;
    return arguments.next();
  }

  private Object required(Iterator<Object> arguments, Types.NestedField column) {
    Object value = next(arguments);
    if (value == null) {
      throw new IllegalArgumentException(what() + " is null, which compares with nothing");
    }
    return literal(value, column);
  }

  private List<Object> values(Iterator<Object> arguments, Types.NestedField column) {
    Object value = next(arguments);
    if (value == null) {
      throw new IllegalArgumentException(what() + " is null; pass an empty collection for no values");
    }
    Collection<?> values = value instanceof Collection<?> collection ? collection
        : ObjectUtils.isArray(value) ? List.of(ObjectUtils.toObjectArray(value)) : List.of(value);
    List<Object> literals = new ArrayList<>(values.size());
    for (Object element : values) {
      if (element == null) {
        throw new IllegalArgumentException(what() + " holds a null, which no value is in");
      }
      literals.add(literal(element, column));
    }
    return literals;
  }

  private Object literal(Object value, Types.NestedField column) {
    return this.literals.literal(value, column, what());
  }

  private String what() {
    return "argument " + this.argument + " of " + this.method;
  }
}
