package io.icebergscan.planning.data;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.iceberg.Column;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/** The events table the repository tests read: real Parquet and Avro files, every kind of column a query filters. */
final class Events {

  static final Types.StructType ADDRESS = Types.StructType.of(
      Types.NestedField.optional(21, "city", Types.StringType.get()),
      Types.NestedField.optional(22, "zip", Types.IntegerType.get()));
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "kind", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "at", Types.TimestampType.withZone()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(6, "score", Types.DoubleType.get()),
      Types.NestedField.optional(7, "flagged", Types.BooleanType.get()),
      Types.NestedField.optional(8, "address", ADDRESS),
      Types.NestedField.optional(9, "event_name", Types.StringType.get()),
      Types.NestedField.optional(10, "payload", Types.StringType.get()));

  static final List<String> KINDS = List.of("click", "view", "buy", "share");
  static final List<String> CITIES = List.of("Lisbon", "Porto", "Braga");
  static final LocalDate FIRST_DAY = LocalDate.of(2026, 3, 1);
  static final Instant FIRST_AT = Instant.parse("2026-03-01T08:00:00Z");

  record Address(String city, Integer zip) {
  }

  /** The entity: one column named apart ({@code @Column}), one in snake case, a nested struct; no payload. */
  @IcebergTable("repositories.events")
  record Event(long id, String kind, LocalDate day, Instant at, BigDecimal amount, Double score, Boolean flagged,
      Address address, @Column("event_name") String name) {
  }

  private Events() {
  }

  /**
   * Creates the table at {@code identifier} and appends {@code rows} rows in four files (two Parquet, two Avro), one
   * snapshot each; returns the table.
   */
  static EmbeddedTable create(EmbeddedIcebergCatalog catalog, TableIdentifier identifier, int rows, int formatVersion) {
    catalog.createNamespace(identifier.namespace().levels());
    EmbeddedTable table = catalog.createTable(identifier, SCHEMA, PartitionSpec.unpartitioned(), formatVersion);
    List<Record> all = new ArrayList<>();
    for (int i = 0; i < rows; i++) {
      all.add(row(table, i));
    }
    int quarter = (rows + 3) / 4;
    for (int file = 0; file < 4; file++) {
      List<Record> part = all.subList(Math.min(rows, file * quarter), Math.min(rows, (file + 1) * quarter));
      if (!part.isEmpty()) {
        table.appendRows(file % 2 == 0 ? FileFormat.PARQUET : FileFormat.AVRO, part);
      }
    }
    return table;
  }

  /** Row {@code i}: every fifth has no score, every seventh no address, every third is flagged. */
  static Record row(EmbeddedTable table, long i) {
    Record address = GenericRecord.create(ADDRESS);
    address.setField("city", CITIES.get((int) (i % CITIES.size())));
    address.setField("zip", 1000 + (int) (i % 10));
    return table.newRecord(i, KINDS.get((int) (i % KINDS.size())), FIRST_DAY.plusDays(i % 9),
        OffsetDateTime.ofInstant(FIRST_AT.plusSeconds(3600 * i), ZoneOffset.UTC),
        BigDecimal.valueOf(250 * i, 2), i % 5 == 0 ? null : i * 1.5, i % 3 == 0,
        i % 7 == 0 ? null : address, "event-" + i, "payload-" + i);
  }
}
