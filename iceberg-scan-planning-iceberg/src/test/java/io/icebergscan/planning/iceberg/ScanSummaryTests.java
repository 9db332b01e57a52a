package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanSummary;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A plan's summary against a table of real files whose sizes and rows are known: three data files of Avro and
 * Parquet, a position delete file on one and an equality delete file that applies to all three. A table whose reads
 * are restricted, by a row filter or by masks alone, gets no summary: its figures measure the raw rows.
 */
class ScanSummaryTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.required(3, "region", Types.StringType.get()));
  private static final TableIdentifier PEOPLE = TableIdentifier.of("summary", "people");

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static long dataFileBytes;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    EmbeddedTable table = catalog.createTable(PEOPLE, SCHEMA, PartitionSpec.unpartitioned(), 2);
    // each file holds rows of both regions, so a row filter on the region prunes none of them
    List<DataFile> files = new ArrayList<>();
    files.addAll(table.writeRows(FileFormat.PARQUET, people(table, 0, 4)));
    files.addAll(table.writeRows(FileFormat.AVRO, people(table, 4, 7)));
    files.addAll(table.writeRows(FileFormat.PARQUET, people(table, 7, 9)));
    table.append(files);
    dataFileBytes = files.stream().mapToLong(DataFile::fileSizeInBytes).sum();
    Record key = table.newRecord();
    key.setField("id", 5L);
    table.addDeletes(table.writePositionDeletes(FileFormat.PARQUET, files.get(0), 1),
        table.writeEqualityDeletes(FileFormat.AVRO, List.of(key), 1));
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @AfterEach
  void unrestricted() {
    catalog.readRestrictions(PEOPLE, null);
  }

  @Test
  void eachFigureIsTheTablesFilesAndDeletesCountedOnce() {
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(PEOPLE), IcebergScan.all())) {
      // the equality delete file is in all three tasks, and counted once
      ScanSummary expected = new ScanSummary(3, 3, dataFileBytes, 9L, 2);
      assertThat(plan.summary()).isEqualTo(expected);
      assertThat(plan.scanPlan().summary()).as("the core's plan").isEqualTo(expected);
      assertThat(TestRows.readAll(plan.rows())).as("the rows read: records less the two deleted").hasSize(7);
    }
  }

  @Test
  void aRowFilterRefusesTheSummary() {
    catalog.readRestrictions(PEOPLE, RestrictionPolicy.builder().rowFilter(Expressions.equal("region", "US"))
        .build());
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(PEOPLE), IcebergScan.all())) {
      assertThatThrownBy(plan::summary).isInstanceOf(RestrictedReadException.class)
          .hasMessageContaining("IcebergScanPlan.summary()").hasMessageContaining("raw rows");
      assertThat(TestRows.readAll(plan.rows())).as("the rows the filter keeps").hasSize(5);
    }
  }

  @Test
  void masksAloneRefuseTheSummaryToo() {
    catalog.readRestrictions(PEOPLE, RestrictionPolicy.builder().mask("email", "mask-alphanum").build());
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(PEOPLE), IcebergScan.all())) {
      assertThat(plan.table().readRestrictions().isEmpty()).isFalse();
      assertThatThrownBy(plan::summary).isInstanceOf(RestrictedReadException.class);
    }
  }

  /** People {@code from} to {@code to} (exclusive), in the US when even and the EU when odd. */
  private static List<Record> people(EmbeddedTable table, long from, long to) {
    List<Record> people = new ArrayList<>();
    for (long id = from; id < to; id++) {
      people.add(table.newRecord(id, "user" + id + "@example.com", id % 2 == 0 ? "US" : "EU"));
    }
    return people;
  }
}
