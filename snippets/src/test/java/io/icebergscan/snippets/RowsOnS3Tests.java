package io.icebergscan.snippets;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedS3;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RowsOnS3Tests {

  static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));

  @Test
  void aClientGivenOnlyTheCatalogsUriReadsTheRowsWithTheVendedCredentials() {
    try (EmbeddedS3 s3 = EmbeddedS3.create().start();
        EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(s3).start()) {
      catalog.vendedCredentials(request -> List.of(s3.vend(Duration.ofHours(1))));
      EmbeddedTable events = catalog.createTable(TableIdentifier.of("db", "events"), SCHEMA);
      events.appendRows(FileFormat.PARQUET, List.of(events.newRecord(1L, "one"), events.newRecord(2L, "two")));

      try (ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).build();
          IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build();
          ScanRows rows = iceberg.readRows(iceberg.loadTable(events.identifier()), IcebergScan.all())) {
        assertThat(rows).extracting(row -> row.getField("name")).containsExactly("one", "two");
      }
    }
  }
}
