package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.http.MediaType;
import org.springframework.test.web.servlet.client.RestTestClient;

/** The application on a random port, its planner on the embedded catalog, asked over HTTP as a client asks it. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT,
    properties = "iceberg.rest.scan-planning.problem-details.enabled=true")
@EmbeddedIcebergCatalogTest
class OrdersControllerTests {

  EmbeddedIcebergCatalog catalog;
  @LocalServerPort int port;

  RestTestClient http;

  @BeforeEach
  void freshTable() {
    this.http = RestTestClient.bindToServer().baseUrl("http://localhost:" + this.port).build();
    // the table of OrderRowsTests above: sales.orders, order_id and amount
    this.catalog.catalog().dropTable(OrderRowsTests.ORDERS);
    EmbeddedTable orders = this.catalog.createTable(OrderRowsTests.ORDERS, OrderRowsTests.SCHEMA);
    orders.appendRows(FileFormat.PARQUET, List.of(orders.newRecord(1L, 50), orders.newRecord(2L, 150),
        orders.newRecord(3L, 300)));
  }

  @Test
  void answersTheBigOrdersAsJson() {
    this.http.get().uri("/orders/big?limit=10").exchange()
        .expectStatus().isOk()
        .expectBody().json("[{\"orderId\":2,\"amount\":150},{\"orderId\":3,\"amount\":300}]");
  }

  @Test
  void aTableTheCatalogLacksIsA404Problem() {
    this.catalog.catalog().dropTable(OrderRowsTests.ORDERS);

    this.http.get().uri("/orders/big").exchange()
        .expectStatus().isNotFound()
        .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
        .expectBody().jsonPath("$.detail").isEqualTo("No such table");
  }
}
