package io.icebergscan.snippets;

import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.ReactiveIcebergRepository;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

interface ReactiveOrderRepository extends ReactiveIcebergRepository<Order> {

  // the same derived filter, pushed down alike; rows as the subscriber asks for them
  Flux<Order> findByAmountGreaterThan(int amount, Limit limit);

  Mono<Long> countByAmountGreaterThan(int amount);

  Mono<Boolean> existsByOrderId(long orderId);

  Mono<Window<Order>> findByAmountGreaterThanEqual(int amount, IcebergScrollPosition position, Limit limit);
}
