package io.icebergscan.planning.data;

import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

import org.springframework.core.convert.support.DefaultConversionService;

/**
 * The conversions a query method's arguments go through on their way to an Iceberg filter: each argument is converted
 * to the Java type of its column's values ({@code LocalDate} for a {@code date}, {@code OffsetDateTime} for a
 * {@code timestamptz}, {@code BigDecimal} for a {@code decimal}, {@code String} for a {@code string}, …) and from there
 * to Iceberg's literal. Spring's default conversions plus {@code Instant} and {@code ZonedDateTime} to
 * {@code OffsetDateTime} (at UTC) and {@code byte[]} to {@code ByteBuffer}. Add converters for the application's own
 * types (a {@code Money} to a {@code BigDecimal}, say); a {@code LocalDateTime} is not taken for a
 * {@code timestamptz}, whose zone it lacks.
 */
public class IcebergConversionService extends DefaultConversionService {

  public IcebergConversionService() {
    addConverter(Instant.class, OffsetDateTime.class, instant -> instant.atOffset(ZoneOffset.UTC));
    addConverter(ZonedDateTime.class, OffsetDateTime.class, ZonedDateTime::toOffsetDateTime);
    addConverter(byte[].class, ByteBuffer.class, ByteBuffer::wrap);
  }
}
