package io.icebergscan.snippets;

import io.icebergscan.planning.data.IcebergTable;

/** A row of sales.orders: orderId maps the column order_id (snake case), amount the column amount. */
@IcebergTable("sales.orders")
record Order(long orderId, int amount) {
}
