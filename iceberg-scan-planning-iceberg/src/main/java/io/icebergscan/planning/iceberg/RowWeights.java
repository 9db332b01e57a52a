package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

import org.apache.iceberg.data.Record;
import org.jspecify.annotations.Nullable;

/**
 * What a decoded row weighs on the heap, estimated from the values Iceberg's generic readers make, for the read
 * buffer's budget ({@link RowPipeline}): a 64-bit JVM with compressed references, objects aligned to 8 bytes,
 * strings of one byte a character. An estimate, not a measurement: it counts what every row of a column holds (a
 * boxed number, a string and its array, a timestamp's date and time), and none of what rows share.
 */
final class RowWeights {

  private static final int REFERENCE = 4;
  /**
   * A record: a {@code GenericRecord} (a header, its struct, size, values array and name index) and its values
   * array's header.
   */
  private static final int RECORD = 32 + 16;
  /** A boxed number, or any value this does not know. */
  private static final int BOXED = 16;
  /** A string and its array's header. */
  private static final int STRING = 24 + 16;
  private static final int LOCAL_DATE = 24;
  private static final int LOCAL_TIME = 24;
  private static final int LOCAL_DATE_TIME = 24 + LOCAL_DATE + LOCAL_TIME;
  /** Its offset is shared. */
  private static final int OFFSET_DATE_TIME = 24 + LOCAL_DATE_TIME;
  /** A {@code BigDecimal} and its unscaled {@code BigInteger}, for the precisions Iceberg allows. */
  private static final int DECIMAL = 40 + 40;
  private static final int UUID_BYTES = 32;
  /** A heap {@code ByteBuffer} and its array's header. */
  private static final int BYTE_BUFFER = 48 + 16;
  private static final int LIST = 24 + 16;
  /** A map, and each entry besides its key and value. */
  private static final int MAP = 48 + 16;
  private static final int MAP_ENTRY = 32 + REFERENCE;

  private RowWeights() {
  }

  /** The bytes {@code row} holds, its nested records, lists and maps included. */
  static long of(Record row) {
    return weigh(row);
  }

  private static long weigh(@Nullable Object value) {
    if (value == null) {
      return 0;
    }
    if (value instanceof Record record) {
      int size = record.size();
      long weight = align(RECORD + (long) size * REFERENCE);
      for (int i = 0; i < size; i++) {
        weight += weigh(record.get(i));
      }
      return weight;
    }
    if (value instanceof CharSequence text) {
      return align(STRING + text.length());
    }
    if (value instanceof Number && !(value instanceof BigDecimal)) {
      return BOXED;
    }
    if (value instanceof OffsetDateTime) {
      return OFFSET_DATE_TIME;
    }
    if (value instanceof LocalDateTime) {
      return LOCAL_DATE_TIME;
    }
    if (value instanceof LocalDate) {
      return LOCAL_DATE;
    }
    if (value instanceof LocalTime) {
      return LOCAL_TIME;
    }
    if (value instanceof BigDecimal) {
      return DECIMAL;
    }
    if (value instanceof UUID) {
      return UUID_BYTES;
    }
    if (value instanceof ByteBuffer bytes) {
      return align(BYTE_BUFFER + bytes.capacity());
    }
    if (value instanceof byte[] bytes) {
      return align(16 + bytes.length);
    }
    if (value instanceof Collection<?> collection) {
      long weight = align(LIST + (long) collection.size() * REFERENCE);
      for (Object element : collection) {
        weight += weigh(element);
      }
      return weight;
    }
    if (value instanceof Map<?, ?> map) {
      long weight = align(MAP + (long) map.size() * (MAP_ENTRY + REFERENCE));
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        weight += weigh(entry.getKey()) + weigh(entry.getValue());
      }
      return weight;
    }
    return BOXED;
  }

  private static long align(long bytes) {
    return (bytes + 7) & ~7L;
  }
}
