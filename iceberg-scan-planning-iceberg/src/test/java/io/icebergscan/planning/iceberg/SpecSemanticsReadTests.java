package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every predicate is evaluated with the expressions spec's semantics, on unrestricted tables too, where Apache
 * Iceberg's own reader departs from it: {@code x < v} leaves a null {@code x} out, {@code x > v} a NaN, and their
 * negations keep them; in the scan's filter, in a catalog's row filter, and whatever the task's residual says. Each
 * test reads real files from Apache Iceberg's server, and shows Iceberg's {@code IcebergGenerics} giving the other
 * answer on the same table.
 */
class SpecSemanticsReadTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "score", Types.DoubleType.get()),
      Types.NestedField.optional(3, "part", Types.IntegerType.get()),
      Types.NestedField.optional(4, "key", Types.UUIDType.get()));
  private static final UUID HIGH = UUID.fromString("ffffffff-0000-0000-0000-000000000000");
  private static final UUID LOW = UUID.fromString("00000000-0000-0000-0000-000000000001");
  private static final String FILTERED = "filtered-token";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static EmbeddedTable avro;
  private static EmbeddedTable parquet;
  private static EmbeddedTable nullsOnly;
  private static EmbeddedTable negativeZero;
  private static EmbeddedTable byPart;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    avro = table("scores_avro", PartitionSpec.unpartitioned(), FileFormat.AVRO);
    parquet = table("scores_parquet", PartitionSpec.unpartitioned(), FileFormat.PARQUET);
    // a Parquet file whose scores are all null: its row group's statistics say so
    nullsOnly = catalog.createTable(TableIdentifier.of("semantics", "null_scores"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    nullsOnly.appendRows(FileFormat.PARQUET, List.of(nullsOnly.newRecord(10L, null, 1, null),
        nullsOnly.newRecord(11L, null, 1, null)));
    byPart = table("by_part", PartitionSpec.builderFor(SCHEMA).identity("part").build(), FileFormat.AVRO);
    // a Parquet file whose one score is -0.0: its statistics' bounds are -0.0, which Iceberg orders below 0.0
    negativeZero = catalog.createTable(TableIdentifier.of("semantics", "negative_zero"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    negativeZero.appendRows(FileFormat.PARQUET, List.of(negativeZero.newRecord(30L, -0.0, 1, null)));
    for (EmbeddedTable table : List.of(avro, parquet)) {
      catalog.readRestrictions(table.identifier(), FILTERED, RestrictionPolicy.builder()
          .rowFilter(Expressions.lessThan("score", 3.0)).build());
    }
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).scanReports(false).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  /** Ids 1 to 5: a null score, a NaN, 1.0, 5.0 and 2.0; a null partition for id 1, else 1 or 7; UUIDs high and low. */
  private static EmbeddedTable table(String name, PartitionSpec spec, FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of("semantics", name), SCHEMA, spec, 2);
    table.appendRows(format, List.of(table.newRecord(1L, null, null, HIGH),
        table.newRecord(2L, Double.NaN, 1, LOW),
        table.newRecord(3L, 1.0, 1, null),
        table.newRecord(4L, 5.0, 7, HIGH),
        table.newRecord(5L, 2.0, 7, LOW)));
    return table;
  }

  enum Format {
    AVRO, PARQUET
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void aRangeComparisonIsFalseForNullAndNaNAndItsNegationTrue(Format format) {
    EmbeddedTable table = format == Format.AVRO ? avro : parquet;
    assertThat(ids(table, Expressions.lessThan("score", 3.0))).containsExactlyInAnyOrder(3L, 5L);
    assertThat(icebergIds(table, Expressions.lessThan("score", 3.0))).as("Iceberg keeps the null")
        .containsExactlyInAnyOrder(1L, 3L, 5L);
    assertThat(ids(table, Expressions.lessThanOrEqual("score", 2.0))).containsExactlyInAnyOrder(3L, 5L);
    assertThat(ids(table, Expressions.greaterThan("score", 1.5))).containsExactlyInAnyOrder(4L, 5L);
    assertThat(icebergIds(table, Expressions.greaterThan("score", 1.5))).as("Iceberg keeps the NaN")
        .containsExactlyInAnyOrder(2L, 4L, 5L);
    assertThat(ids(table, Expressions.greaterThanOrEqual("score", 5.0))).containsExactly(4L);
    assertThat(ids(table, Expressions.not(Expressions.lessThan("score", 3.0))))
        .containsExactlyInAnyOrder(1L, 2L, 4L);
    assertThat(icebergIds(table, Expressions.not(Expressions.lessThan("score", 3.0))))
        .as("Iceberg drops the null the spec keeps").containsExactlyInAnyOrder(2L, 4L);
    assertThat(ids(table, Expressions.notEqual("score", 1.0))).containsExactlyInAnyOrder(1L, 2L, 4L, 5L);
    // above an int's range: Iceberg's Binder makes part < v true, nulls and all
    assertThat(ids(table, Expressions.lessThan("part", 3_000_000_000L))).containsExactlyInAnyOrder(2L, 3L, 4L, 5L);
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void aCatalogsRowFilterIsEvaluatedWithTheSpecsSemantics(Format format) {
    EmbeddedTable table = format == Format.AVRO ? avro : parquet;
    try (ScanPlanner filtered = ScanPlanner.builder().uri(catalog.uri()).header("Authorization", "Bearer " + FILTERED)
        .build(); IcebergScanPlanner reader = IcebergScanPlanner.builder(filtered).scanReports(false).build()) {
      IcebergTable loaded = reader.loadTable(table.identifier());
      try (ScanRows rows = reader.readRows(loaded, IcebergScan.all())) {
        assertThat(ids(rows)).containsExactlyInAnyOrder(3L, 5L);
      }
    }
  }

  @Test
  void aNegationIsNotPushedToParquetAsIcebergRewritesIt() {
    // not(score < 3) keeps every null score: a row group of nulls only must not be skipped
    assertThat(ids(nullsOnly, Expressions.not(Expressions.lessThan("score", 3.0))))
        .containsExactlyInAnyOrder(10L, 11L);
    assertThat(icebergIds(nullsOnly, Expressions.not(Expressions.lessThan("score", 3.0)))).isEmpty();
  }

  @Test
  void minusZeroEqualsZeroThoughIcebergsStatisticsTellThemApart() {
    // IEEE 754 and the spec: -0.0 = 0.0; a filter that compares with zero is not pushed, so no bound prunes the file
    assertThat(ids(negativeZero, Expressions.equal("score", 0.0))).containsExactly(30L);
    assertThat(ids(negativeZero, Expressions.greaterThanOrEqual("score", 0.0))).containsExactly(30L);
    assertThat(icebergIds(negativeZero, Expressions.equal("score", 0.0))).isEmpty();
  }

  @Test
  void aTasksResidualIsAdvisoryTheFilterDecides() {
    IcebergTable table = iceberg.loadTable(byPart.identifier());
    Expression partBelowThree = Expressions.lessThan("part", 3);
    // Iceberg's residual of part < 3 for the null partition is true: its reader keeps the row with the null
    assertThat(icebergIds(byPart, partBelowThree)).containsExactlyInAnyOrder(1L, 2L, 3L);
    assertThat(ids(byPart, partBelowThree)).containsExactlyInAnyOrder(2L, 3L);
    try (IcebergScanPlan all = iceberg.plan(table, IcebergScan.all());
        IcebergScanPlan filtered = iceberg.plan(table, IcebergScan.all().filter(partBelowThree))) {
      List<Long> read = new ArrayList<>();
      for (FileScanTask task : all.tasks()) {
        // tasks planned without the filter, their residuals true: read by the filtered plan, filtered still
        read.addAll(ids(filtered.rows(task)));
      }
      assertThat(read).containsExactlyInAnyOrder(2L, 3L);
    }
  }

  @ParameterizedTest
  @EnumSource(Format.class)
  void uuidsOrderAsUnsignedBytes(Format format) {
    EmbeddedTable table = format == Format.AVRO ? avro : parquet;
    assertThat(ids(table, Expressions.greaterThan("key", LOW))).containsExactlyInAnyOrder(1L, 4L);
    assertThat(icebergIds(table, Expressions.greaterThan("key", LOW))).as("Iceberg orders them as signed longs")
        .doesNotContain(1L, 4L);
    assertThat(ids(table, Expressions.lessThan("key", HIGH))).containsExactlyInAnyOrder(2L, 5L);
  }

  private static List<Long> ids(EmbeddedTable table, Expression filter) {
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all().filter(filter))) {
      List<Long> ordered = ids(plan.rows());
      assertThat(ids(iceberg.readRows(loaded, IcebergScan.all().filter(filter))))
          .containsExactlyInAnyOrderElementsOf(ordered);
      return ordered;
    }
  }

  private static List<Long> icebergIds(EmbeddedTable table, Expression filter) {
    return ids(IcebergGenerics.read(table.table()).where(filter).build());
  }

  private static List<Long> ids(CloseableIterable<Record> rows) {
    List<Long> ids = new ArrayList<>();
    try (rows) {
      rows.forEach(row -> ids.add((Long) row.getField("id")));
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return ids;
  }
}
