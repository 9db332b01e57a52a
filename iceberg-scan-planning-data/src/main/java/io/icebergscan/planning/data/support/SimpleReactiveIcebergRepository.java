package io.icebergscan.planning.data.support;

import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.ReactiveIcebergRepository;
import io.icebergscan.planning.data.TableSnapshot;
import org.apache.iceberg.expressions.Expressions;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The methods every {@link ReactiveIcebergRepository} has, over {@link TableReads}: each subscription loads the table
 * on the planner's reading executor ({@link TableReads#callReactively}) and reads from there.
 *
 * @param <T> the entity
 */
public class SimpleReactiveIcebergRepository<T> implements ReactiveIcebergRepository<T> {

  private final TableReads<T> reads;
  private final TableReads.Shape<T> entities;

  public SimpleReactiveIcebergRepository(TableReads<T> reads) {
    this.reads = reads;
    this.entities = TableReads.Shape.entity(reads.entity().getJavaType());
  }

  @Override
  public Flux<T> findAll(Limit limit) {
    long max = limit.isLimited() ? limit.max() : Long.MAX_VALUE;
    return current().flatMapMany(call -> call.flux(Expressions.alwaysTrue(), this.entities, max));
  }

  @Override
  public Flux<T> findAll() {
    return findAll(Limit.unlimited());
  }

  @Override
  public Mono<Window<T>> findAll(IcebergScrollPosition position, Limit limit) {
    long max = limit.isLimited() ? limit.max() : Long.MAX_VALUE;
    return current().map(call -> call.window(Expressions.alwaysTrue(), this.entities, position, max));
  }

  @Override
  public Mono<Long> count() {
    return current().flatMap(call -> call.countReactively(Expressions.alwaysTrue()));
  }

  private Mono<TableReads<T>.Call> current() {
    return this.reads.callReactively(TableSnapshot.current());
  }
}
