package io.icebergscan.planning.data;

import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A read-only reactive repository of an {@link IcebergTable @IcebergTable} entity, for a WebFlux application: what
 * {@link IcebergRepository} reads, as {@code Flux} and {@code Mono}, safe to subscribe to on a non-blocking thread.
 * Each subscription loads the table, plans and reads on the planner's reading executor, as the caller found on the
 * calling thread when the method is called, else in the subscriber's context, when the planner plans as its callers.
 * Rows arrive as the subscriber asks for them; cancelling a {@code Flux} (or a {@code take(n)}) ends its read and
 * closes its files. Query methods return {@code Flux} for rows, {@code Mono} for one row, a count, an existence or a
 * {@link Window}, and are derived and refused as {@link IcebergRepository}'s are.
 *
 * @param <T> the entity
 */
@NoRepositoryBean
public interface ReactiveIcebergRepository<T> extends Repository<T, Void> {

  /** At most {@code limit} rows ({@link Limit#unlimited()} for all of them). */
  Flux<T> findAll(Limit limit);

  /** Every row, read as the subscriber asks for them. */
  Flux<T> findAll();

  /**
   * A window of at most {@code limit} rows from {@code position} on, as {@link IcebergRepository#findAll(
   * IcebergScrollPosition, Limit)} pages: in the order of data file and row position, from the snapshot the first
   * window pinned. Fails with an {@link ExpiredScrollPositionException} when the position's snapshot has expired.
   */
  Mono<Window<T>> findAll(IcebergScrollPosition position, Limit limit);

  /** How many rows the table has, from the plan's record counts when they are exact, else by reading. */
  Mono<Long> count();
}
