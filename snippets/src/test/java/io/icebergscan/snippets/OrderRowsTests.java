package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@EmbeddedIcebergCatalogTest
class OrderRowsTests {

  static final TableIdentifier ORDERS = TableIdentifier.of("sales", "orders");
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "order_id", Types.LongType.get()),
      Types.NestedField.required(2, "amount", Types.IntegerType.get()));

  EmbeddedIcebergCatalog catalog;   // injected by @EmbeddedIcebergCatalogTest: no @Autowired needed
  @Autowired OrderRows orderRows;   // the application's own service, over the auto-configured planners

  EmbeddedTable orders;

  /** Test classes with the same configuration share the context, so its catalog: each test starts afresh. */
  @BeforeEach
  void freshTable() {
    this.catalog.catalog().dropTable(ORDERS);
    this.orders = this.catalog.createTable(ORDERS, SCHEMA, PartitionSpec.unpartitioned(), 2);
  }

  @Test
  void readsEveryOrderOfBothFilesButTheDeletedOne() {
    // real files: a Parquet one, an Avro one, and a position delete of the Parquet file's second row
    List<DataFile> parquet = this.orders.writeRows(FileFormat.PARQUET,
        List.of(this.orders.newRecord(1L, 50), this.orders.newRecord(2L, 70)));
    this.orders.append(parquet);
    this.orders.appendRows(FileFormat.AVRO, List.of(this.orders.newRecord(3L, 150)));
    this.orders.addDeletes(this.orders.writePositionDeletes(FileFormat.PARQUET, parquet.get(0), 1));

    assertThat(this.orderRows.all()).extracting(row -> row.getField("order_id"))
        .containsExactlyInAnyOrder(1L, 3L);
  }
}
