package io.icebergscan.planning.data.support;

import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

import io.icebergscan.planning.data.IcebergScrollPosition;
import org.apache.iceberg.expressions.Expression;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.ScrollPosition;
import org.springframework.data.domain.Sort;
import org.springframework.data.core.PropertyPath;
import org.springframework.data.repository.query.ParametersParameterAccessor;
import org.springframework.data.repository.query.QueryCreationException;
import org.springframework.data.repository.query.RepositoryQuery;
import org.springframework.data.repository.query.ResultProcessor;
import org.springframework.data.repository.query.ReturnedType;
import org.springframework.data.repository.query.parser.Part;
import org.springframework.data.repository.query.parser.PartTree;
import org.springframework.data.core.ReactiveWrappers;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A query method derived from its name ({@code findTop10ByKindAndDayAfter}): checked once, when the repository is
 * made, so that a keyword Iceberg cannot evaluate on the server fails start-up naming the method and the keyword;
 * then, per call, its predicate becomes an Iceberg filter over the call's schema and the rows are read through
 * {@link TableReads}. A method that returns {@code Flux} or {@code Mono} reads reactively: per subscription, on the
 * planner's reading executor, never on the subscriber's thread.
 */
final class PartTreeIcebergQuery implements RepositoryQuery {

  /** Why each keyword Iceberg's filters lack is refused, for the start-up error. */
  private static final Map<Part.Type, String> REFUSED = Map.ofEntries(
      Map.entry(Part.Type.LIKE, "Like"), Map.entry(Part.Type.NOT_LIKE, "NotLike"),
      Map.entry(Part.Type.ENDING_WITH, "EndingWith"), Map.entry(Part.Type.CONTAINING, "Containing"),
      Map.entry(Part.Type.NOT_CONTAINING, "NotContaining"), Map.entry(Part.Type.REGEX, "Regex"),
      Map.entry(Part.Type.IS_EMPTY, "IsEmpty"), Map.entry(Part.Type.IS_NOT_EMPTY, "IsNotEmpty"),
      Map.entry(Part.Type.NEAR, "Near"), Map.entry(Part.Type.WITHIN, "Within"), Map.entry(Part.Type.EXISTS, "Exists"));

  private static final String SERVER = ": Apache Iceberg's filters cannot evaluate it, so the catalog could not plan "
      + "with it";

  private final IcebergQueryMethod method;
  private final PartTree tree;
  private final TableReads<?> reads;
  private final IcebergLiterals literals;
  private final String name;
  private final Map<Class<?>, TableReads.Shape<Object>> shapes = new ConcurrentHashMap<>();
  /** How the method returns its rows: blocking, as a {@code Flux}, or as a {@code Mono}. */
  private final Returns returns;

  private enum Returns { BLOCKING, FLUX, MONO }

