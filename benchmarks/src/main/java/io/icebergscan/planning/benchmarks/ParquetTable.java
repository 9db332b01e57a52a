package io.icebergscan.planning.benchmarks;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The CPU-bound table of {@link PlanAndRead}: {@code bench.wide}, unpartitioned, {@code files} Parquet files of
 * {@code rows} rows each (64 of 50,000 in the suite), six columns of four types, no deletes: reading it is decoding
 * Parquet, on however many cores the reader uses.
 */
final class ParquetTable {

  static final TableIdentifier IDENTIFIER = TableIdentifier.of("bench", "wide");
  static final String NAME = "bench.wide";

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "category", Types.StringType.get()),
      Types.NestedField.optional(4, "amount", Types.DoubleType.get()),
      Types.NestedField.optional(5, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(6, "created", Types.TimestampType.withoutZone()));

  private static final String[] CATEGORIES = { "books", "games", "garden", "music", "tools", "toys" };
  private static final LocalDateTime EPOCH = LocalDateTime.of(2026, 11, 1, 0, 0);

  private ParquetTable() {
  }

  /** Creates and fills the table; the ids are 0 to {@code files × rows - 1}. */
  static EmbeddedTable create(EmbeddedIcebergCatalog catalog, int files, int rows) {
    EmbeddedTable table = catalog.createTable(IDENTIFIER, SCHEMA, PartitionSpec.unpartitioned(), 2);
    Schema schema = table.schema();
    for (int file = 0; file < files; file++) {
      List<Record> records = new ArrayList<>(rows);
      for (long id = (long) file * rows; id < (long) (file + 1) * rows; id++) {
        Record row = GenericRecord.create(schema);
        row.set(0, id);
        row.set(1, "customer-" + id % 10_007);
        row.set(2, CATEGORIES[(int) (id % CATEGORIES.length)]);
        row.set(3, (id % 10_000) / 100.0);
        row.set(4, (int) (id % 17));
        row.set(5, EPOCH.plusSeconds(id));
        records.add(row);
      }
      table.appendRows(FileFormat.PARQUET, records);
    }
    return table;
  }
}
