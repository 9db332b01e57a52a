package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link RowWeights}: what a decoded row is estimated to hold, by value, on a 64-bit JVM with compressed references
 * (objects aligned to 8 bytes): a row of the benchmarks' Parquet table weighs as its parts do, and a row weighs more
 * with longer strings, more elements, nested records, and less with nulls.
 */
class RowWeightsTests {

  private static final Schema FLAT = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "category", Types.StringType.get()),
      Types.NestedField.optional(4, "amount", Types.DoubleType.get()),
      Types.NestedField.optional(5, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(6, "created", Types.TimestampType.withoutZone()));

  @Test
  void aFlatRowWeighsItsRecordAndEachValue() {
    Record row = GenericRecord.create(FLAT);
    row.set(0, 7L);
    row.set(1, "name-0000007");
    row.set(2, "books");
    row.set(3, 1.5d);
    row.set(4, 3);
    row.set(5, LocalDateTime.of(2026, 12, 8, 1, 2, 3));
    // record 48 + 6 references: 72; Long 16; "name-0000007" 40 + 12: 56; "books" 40 + 5: 48; Double 16;
    // Integer 16; LocalDateTime with its LocalDate and LocalTime: 72
    assertThat(RowWeights.of(row)).isEqualTo(72 + 16 + 56 + 48 + 16 + 16 + 72);
    row.set(1, null);
    row.set(2, null);
    assertThat(RowWeights.of(row)).as("nulls hold nothing").isEqualTo(72 + 16 + 16 + 16 + 72);
  }

  @Test
  void everyKindOfValueWeighsSomethingAndNestedValuesAddUp() {
    Schema schema = new Schema(
        Types.NestedField.optional(1, "v", Types.StringType.get()),
        Types.NestedField.optional(2, "nested", Types.StructType.of(
            Types.NestedField.optional(3, "x", Types.LongType.get()))));
    Record row = GenericRecord.create(schema);
    Record nested = GenericRecord.create(schema.findType("nested").asStructType());
    nested.set(0, 1L);
    row.set(1, nested);
    long withNested = RowWeights.of(row);
    // records of 48 + 2 and 48 + 1 references, aligned, and a Long
    assertThat(withNested).isEqualTo(56 + 56 + 16);
    for (Object value : List.of(LocalDate.EPOCH, LocalTime.NOON, OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0,
        ZoneOffset.UTC), BigDecimal.TEN, UUID.randomUUID(), ByteBuffer.allocate(100), new byte[100], List.of(1L, 2L),
        Map.of("k", 1L), true)) {
      row.set(0, value);
      assertThat(RowWeights.of(row)).as("%s", value.getClass()).isGreaterThan(withNested);
    }
    row.set(0, ByteBuffer.allocate(1000));
    long kilobyte = RowWeights.of(row);
    row.set(0, ByteBuffer.allocate(10));
    // 64 + 1,000 and 64 + 10, each aligned to 8: 1,064 and 80
    assertThat(kilobyte - RowWeights.of(row)).isEqualTo(1064 - 80);
    row.set(0, List.of(1L, 2L, 3L, 4L));
    long four = RowWeights.of(row);
    row.set(0, List.of(1L, 2L));
    assertThat(four).isGreaterThan(RowWeights.of(row) + 2 * 16);
  }
}
