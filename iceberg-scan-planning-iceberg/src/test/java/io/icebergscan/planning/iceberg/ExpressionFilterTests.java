package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Iceberg expressions as filters, checked against Apache Iceberg's server: unbound and bound ones mean the same,
 * and prune the same partitions as the core's {@link RowFilter} for the same condition.
 */
class ExpressionFilterTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()));

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static IcebergTable table;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    EmbeddedTable events = catalog.createTable(TableIdentifier.of("filters", "events"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 30; id++) {
      rows.add(events.newRecord(id, LocalDate.of(2026, 11, 1 + (int) (id % 5))));
    }
    events.appendRows(FileFormat.AVRO, rows);
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).scanReports(false).build();
    table = iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of("filters", "events"));
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @Test
  void unboundAndBoundExpressionsMeanWhatTheCoresRowFilterMeans() {
    Expression unbound = Expressions.and(Expressions.greaterThanOrEqual("id", 10L),
        Expressions.equal("day", "2026-11-03"));
    Expression bound = Binder.bind(SCHEMA.asStruct(), unbound, true);
    RowFilter typed = RowFilter.and(RowFilter.greaterThanOrEqual("id", 10L),
        RowFilter.equal("day", LocalDate.of(2026, 11, 3)));

    List<Long> fromUnbound = ids(IcebergScan.all().filter(unbound));
    assertThat(fromUnbound).containsExactlyInAnyOrder(12L, 17L, 22L, 27L);
    assertThat(ids(IcebergScan.all().filter(bound))).containsExactlyInAnyOrderElementsOf(fromUnbound);
    // the server pruned by the partition: one day's file was planned, for the expression and the core's filter alike
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all().filter(bound))) {
      assertThat(plan.tasks()).hasSize(1);
    }
    assertThat(planner.plan(table.catalogIdentifier(), ScanRequest.builder().filter(typed).build()).tasks())
        .hasSize(1);
  }

  @Test
  void filtersAreAndedAsIcebergsScansAndThem() {
    IcebergScan scan = IcebergScan.all().filter(Expressions.greaterThanOrEqual("id", 10L))
        .filter(Expressions.equal("day", "2026-11-03"));
    assertThat(scan.filter().toString()).isEqualTo(Expressions.and(Expressions.greaterThanOrEqual("id", 10L),
        Expressions.equal("day", "2026-11-03")).toString());
    assertThat(ids(scan)).containsExactlyInAnyOrder(12L, 17L, 22L, 27L);
  }

  @Test
  void aNullFilterIsRefused() {
    assertThatThrownBy(() -> IcebergScan.all().filter(null)).isInstanceOf(NullPointerException.class)
        .hasMessageContaining("filter");
  }

  private static List<Long> ids(IcebergScan request) {
    try (IcebergScanPlan plan = iceberg.plan(table, request); CloseableIterable<Record> rows = plan.rows()) {
      List<Long> ids = new ArrayList<>();
      rows.forEach(row -> ids.add((Long) row.getField("id")));
      return ids;
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }
}
