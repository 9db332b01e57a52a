package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

@SpringBootTest
@EmbeddedIcebergCatalogTest
class CustomerRowsTests {

  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.required(3, "country", Types.StringType.get()));

  EmbeddedIcebergCatalog catalog;
  @Autowired CustomerRows customerRows;

  @BeforeEach
  void governedTable() {
    this.catalog.catalog().dropTable(CustomerRows.CUSTOMERS);
    EmbeddedTable customers = this.catalog.createTable(CustomerRows.CUSTOMERS, SCHEMA);
    customers.appendRows(FileFormat.AVRO, List.of(customers.newRecord(1L, "ada@example.com", "US"),
        customers.newRecord(2L, "grace@example.com", "DE")));
    // the catalog governs it: one country's rows, the email masked, sent with every load of the table
    this.catalog.readRestrictions(CustomerRows.CUSTOMERS, RestrictionPolicy.builder()
        .rowFilter(Expressions.equal("country", "US"))
        .mask("email", "mask-alphanum")
        .build());
  }

  @Test
  void seesTheRowFiltersRowsMasked() {
    assertThat(this.customerRows.visible()).singleElement()
        .satisfies(row -> assertThat(row.getField("email")).isEqualTo("xxx@xxxxxxx.xxx"));
  }
}
