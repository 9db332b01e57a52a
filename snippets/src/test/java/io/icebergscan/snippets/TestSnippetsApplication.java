package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalogConfiguration;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogSeed;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;

/** The application on an embedded catalog with a seeded table: run this main, or mvn spring-boot:test-run. */
public class TestSnippetsApplication {

  public static void main(String[] args) {
    SpringApplication.from(SnippetsApplication::main).with(DevCatalog.class).run(args);
  }

  @TestConfiguration(proxyBeanMethods = false)
  @Import(EmbeddedIcebergCatalogConfiguration.class)
  static class DevCatalog {

    static final Schema ORDERS = new Schema(
        Types.NestedField.required(1, "order_id", Types.LongType.get()),
        Types.NestedField.required(2, "amount", Types.IntegerType.get()));

    @Bean
    EmbeddedIcebergCatalogSeed orders() {
      return catalog -> {
        EmbeddedTable orders = catalog.createTable(TableIdentifier.of("sales", "orders"), ORDERS);
        orders.appendRows(FileFormat.PARQUET, List.of(orders.newRecord(1L, 50), orders.newRecord(2L, 150)));
      };
    }
  }
}
