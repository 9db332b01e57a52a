package io.icebergscan.snippets;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.ScanPlanningCatalog;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The documentation's code, run: each snippet of {@code src/main} against the embedded catalog's {@code sales.orders},
 * two Parquet files of real rows: one of small orders, which a filter on big ones prunes, and one of big orders and
 * a small one, which the filter's residual drops as the rows are read.
 */
@SpringBootTest
@EmbeddedIcebergCatalogTest
@ExtendWith(OutputCaptureExtension.class)
class SnippetsRunTests {

  private static final Schema ORDERS = new Schema(Types.NestedField.required(1, "order_id", Types.LongType.get()),
      Types.NestedField.required(2, "amount", Types.IntegerType.get()));

  EmbeddedIcebergCatalog catalog;

  @Autowired ScanPlanner planner;
  @Autowired Scans scans;
  @Autowired OrderRows orderRows;
  @Autowired BigOrders bigOrders;
  @Autowired OrdersController ordersController;
  @Autowired OrderStreamController orderStreamController;
  @Autowired JsonMapper json;
  @Autowired ScanPlanningCatalog lake;

  private String bigOrdersFile;

  /**
   * The table afresh for each test: the context's catalog is shared with the other test classes of the same
   * configuration. Small orders appended first, then big ones with a small one.
   */
  @BeforeEach
  void orders() {
    TableIdentifier name = TableIdentifier.of("sales", "orders");
    this.catalog.catalog().dropTable(name);
    EmbeddedTable table = this.catalog.createTable(name, ORDERS);
    table.appendRows(FileFormat.PARQUET, List.of(table.newRecord(1L, 50), table.newRecord(2L, 70)));
    List<DataFile> big = table.writeRows(FileFormat.PARQUET, List.of(table.newRecord(3L, 150),
        table.newRecord(4L, 300), table.newRecord(5L, 20)));
    table.append(big);
    this.bigOrdersFile = big.get(0).location();
  }

  @Test
  void theReadmesServicePlansOnlyTheFileOfBigOrders() {
    String big = this.bigOrdersFile;
    List<FileScanTask> tasks = this.scans.bigOrders();
    assertThat(tasks).extracting(task -> task.dataFile().filePath()).containsExactly(big);
  }

  @Test
  void theReadmesPlainJavaPlansAndStreamsTheTasks(CapturedOutput output) {
    String big = this.bigOrdersFile;
    PlanOrders.planOrders(this.catalog.uri());
    assertThat(output.getOut()).contains("2 tasks, ").contains(big);
  }

  @Test
  void theConfigurationGuidesServiceReadsEveryRow() {
    assertThat(this.orderRows.all()).extracting(row -> row.getField("order_id"), row -> row.getField("amount"))
        .containsExactlyInAnyOrder(tuple(1L, 50), tuple(2L, 70), tuple(3L, 150), tuple(4L, 300),
            tuple(5L, 20));
  }

  @Test
  void theReadingGuidesCodeReadsTheBigOrdersThreeWays(CapturedOutput output) {
    List<Record> reactive = ReadOrders.read(this.planner).collectList().block();
    assertThat(reactive).extracting(row -> row.getField("order_id")).containsExactlyInAnyOrder(3L, 4L);
    assertThat(output.getOut()).contains("1 tasks in 1 splits")
        .contains("ScanSummary[tasks=1, dataFiles=1, dataFileBytes=").contains("dataFileRecords=3, deleteFiles=0]");
  }

  @Test
  void theReadingGuidesRecordsAreTheFirstBigOrders() {
    assertThat(this.bigOrders.first(1)).containsExactly(new BigOrders.Order(3L, 150));
    assertThat(this.bigOrders.first(5)).containsExactly(new BigOrders.Order(3L, 150), new BigOrders.Order(4L, 300));
  }

  @Test
  void theMvcControllersAnswerIsTheRecordsAsJson() {
    assertThat(this.json.writeValueAsString(this.ordersController.bigOrders(1)))
        .isEqualTo("[{\"orderId\":3,\"amount\":150}]");
  }

  /** Subscribed on a non-blocking thread, as WebFlux subscribes on its event loop, where a blocking load fails. */
  @Test
  void theWebFluxControllersRecordsAreTheBigOrdersReadOffANonBlockingThread() {
    assertThat(Mono.defer(() -> this.orderStreamController.bigOrders(100).collectList())
        .subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
        .containsExactly(new BigOrders.Order(3L, 150), new BigOrders.Order(4L, 300));
    assertThat(Mono.defer(() -> this.orderStreamController.bigOrders(1).collectList())
        .subscribeOn(Schedulers.parallel()).block(Duration.ofSeconds(30)))
        .containsExactly(new BigOrders.Order(3L, 150));
  }

  @Test
  void theEnginesGuidesCatalogPlansWithTheApplicationsPlanner() throws Exception {
    String big = this.bigOrdersFile;
    try (CloseableIterable<org.apache.iceberg.FileScanTask> tasks = this.lake.loadTable(TableIdentifier.of("sales",
        "orders")).newScan().filter(Expressions.greaterThan("amount", 100)).planFiles()) {
      assertThat(tasks).extracting(task -> task.file().location()).containsExactly(big);
    }
  }
}
