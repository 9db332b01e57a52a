package io.icebergscan.snippets;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.MappedRows;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.springframework.stereotype.Service;

@Service
class BigOrders {

  /** Columns by name: orderId from order_id, amount from amount. */
  record Order(long orderId, int amount) {
  }

  private final IcebergScanPlanner iceberg;

  BigOrders(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  List<Order> first(int count) {
    IcebergTable table = this.iceberg.loadTable(TableIdentifier.parse("sales.orders"));
    IcebergScan scan = IcebergScan.all().filter(Expressions.greaterThan("amount", 100));
    List<Order> orders = new ArrayList<>();
    // checked against the columns before anything is read; the plan is abandoned after `count` rows
    try (MappedRows<Order> rows = this.iceberg.readRows(table, scan, Order.class).limit(count)) {
      rows.forEach(orders::add);
    }
    return orders;
  }
}