  PartTreeIcebergQuery(IcebergQueryMethod method, TableReads<?> reads, IcebergLiterals literals) {
    this.method = method;
    this.reads = reads;
    this.literals = literals;
    Method javaMethod = method.method();
    this.name = javaMethod.getDeclaringClass().getSimpleName() + "." + javaMethod.getName() + "("
        + Arrays.stream(javaMethod.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", "))
        + ")";
    try {
      this.tree = new PartTree(javaMethod.getName(), reads.entity().getJavaType());
    }
    catch (RuntimeException notDerivable) {
      throw QueryCreationException.create(method, this.name + " is not a query Iceberg repositories can derive: "
          + notDerivable.getMessage(), notDerivable);
    }
    this.returns = returns(javaMethod.getReturnType());
    check();
  }

  private Returns returns(Class<?> type) {
    if (!ReactiveWrappers.supports(type)) {
      return Returns.BLOCKING;
    }
    if (type.equals(Mono.class)) {
      return Returns.MONO;
    }
    if (type.isAssignableFrom(Flux.class)) {
      return Returns.FLUX;
    }
    throw QueryCreationException.create(this.method, this.name + " returns " + type.getSimpleName() + ": a reactive "
        + "Iceberg query method returns a Flux or a Mono");
  }

  /** Refuses what Iceberg cannot do on the server, naming the method and the keyword. */
  private void check() {
    for (Part part : this.tree.getParts()) {
      String refused = REFUSED.get(part.getType());
      if (refused != null) {
        throw refuse(refused, SERVER);
      }
      if (part.shouldIgnoreCase() != Part.IgnoreCaseType.NEVER) {
        throw refuse("IgnoreCase", ": Apache Iceberg's filters compare strings as they are");
      }
    }
    if (this.tree.isDelete()) {
      throw refuse("delete", ": Iceberg repositories are read-only");
    }
    if (this.tree.isDistinct()) {
      throw refuse("Distinct", ": the catalog plans files, not distinct rows");
    }
    if (this.tree.getSort().isSorted()) {
      throw refuse("OrderBy", ": rows come in the plan's order, and a sort would read every row first; use a Window "
          + "for a stable order");
    }
    for (Class<?> type : this.method.method().getParameterTypes()) {
      if (ReactiveWrappers.supports(type)) {
        throw refuse(type.getSimpleName() + " parameter", ": pass the value itself; a reactive query method waits "
            + "for nothing before it loads the table");
      }
      if (Sort.class.isAssignableFrom(type) || Pageable.class.isAssignableFrom(type)) {
        throw refuse(type.getSimpleName() + " parameter", ": rows come in the plan's order; page with a Window and "
            + "an IcebergScrollPosition, or bound the rows with a Limit");
      }
    }
    if (this.method.isPageQuery() || this.method.isSliceQuery()) {
      throw refuse("Page or Slice result", ": page with a Window and an IcebergScrollPosition");
    }
    ReturnedType returned = this.method.getResultProcessor().getReturnedType();
    for (String property : returned.getInputProperties()) {
      try {
        PropertyPath.from(property, this.reads.entity().getJavaType());
      }
      catch (RuntimeException noSuchProperty) {
        throw QueryCreationException.create(this.method, this.name + " returns " + returned.getReturnedType()
            .getSimpleName() + ", whose property '" + property + "' the entity lacks", noSuchProperty);
      }
    }
  }

  private QueryCreationException refuse(String keyword, String why) {
    return QueryCreationException.create(this.method, this.name + " uses " + keyword + ", which Iceberg repositories "
        + "refuse" + why);
  }

  @Override
  public @Nullable Object execute(Object[] arguments) {
    if (this.returns != Returns.BLOCKING) {
      return executeReactively(arguments);
    }
    ParametersParameterAccessor accessor = new ParametersParameterAccessor(this.method.getParameters(), arguments);
    TableReads<?>.Call call = this.reads.call(this.method.snapshot(arguments));
    Expression filter = filter(call, accessor);
    if (this.tree.isCountProjection()) {
      return call.count(filter);
    }
    if (this.tree.isExistsProjection()) {
      return call.exists(filter);
    }
    ResultProcessor processor = this.method.getResultProcessor().withDynamicProjection(accessor);
    TableReads.Shape<Object> shape = shape(processor);
    long limit = limit(accessor.getLimit());
    if (this.method.isScrollQuery()) {
      return call.window(filter, shape, position(accessor.getScrollPosition()), limit);
    }
    if (this.method.isStreamQuery()) {
      return call.stream(filter, shape, limit);
    }
    if (this.method.isCollectionQuery()) {
      return call.list(filter, shape, limit);
    }
    return single(call.list(filter, shape, Math.min(limit, 2)));
  }

  /**
   * The same reads as a {@code Flux} or a {@code Mono}: the table is loaded per subscription on the planner's reading
   * executor, and the call's blocking work (a window, a count's plan) runs there, where it arrives.
   */
  private Object executeReactively(Object[] arguments) {
    ParametersParameterAccessor accessor = new ParametersParameterAccessor(this.method.getParameters(), arguments);
    Mono<? extends TableReads<?>.Call> calls = this.reads.callReactively(this.method.snapshot(arguments));
    if (this.tree.isCountProjection()) {
      return calls.flatMap(call -> call.countReactively(filter(call, accessor)));
    }
    if (this.tree.isExistsProjection()) {
      return calls.flatMap(call -> call.existsReactively(filter(call, accessor)));
    }
    ResultProcessor processor = this.method.getResultProcessor().withDynamicProjection(accessor);
    TableReads.Shape<Object> shape = shape(processor);
    long limit = limit(accessor.getLimit());
    if (this.method.isScrollQuery()) {
      IcebergScrollPosition position = position(accessor.getScrollPosition());
      return calls.map(call -> call.window(filter(call, accessor), shape, position, limit));
    }
    if (this.returns == Returns.FLUX) {
      return calls.flatMapMany(call -> call.flux(filter(call, accessor), shape, limit));
    }
    return calls.flatMap(call -> call.flux(filter(call, accessor), shape, Math.min(limit, 2)).collectList())
        .flatMap(rows -> Mono.justOrEmpty(single(rows)));
  }

  private Expression filter(TableReads<?>.Call call, ParametersParameterAccessor accessor) {
    return new IcebergQueryCreator(this.tree, accessor, call, this.literals, this.name).createQuery();
  }

  /** The one row of at most two read, or none. */
  private @Nullable Object single(List<Object> rows) {
    if (rows.size() > 1) {
      throw new IllegalStateException(this.name + " returns one row, but more than one matches; bound it with First "
          + "or Top, or return a List");
    }
    return rows.isEmpty() ? null : rows.get(0);
  }

  /** The rows the call may return: the method name's {@code Top n} and the {@code Limit} argument, whichever is less. */
  private long limit(Limit argument) {
    long limit = argument.isLimited() ? argument.max() : Long.MAX_VALUE;
    Integer named = this.tree.getMaxResults();
    return named == null ? limit : Math.min(limit, named);
  }

  private static IcebergScrollPosition position(@Nullable ScrollPosition position) {
    if (position == null) {
      return IcebergScrollPosition.initial();
    }
    if (position instanceof IcebergScrollPosition iceberg) {
      return iceberg;
    }
    if (position.isInitial()) {
      return IcebergScrollPosition.initial();
    }
    throw new IllegalArgumentException("an Iceberg repository scrolls with an IcebergScrollPosition, not a "
        + position.getClass().getSimpleName() + ": rows have no offset or key a catalog plans by");
  }

  /**
   * The columns the result needs, and how an entity read with them becomes it: worked out once per returned type (a
   * dynamic projection's type is the call's), not on every call.
   */
  private TableReads.Shape<Object> shape(ResultProcessor processor) {
    return this.shapes.computeIfAbsent(processor.getReturnedType().getReturnedType(), type -> shapeOf(processor));
  }

  private static TableReads.Shape<Object> shapeOf(ResultProcessor processor) {
    ReturnedType returned = processor.getReturnedType();
    if (!returned.isProjecting()) {
      return new TableReads.Shape<>(null, entity -> entity);
    }
    List<String> properties = returned.getInputProperties().isEmpty() ? null : returned.getInputProperties();
    if (returned.getReturnedType().isInterface()) {
      return new TableReads.Shape<>(properties, processor::processResult);
    }
    return new TableReads.Shape<>(properties, Dtos.of(returned.getReturnedType())::apply);
  }

  @Override
  public IcebergQueryMethod getQueryMethod() {
    return this.method;
  }
}
