package io.icebergscan.snippets;

import java.util.Collection;
import java.util.List;

import io.icebergscan.planning.data.AtSnapshot;
import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.TableSnapshot;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;

interface OrderRepository extends IcebergRepository<Order> {

  // amount > :amount, sent to the catalog as the plan's filter
  List<Order> findByAmountGreaterThan(int amount, Limit limit);

  // the first 3 in plan order: which 3 may differ from call to call
  List<Order> findTop3ByAmountLessThan(int amount);

  // a window, in the order of data file and row position, on the snapshot the first window read
  Window<Order> findByAmountGreaterThanEqual(int amount, IcebergScrollPosition position, Limit limit);

  long countByAmountGreaterThan(int amount);

  boolean existsByOrderId(long orderId);

  // a DTO projection: only order_id is read
  List<OrderId> findByOrderIdIn(Collection<Long> orderIds);

  // a closed interface projection: only amount is read
  List<Amount> findByAmountBetween(int from, int to);

  // a dynamic projection: the caller picks the type, which picks the columns
  <P> List<P> findByOrderIdLessThan(long orderId, Class<P> type);

  // time travel: the snapshot the tag "audited" names, read with that snapshot's schema
  @AtSnapshot(ref = "audited")
  List<Order> findAuditedByAmountGreaterThan(int amount);

  // or a snapshot per call: TableSnapshot.id(…), .ref(…), .asOf(Instant)
  List<Order> findByAmountGreaterThan(int amount, TableSnapshot snapshot);

  // an argument of the application's own type, converted by its IcebergConversionService (OrderConversions)
  List<Order> findByAmountLessThanEqual(OrderConversions.Cents amount);

  record OrderId(long orderId) {
  }

  interface Amount {

    int getAmount();
  }
}
