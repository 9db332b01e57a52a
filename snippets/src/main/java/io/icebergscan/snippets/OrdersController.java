package io.icebergscan.snippets;

import java.util.List;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** Spring MVC: a servlet thread may block, so the service's plain list is the answer, written by Jackson. */
@RestController
class OrdersController {

  private final BigOrders bigOrders;

  OrdersController(BigOrders bigOrders) {
    this.bigOrders = bigOrders;
  }

  @GetMapping("/orders/big")
  List<BigOrders.Order> bigOrders(@RequestParam(defaultValue = "100") int limit) {
    return this.bigOrders.first(limit);
  }
}
