package io.icebergscan.snippets;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.TableSnapshot;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * docs/repositories.md's code, run: {@link OrderRepository}'s methods against the embedded catalog's
 * {@code sales.orders} (orders 1 and 2 in a first snapshot, 3 to 5 in a second), with {@link OrderConversions}' converter,
 * and {@link PlainSpringRepositories} in a context without Spring Boot.
 */
@SpringBootTest
@EmbeddedIcebergCatalogTest
class OrderRepositoryRunTests {

  private static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "order_id", Types.LongType.get()),
      Types.NestedField.required(2, "amount", Types.IntegerType.get()));

  EmbeddedIcebergCatalog catalog;

  @Autowired OrderRepository orders;
  @Autowired IcebergScanPlanner planner;

  private EmbeddedTable table;
  private long firstSnapshot;

  @BeforeEach
  void orders() {
    this.catalog.catalog().dropTable(ORDERS);
    this.table = this.catalog.createTable(ORDERS, SCHEMA);
    this.firstSnapshot = this.table.appendRows(FileFormat.PARQUET, List.of(this.table.newRecord(1L, 50),
        this.table.newRecord(2L, 70)));
    this.table.appendRows(FileFormat.PARQUET, List.of(this.table.newRecord(3L, 150), this.table.newRecord(4L, 300),
        this.table.newRecord(5L, 20)));
  }

  @Test
  void derivedQueriesFilterOnTheServerAndALimitBoundsTheRows() {
    assertThat(this.orders.findByAmountGreaterThan(100, Limit.unlimited())).extracting(Order::orderId)
        .containsExactlyInAnyOrder(3L, 4L);
    assertThat(this.orders.findByAmountGreaterThan(100, Limit.of(1))).hasSize(1);
    assertThat(this.orders.findTop3ByAmountLessThan(1_000)).hasSize(3);
    assertThat(this.orders.countByAmountGreaterThan(100)).isEqualTo(2);
    assertThat(this.orders.existsByOrderId(4)).isTrue();
    assertThat(this.orders.existsByOrderId(9)).isFalse();
  }

  @Test
  void aWindowPagesThroughEveryRowOnceWhileACommitLandsBetweenPages() {
    List<Long> paged = new ArrayList<>();
    Window<Order> window = this.orders.findByAmountGreaterThanEqual(0, IcebergScrollPosition.initial(), Limit.of(2));
    window.forEach(order -> paged.add(order.orderId()));
    this.table.appendRows(FileFormat.PARQUET, List.of(this.table.newRecord(6L, 10)));
    while (window.hasNext()) {
      // what a client hands back: the last row's position as a token
      String token = ((IcebergScrollPosition) window.positionAt(window.size() - 1)).toToken();
      window = this.orders.findByAmountGreaterThanEqual(0, IcebergScrollPosition.fromToken(token), Limit.of(2));
      window.forEach(order -> paged.add(order.orderId()));
    }
    assertThat(paged).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
  }

  @Test
  void projectionsReadTheirColumns() {
    assertThat(this.orders.findByOrderIdIn(List.of(1L, 4L))).containsExactlyInAnyOrder(new OrderRepository.OrderId(1),
        new OrderRepository.OrderId(4));
    assertThat(this.orders.findByAmountBetween(50, 150)).extracting(OrderRepository.Amount::getAmount)
        .containsExactlyInAnyOrder(50, 70, 150);
    assertThat(this.orders.findByOrderIdLessThan(3, OrderRepository.OrderId.class))
        .containsExactlyInAnyOrder(new OrderRepository.OrderId(1), new OrderRepository.OrderId(2));
    assertThat(this.orders.findByOrderIdLessThan(2, Order.class)).containsExactly(new Order(1, 50));
  }

  @Test
  void aTagOrASnapshotPinsWhatIsRead() {
    this.table.table().manageSnapshots().createTag("audited", this.firstSnapshot).commit();
    assertThat(this.orders.findAuditedByAmountGreaterThan(0)).extracting(Order::orderId)
        .containsExactlyInAnyOrder(1L, 2L);
    assertThat(this.orders.findByAmountGreaterThan(0, TableSnapshot.id(this.firstSnapshot)))
        .extracting(Order::orderId).containsExactlyInAnyOrder(1L, 2L);
    assertThat(this.orders.findByAmountGreaterThan(0, TableSnapshot.current())).hasSize(5);
  }

  @Test
  void anArgumentOfTheApplicationsOwnTypeGoesThroughItsConversionService() {
    assertThat(this.orders.findByAmountLessThanEqual(new OrderConversions.Cents(50))).extracting(Order::orderId)
        .containsExactlyInAnyOrder(1L, 5L);
  }

  @Test
  void enableIcebergRepositoriesMakesThemWithoutSpringBoot() {
    try (AnnotationConfigApplicationContext plain = new AnnotationConfigApplicationContext()) {
      plain.registerBean(IcebergScanPlanner.class, () -> this.planner);
      plain.register(PlainSpringRepositories.class);
      plain.refresh();
      assertThat(plain.getBean(OrderRepository.class).countByAmountGreaterThan(100)).isEqualTo(2);
    }
  }
}
