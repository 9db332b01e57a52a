package io.icebergscan.planning.data.support;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;

import io.icebergscan.planning.iceberg.RowMapping;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.DateTimeUtil;
import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.ConversionException;
import org.springframework.core.convert.ConversionService;

/**
 * A query method's argument as a value Apache Iceberg's {@code Expressions} take for a column: converted by the
 * conversion service to the Java type of the column's values, then to the form Iceberg's literal of the column's type
 * is made from and the REST spec's expressions carry (an ISO-8601 string for a date, a time or a timestamp, at
 * Iceberg's precision; a decimal at the column's scale).
 */
final class IcebergLiterals {

  private final ConversionService conversions;

  IcebergLiterals(ConversionService conversions) {
    this.conversions = conversions;
  }

  /**
   * @param what the argument, for the error: "the 2nd argument of findByDayAfter"
   * @throws IllegalArgumentException when the argument cannot be a value of the column
   */
  Object literal(Object value, Types.NestedField column, String what) {
    Type type = column.type();
    Class<?> javaType = javaType(type);
    if (javaType == null) {
      throw new IllegalArgumentException(what + " is compared with column '" + column.name() + "' of type " + type
          + ", which a derived query cannot filter on");
    }
    Object converted;
    try {
      converted = this.conversions.convert(value, javaType);
    }
    catch (ConversionException failure) {
      throw new IllegalArgumentException(what + " is a " + value.getClass().getName() + ", which cannot be a value of "
          + "column '" + column.name() + "' (" + type + ", held as " + javaType.getSimpleName() + "); add a converter "
          + "to the repositories' IcebergConversionService", failure);
    }
    if (converted == null) {
      throw new IllegalArgumentException(what + " converted to nothing for column '" + column.name() + "'");
    }
    // dates, times and timestamps as the ISO strings the REST spec's expressions carry
    return switch (type.typeId()) {
      case DATE -> DateTimeUtil.daysToIsoDate(DateTimeUtil.daysFromDate((LocalDate) converted));
      case TIME -> DateTimeUtil.microsToIsoTime(DateTimeUtil.microsFromTime((LocalTime) converted));
      case TIMESTAMP -> ((Types.TimestampType) type).shouldAdjustToUTC()
          ? DateTimeUtil.microsToIsoTimestamptz(DateTimeUtil.microsFromTimestamptz((OffsetDateTime) converted))
          : DateTimeUtil.microsToIsoTimestamp(DateTimeUtil.microsFromTimestamp((LocalDateTime) converted));
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) type).shouldAdjustToUTC()
          ? DateTimeUtil.nanosToIsoTimestamptz(DateTimeUtil.nanosFromTimestamptz((OffsetDateTime) converted))
          : DateTimeUtil.nanosToIsoTimestamp(DateTimeUtil.nanosFromTimestamp((LocalDateTime) converted));
      case DECIMAL -> scaled((BigDecimal) converted, (Types.DecimalType) type, column, what);
      default -> converted;
    };
  }

  private static BigDecimal scaled(BigDecimal value, Types.DecimalType type, Types.NestedField column, String what) {
    try {
      return value.setScale(type.scale(), RoundingMode.UNNECESSARY);
    }
    catch (ArithmeticException tooPrecise) {
      throw new IllegalArgumentException(what + " is " + value.toPlainString() + ", which has more decimal places than "
          + "column '" + column.name() + "' (" + type + ") holds", tooPrecise);
    }
  }

  /** The Java type a column's values are, {@code null} for one a derived query cannot filter on. */
  private static @Nullable Class<?> javaType(Type type) {
    return switch (type.typeId()) {
      case STRING -> String.class;
      case BINARY, FIXED -> ByteBuffer.class;
      default -> {
        Class<?> held = RowMapping.heldAs(type);
        yield held == Object.class ? null : held;
      }
    };
  }
}
