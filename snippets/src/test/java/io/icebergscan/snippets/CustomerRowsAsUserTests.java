package io.icebergscan.snippets;

import java.util.List;

import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@SpringBootTest
@EmbeddedIcebergCatalogTest
@DirtiesContext // its catalog now knows principals, and refuses requests without their tokens
class CustomerRowsAsUserTests {

  EmbeddedIcebergCatalog catalog;
  @Autowired CustomerRowsAsUser customerRows;

  @BeforeEach
  void governedTable() {
    this.catalog.catalog().dropTable(CustomerRows.CUSTOMERS);
    EmbeddedTable customers = this.catalog.createTable(CustomerRows.CUSTOMERS, CustomerRowsTests.SCHEMA);
    customers.appendRows(FileFormat.AVRO, List.of(customers.newRecord(1L, "ada@example.com", "US"),
        customers.newRecord(2L, "grace@example.com", "DE")));
    // two principals the catalog knows by their tokens: alice sees the US rows masked, bob all of them raw
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token")
        .grant("alice", CustomerRows.CUSTOMERS, RestrictionPolicy.builder()
            .rowFilter(Expressions.equal("country", "US")).mask("email", "mask-alphanum").build())
        .grant("bob", CustomerRows.CUSTOMERS, RestrictionPolicy.json("{}"));
  }

  @Test
  void eachUserSeesWhatTheCatalogLetsThemSee() {
    assertThat(this.customerRows.visibleTo("alice-token")).singleElement()
        .satisfies(row -> assertThat(row.getField("email")).isEqualTo("xxx@xxxxxxx.xxx"));
    assertThat(this.customerRows.visibleTo("bob-token")).extracting(row -> row.getField("email"))
        .containsExactlyInAnyOrder("ada@example.com", "grace@example.com");
    // a token the catalog does not know: the catalog refuses the caller, 401
    assertThatThrownBy(() -> this.customerRows.visibleTo("carol-token"))
        .isInstanceOfSatisfying(CallerRefusedException.class,
            refused -> assertThat(refused.statusCode()).isEqualTo(401));
  }
}
