package io.icebergscan.planning.data;

import java.util.List;
import java.util.stream.Stream;

import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import org.springframework.data.repository.NoRepositoryBean;
import org.springframework.data.repository.Repository;

/**
 * A read-only repository of an {@link IcebergTable @IcebergTable} entity. Every call loads the table, plans a scan on
 * the catalog's server and reads the planned files, enforcing the table's read restrictions, as the caller when the
 * planner plans as its callers. Extend it and declare query methods ({@code findByStatusAndDayAfter(…)}): their
 * predicate is sent to the catalog as an Iceberg filter, and keywords Iceberg cannot evaluate fail at start-up.
 *
 * <p>Rows come in the plan's task order. A catalog need not order the tasks of two plans alike, so which rows a
 * {@link Limit} returns may differ from call to call; a {@link Window} does not depend on it.
 *
 * @param <T> the entity
 */
@NoRepositoryBean
public interface IcebergRepository<T> extends Repository<T, Void> {

  /** At most {@code limit} rows ({@link Limit#unlimited()} for all of them). */
  List<T> findAll(Limit limit);

  /**
   * Every row, read as the stream is consumed, with the table's files open until it is closed: use it in a
   * try-with-resources.
   */
  Stream<T> streamAll();

  /**
   * A window of at most {@code limit} rows from {@code position} on, in the order of data file and row position. The
   * first window pins the table's current snapshot; the positions of its rows read that snapshot on, so paging is
   * consistent while commits land.
   *
   * @throws ExpiredScrollPositionException when the position's snapshot has expired
   */
  Window<T> findAll(IcebergScrollPosition position, Limit limit);

  /** How many rows the table has, from the plan's record counts when they are exact, else by reading. */
  long count();
}
