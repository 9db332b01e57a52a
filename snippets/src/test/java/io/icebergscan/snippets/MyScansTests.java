package io.icebergscan.snippets;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@EmbeddedIcebergCatalogTest(branching = 8, depth = 2)
class MyScansTests {

  static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @Autowired ScanPlanner planner;            // the auto-configured planner, pointed at the embedded catalog
  EmbeddedIcebergCatalog catalog;            // injected: create namespaces, tables, files and deletes

  @Test
  void plansTheEventsTable() {
    this.catalog.createTable(TableIdentifier.of("db", "events"), SCHEMA).appendDataFiles(100);
    // the planner names tables with its own TableIdentifier, Apache Iceberg's catalog with Iceberg's
    assertThat(this.planner.plan(io.icebergscan.planning.model.TableIdentifier.of("db", "events")).tasks())
        .hasSize(100);
  }
}
