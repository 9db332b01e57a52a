package io.icebergscan.examples;

import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.IcebergScrollPosition;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;

/**
 * The demo events, by day: each query method's predicate goes to the catalog as an Iceberg filter
 * ({@code day == '2026-11-04'}), which plans only that day's partition. Made by the starter's auto-configuration.
 */
interface EventRepository extends IcebergRepository<Event> {

  /** At most {@code limit} events of {@code day}, in the plan's order: which ones may differ from call to call. */
  List<Event> findByDay(String day, Limit limit);

  /** The events of {@code day} after {@code position}, in the order of data file and row, on a pinned snapshot. */
  Window<Event> findByDay(String day, IcebergScrollPosition position, Limit limit);

  /** How many events {@code day} has: from the plan's record counts where they are exact. */
  long countByDay(String day);
}
