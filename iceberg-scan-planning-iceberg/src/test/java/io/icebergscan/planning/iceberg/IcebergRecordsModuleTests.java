package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rows read from real Avro and Parquet files, written by Jackson 3 with the module: an object per row, a member per
 * column, each value in Iceberg's single-value JSON form; without the module, the empty object.
 */
class IcebergRecordsModuleTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "paid", Types.BooleanType.get()),
      Types.NestedField.optional(3, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()),
      Types.NestedField.optional(5, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(6, "day", Types.DateType.get()),
      Types.NestedField.optional(7, "at", Types.TimeType.get()),
      Types.NestedField.optional(8, "local_time", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(9, "placed", Types.TimestampType.withZone()),
      Types.NestedField.optional(10, "customer", Types.StringType.get()),
      Types.NestedField.optional(11, "token", Types.UUIDType.get()),
      Types.NestedField.optional(12, "code", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(13, "payload", Types.BinaryType.get()),
      Types.NestedField.optional(14, "address", Types.StructType.of(
          Types.NestedField.required(15, "city", Types.StringType.get()),
          Types.NestedField.optional(16, "zip", Types.IntegerType.get()))),
      Types.NestedField.optional(17, "tags", Types.ListType.ofOptional(18, Types.StringType.get())),
      Types.NestedField.optional(19, "counts", Types.MapType.ofRequired(20, 21, Types.StringType.get(),
          Types.IntegerType.get())));

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void aRowIsAnObjectOfItsColumnsInIcebergsSingleValueForm(FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of("json", "orders_" + format), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    Record row = GenericRecord.create(table.schema());
    row.setField("id", 1L);
    row.setField("paid", true);
    row.setField("quantity", 3);
    row.setField("score", 0.5);
    row.setField("amount", new BigDecimal("12.50"));
    row.setField("day", LocalDate.of(2026, 12, 3));
    row.setField("at", LocalTime.of(10, 15, 30, 123_456_000));
    row.setField("local_time", LocalDateTime.of(2026, 12, 3, 10, 15, 30));
    row.setField("placed", OffsetDateTime.of(2026, 12, 3, 10, 15, 30, 0, ZoneOffset.UTC));
    row.setField("customer", "ada \"the first\"");
    row.setField("token", UUID.fromString("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
    row.setField("code", new byte[] { 'a', 'b', 'c' });
    row.setField("payload", ByteBuffer.wrap(new byte[] { 1, 2, (byte) 0xff }));
    Record address = GenericRecord.create(table.schema().findField("address").type().asStructType());
    address.setField("city", "Paris");
    row.setField("address", address);
    List<String> tags = new ArrayList<>();
    tags.add("gold");
    tags.add(null);
    row.setField("tags", tags);
    Map<String, Integer> counts = new LinkedHashMap<>();
    counts.put("orders", 3);
    counts.put("returns", 0);
    row.setField("counts", counts);
    table.appendRows(format, List.of(row));

    List<Record> rows;
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(table.identifier()), IcebergScan.all())) {
      rows = TestRows.readAll(plan.rows());
    }
    String json = JsonMapper.builder().addModule(new IcebergRecordsModule()).build().writeValueAsString(rows.get(0));
    assertThat(json).isEqualTo("{\"id\":1,\"paid\":true,\"quantity\":3,\"score\":0.5,\"amount\":\"12.50\","
        + "\"day\":\"2026-12-03\",\"at\":\"10:15:30.123456\",\"local_time\":\"2026-12-03T10:15:30\","
        + "\"placed\":\"2026-12-03T10:15:30+00:00\",\"customer\":\"ada \\\"the first\\\"\","
        + "\"token\":\"f79c3e09-677c-4bbd-a479-3f349cb785e7\",\"code\":\"616263\",\"payload\":\"0102FF\","
        + "\"address\":{\"city\":\"Paris\",\"zip\":null},\"tags\":[\"gold\",null],"
        + "\"counts\":{\"keys\":[\"orders\",\"returns\"],\"values\":[3,0]}}");
    // each primitive as Iceberg's own single-value writer has it
    assertThat(json).contains("\"amount\":" + SingleValueParser.toJson(Types.DecimalType.of(10, 2),
        new BigDecimal("12.50")));

    assertThat(JsonMapper.builder().build().writeValueAsString(rows.get(0))).as("without the module")
        .isEqualTo("{}");
  }
}
