package io.icebergscan.snippets;

import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/** WebFlux: nothing here blocks the request's thread, so no boundedElastic is needed. */
@RestController
class OrderStreamController {

  private final IcebergScanPlanner iceberg;

  OrderStreamController(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  @GetMapping(path = "/orders/big/stream", produces = { MediaType.APPLICATION_NDJSON_VALUE,
      MediaType.APPLICATION_JSON_VALUE })
  Flux<BigOrders.Order> bigOrders(@RequestParam(defaultValue = "100") long limit) {
    IcebergScan scan = IcebergScan.all().filter(Expressions.greaterThan("amount", 100));
    // sends nothing yet: on subscription the table is loaded and the rows read on the reading executor
    return this.iceberg.streamRows(TableIdentifier.parse("sales.orders"), scan, BigOrders.Order.class)
        .take(limit);   // after `limit` rows the read ends, its files close and its plan is abandoned
  }
}
