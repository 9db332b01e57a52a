package io.icebergscan.planning.iceberg;

import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Map;

import org.apache.iceberg.SingleValueParser;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JsonGenerator;
import tools.jackson.databind.SerializationContext;
import tools.jackson.databind.ValueSerializer;
import tools.jackson.databind.module.SimpleModule;

/**
 * Jackson 3 writes Apache Iceberg's {@link Record}s as JSON objects, a member per column in the row's order, rather
 * than as the empty object {@code {}} a bean serializer makes of them. Each value is written in Iceberg's JSON
 * single-value form (the spec's, as Iceberg's {@link SingleValueParser} writes it): decimals, dates, times,
 * timestamps and UUIDs as strings ({@code "14.20"}, {@code "2026-12-03"}, {@code "2026-12-03T10:15:30+00:00"}),
 * {@code fixed} and {@code binary} as hexadecimal strings, numbers and booleans as themselves, lists as arrays and
 * maps as {@code {"keys": [...], "values": [...]}}; a nested struct is an object by column name again, as the row is.
 * A null is {@code null}.
 *
 * <p>Register it with a {@code JsonMapper.builder().addModule(new IcebergRecordsModule())}; in a Spring Boot
 * application the iceberg module's auto-configuration does.
 */
public final class IcebergRecordsModule extends SimpleModule {

  public IcebergRecordsModule() {
    super("iceberg-scan-planning-records");
    addSerializer(Record.class, new RecordSerializer());
  }

  private static final class RecordSerializer extends ValueSerializer<Record> {

    @Override
    public void serialize(Record row, JsonGenerator json, SerializationContext context) {
      writeStruct(row.struct(), row, json);
    }
  }

  private static void writeStruct(Types.StructType struct, StructLike row, JsonGenerator json) {
    json.writeStartObject();
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      json.writeName(fields.get(i).name());
      write(fields.get(i).type(), row.get(i, Object.class), json);
    }
    json.writeEndObject();
  }

  private static void write(Type type, @Nullable Object value, JsonGenerator json) {
    if (value == null) {
      json.writeNull();
      return;
    }
    switch (type.typeId()) {
      case STRUCT -> writeStruct(type.asStructType(), (StructLike) value, json);
      case LIST -> {
        Type element = type.asListType().elementType();
        json.writeStartArray();
        for (Object item : (List<?>) value) {
          write(element, item, json);
        }
        json.writeEndArray();
      }
      case MAP -> {
        Types.MapType map = type.asMapType();
        json.writeStartObject();
        json.writeName("keys");
        json.writeStartArray();
        for (Object key : ((Map<?, ?>) value).keySet()) {
          write(map.keyType(), key, json);
        }
        json.writeEndArray();
        json.writeName("values");
        json.writeStartArray();
        for (Object item : ((Map<?, ?>) value).values()) {
          write(map.valueType(), item, json);
        }
        json.writeEndArray();
        json.writeEndObject();
      }
      default -> json.writeRawValue(SingleValueParser.toJson(type, internal(type, value)));
    }
  }

  /** A value as Iceberg's generic rows hold it, in the form Iceberg's single-value writer takes. */
  private static Object internal(Type type, Object value) {
    return switch (type.typeId()) {
      case DATE -> value instanceof LocalDate date ? DateTimeUtil.daysFromDate(date) : value;
      case TIME -> value instanceof LocalTime time ? DateTimeUtil.microsFromTime(time) : value;
      case TIMESTAMP -> value instanceof OffsetDateTime zoned ? DateTimeUtil.microsFromTimestamptz(zoned)
          : value instanceof LocalDateTime local ? DateTimeUtil.microsFromTimestamp(local) : value;
      case TIMESTAMP_NANO -> value instanceof OffsetDateTime zoned ? DateTimeUtil.nanosFromTimestamptz(zoned)
          : value instanceof LocalDateTime local ? DateTimeUtil.nanosFromTimestamp(local) : value;
      case FIXED, BINARY -> value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : value;
      default -> value;
    };
  }
}
