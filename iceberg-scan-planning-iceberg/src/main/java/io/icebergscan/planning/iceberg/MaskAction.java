package io.icebergscan.planning.iceberg;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.DigestException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.TemporalAdjuster;
import java.time.temporal.TemporalAdjusters;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.variants.Variant;
import org.apache.iceberg.variants.VariantMetadata;
import org.apache.iceberg.variants.Variants;
import org.jspecify.annotations.Nullable;

/**
 * The nine actions of the REST spec's read restrictions ({@code required-column-projections}), each keeping its
 * column's type. A catalog names them on the wire and a reader must apply each in full or fail the read, so every
 * question is answered fail-closed: a name that is not one of the nine has no action, a type outside an action's set
 * (including any type a later Iceberg adds) is refused with a rule text, and only then is the action bound to the
 * column's type, once per column of a read, as a function over the Java values of Apache Iceberg's generic
 * records.
 *
 * <p>Refusals and failures name actions and types, never a value: a message may reach a caller the mask hides the
 * values from. The bound functions are thread-safe, as a plan's tasks are read on many threads at once, and are on
 * the per-row path: they allocate little beyond their result.
 */
enum MaskAction {

  MASK_ALPHANUM("mask-alphanum"),
  SHOW_FIRST_4("show-first-4"),
  SHOW_LAST_4("show-last-4"),
  REPLACE_WITH_NULL("replace-with-null"),
  MASK_TO_FIXED_VALUE("mask-to-fixed-value"),
  TRUNCATE_TO_YEAR("truncate-to-year"),
  TRUNCATE_TO_MONTH("truncate-to-month"),
  SHA_256_GLOBAL("sha-256-global"),
  SHA_256_QUERY_LOCAL("sha-256-query-local");

  /** The code points show-first-4 and show-last-4 show as they are. */
  private static final int SHOWN = 4;

  /** The spec asks for at least 16 random bytes; twice that costs nothing per query. */
  private static final int SALT_BYTES = 32;

  private static final int MIN_SALT_BYTES = 16;

  private static final int SHA_256_BYTES = 32;

  /** One generator for every query: it is thread-safe, and a new one would have to be seeded each time. */
  private static final SecureRandom SALTS = new SecureRandom();

  private static final byte[] NO_SALT = new byte[0];

  private static final HexFormat HEX = HexFormat.of();

  private static final VarHandle LITTLE_ENDIAN_INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private static final VarHandle LITTLE_ENDIAN_LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** A MessageDigest is not thread-safe, and a new one per value would look its provider up per row. */
  private static final ThreadLocal<Sha256> SHA_256 = ThreadLocal.withInitial(Sha256::new);

  private static final Set<TypeID> STRINGS = EnumSet.of(TypeID.STRING);

  private static final Set<TypeID> DATES_AND_TIMESTAMPS =
      EnumSet.of(TypeID.DATE, TypeID.TIMESTAMP, TypeID.TIMESTAMP_NANO);

  private static final Set<TypeID> HASHABLE = EnumSet.of(TypeID.STRING, TypeID.INTEGER, TypeID.LONG, TypeID.BINARY);

  /**
   * The types with a fixed value of their own, listed rather than excluded so that a type a later Iceberg adds is
   * refused; a struct has one when each of its fields does.
   */
  private static final Set<TypeID> FIXED_VALUED = EnumSet.of(TypeID.BOOLEAN, TypeID.INTEGER, TypeID.LONG,
      TypeID.FLOAT, TypeID.DOUBLE, TypeID.DECIMAL, TypeID.STRING, TypeID.DATE, TypeID.TIME, TypeID.TIMESTAMP,
      TypeID.TIMESTAMP_NANO, TypeID.UUID, TypeID.FIXED, TypeID.BINARY, TypeID.LIST, TypeID.MAP, TypeID.VARIANT);

  private static final LocalDateTime EPOCH = LocalDateTime.ofEpochSecond(0, 0, ZoneOffset.UTC);

  private static final OffsetDateTime EPOCH_UTC = Instant.EPOCH.atOffset(ZoneOffset.UTC);

  private static final UUID ZERO_UUID = new UUID(0, 0);

  private static final VariantMetadata NO_FIELD_NAMES = Variants.emptyMetadata();

  private static final Map<String, MaskAction> BY_WIRE_NAME = new HashMap<>();

  static {
    for (MaskAction action : values()) {
      BY_WIRE_NAME.put(action.wireName, action);
    }
  }

  private final String wireName;

  MaskAction(String wireName) {
    this.wireName = wireName;
  }

  /** The action's name on the wire. */
  String wireName() {
    return this.wireName;
  }

  /** The action of that wire name, or null when it is not one of the nine (the caller fails closed). */
  static @Nullable MaskAction fromWireName(String name) {
    return BY_WIRE_NAME.get(name);
  }

  /**
   * Why the action cannot apply to a field of this type and optionality, as a rule text naming no value (e.g.
   * "mask-alphanum applies to string only, not to long", "replace-with-null on a required field",
   * "mask-to-fixed-value has no fixed value for geometry"), or null when it applies.
   */
  @Nullable String refusal(Type type, boolean optional) {
    return switch (this) {
      case MASK_ALPHANUM, SHOW_FIRST_4, SHOW_LAST_4 -> outside(STRINGS, "string", type);
      // a null where the schema promises none would break whoever reads the rows: the spec makes this invalid
      case REPLACE_WITH_NULL -> optional ? null : this.wireName + " on a required field";
      case MASK_TO_FIXED_VALUE -> withoutFixedValue(type);
      case TRUNCATE_TO_YEAR, TRUNCATE_TO_MONTH ->
          outside(DATES_AND_TIMESTAMPS, "date, timestamp, timestamptz, timestamp_ns and timestamptz_ns", type);
      case SHA_256_GLOBAL, SHA_256_QUERY_LOCAL -> outside(HASHABLE, "string, int, long and binary", type);
    };
  }

  /**
   * The function applied to each value of a field of that type (which refusal(type, optional) accepted), on the
   * Java values of Apache Iceberg's generic records. salt: the query's salt (sha-256-query-local needs it, non-null,
   * at least 16 bytes; the others ignore it).
   *
   * @throws IllegalArgumentException if the action does not apply to the type, or sha-256-query-local has no salt
   *     of at least 16 bytes: a caller that asked {@link #refusal} first never sees it
   */
  UnaryOperator<@Nullable Object> bind(Type type, byte @Nullable [] salt) {
    // optionality is the caller's to check: bound, replace-with-null applies to every type
    String refused = refusal(type, true);
    if (refused != null) {
      throw new IllegalArgumentException(refused);
    }
    return switch (this) {
      case MASK_ALPHANUM -> value -> value == null ? null : maskAlphanum((CharSequence) value);
      case SHOW_FIRST_4 -> value -> value == null ? null : showFirst4((CharSequence) value);
      case SHOW_LAST_4 -> value -> value == null ? null : showLast4((CharSequence) value);
      case REPLACE_WITH_NULL -> value -> null;
      case MASK_TO_FIXED_VALUE -> {
        // the input, null or not, is not looked at: keeping a null would tell which values are null
        Supplier<Object> fixed = fixedValue(type);
        yield value -> fixed.get();
      }
      case TRUNCATE_TO_YEAR -> truncation(type, TemporalAdjusters.firstDayOfYear());
      case TRUNCATE_TO_MONTH -> truncation(type, TemporalAdjusters.firstDayOfMonth());
      case SHA_256_GLOBAL -> hashing(type, NO_SALT);
      case SHA_256_QUERY_LOCAL -> {
        if (salt == null || salt.length < MIN_SALT_BYTES) {
          throw new IllegalArgumentException(this.wireName + " needs a salt of at least " + MIN_SALT_BYTES + " bytes");
        }
        // a copy: the salt must stay the same throughout the query, whatever the caller does with its array
        yield hashing(type, salt.clone());
      }
    };
  }

  /** A fresh query salt: 32 bytes from one shared SecureRandom. */
  static byte[] newQuerySalt() {
    byte[] salt = new byte[SALT_BYTES];
    SALTS.nextBytes(salt);
    return salt;
  }

  private @Nullable String outside(Set<TypeID> applicable, String applicableNames, Type type) {
    return applicable.contains(type.typeId()) ? null
        : this.wireName + " applies to " + applicableNames + " only, not to " + typeName(type);
  }

  /**
   * A type's name as the spec writes it, with the parameters a rule depends on (a decimal's, a fixed's length) and
   * not the others: a nested type's fields, a geometry's or geography's reference system.
   */
  private static String typeName(Type type) {
    return switch (type.typeId()) {
      case STRUCT, LIST, MAP, VARIANT, GEOMETRY, GEOGRAPHY -> type.typeId().name().toLowerCase(Locale.ROOT);
      default -> type.toString();
    };
  }

  // mask-alphanum, show-first-4 and show-last-4: code point by code point, one output char for each

  private static String maskAlphanum(CharSequence text) {
    int length = text.length();
    // every code point becomes one ASCII char: Latin-1 bytes, without a builder's checks per char
    byte[] masked = new byte[length];
    int size = 0;
    int index = 0;
    while (index < length) {
      int codePoint = Character.codePointAt(text, index);
      masked[size++] = (byte) masked(codePoint);
      index += Character.charCount(codePoint);
    }
    return new String(masked, 0, size, StandardCharsets.ISO_8859_1);
  }

  private static String showFirst4(CharSequence text) {
    int length = text.length();
    int shownEnd = 0;
    for (int shown = 0; shown < SHOWN && shownEnd < length; shown++) {
      shownEnd += Character.charCount(Character.codePointAt(text, shownEnd));
    }
    if (shownEnd == length) {
      return text.toString();
    }
    StringBuilder masked = new StringBuilder(length).append(text, 0, shownEnd);
    appendMasked(masked, text, shownEnd, length);
    return masked.toString();
  }

  private static String showLast4(CharSequence text) {
    int length = text.length();
    int shownStart = length;
    for (int shown = 0; shown < SHOWN && shownStart > 0; shown++) {
      shownStart -= Character.charCount(Character.codePointBefore(text, shownStart));
    }
    if (shownStart == 0) {
      return text.toString();
    }
    StringBuilder masked = new StringBuilder(length);
    appendMasked(masked, text, 0, shownStart);
    return masked.append(text, shownStart, length).toString();
  }

  /**
   * Appends {@code text[from, to)} masked. A surrogate pair is one code point, so one {@code x}; Unicode
   * normalization is left out, as the spec does not ask for it: a combining mark is a code point of its own.
   */
  private static void appendMasked(StringBuilder masked, CharSequence text, int from, int to) {
    int index = from;
    while (index < to) {
      int codePoint = Character.codePointAt(text, index);
      masked.append(masked(codePoint));
      index += Character.charCount(codePoint);
    }
  }

  private static char masked(int codePoint) {
    if (codePoint >= '0' && codePoint <= '9') {
      return 'n';
    }
    return switch (codePoint) {
      case '(', ')', ',', '.', '-', '@' -> (char) codePoint;
      default -> 'x';
    };
  }

  // mask-to-fixed-value

  private static @Nullable String withoutFixedValue(Type type) {
    if (type.isStructType()) {
      for (Types.NestedField field : type.asStructType().fields()) {
        String refused = withoutFixedValue(field.type());
        if (refused != null) {
          return refused;
        }
      }
      return null;
    }
    return FIXED_VALUED.contains(type.typeId()) ? null
        : MASK_TO_FIXED_VALUE.wireName + " has no fixed value for " + typeName(type);
  }

  /**
   * The fixed value of a type {@link #withoutFixedValue} accepted. Immutable values are shared; a mutable one (an
   * array, a buffer, a container, a record, a variant object) is made for each value, as a consumer may change it.
   */
  private static Supplier<Object> fixedValue(Type type) {
    return switch (type.typeId()) {
      case BOOLEAN -> constant(false);
      case INTEGER -> constant(0);
      case LONG -> constant(0L);
      case FLOAT -> constant(0.0f);
      case DOUBLE -> constant(0.0d);
      case DECIMAL -> constant(BigDecimal.valueOf(0, ((Types.DecimalType) type).scale()));
      case STRING -> constant("XXXXXXXX");
      case DATE -> constant(LocalDate.EPOCH);
      case TIME -> constant(LocalTime.MIDNIGHT);
      case TIMESTAMP -> constant(((Types.TimestampType) type).shouldAdjustToUTC() ? EPOCH_UTC : EPOCH);
      case TIMESTAMP_NANO -> constant(((Types.TimestampNanoType) type).shouldAdjustToUTC() ? EPOCH_UTC : EPOCH);
      case UUID -> constant(ZERO_UUID);
      case FIXED -> {
        int length = ((Types.FixedType) type).length();
        yield () -> new byte[length];
      }
      case BINARY -> () -> ByteBuffer.allocate(0);
      case LIST -> ArrayList::new;
      case MAP -> HashMap::new;
      // {}: an object without fields, whose metadata has no field names to give
      case VARIANT -> () -> Variant.of(NO_FIELD_NAMES, Variants.object(NO_FIELD_NAMES));
      case STRUCT -> fixedRecord(type.asStructType());
      default -> throw new IllegalArgumentException(MASK_TO_FIXED_VALUE.wireName + " has no fixed value for "
          + typeName(type));
    };
  }

  private static Supplier<Object> constant(Object value) {
    return () -> value;
  }

  private static Supplier<Object> fixedRecord(Types.StructType struct) {
    List<Types.NestedField> fields = struct.fields();
    @SuppressWarnings({"unchecked", "rawtypes"})
    Supplier<Object>[] fieldValues = new Supplier[fields.size()];
    for (int i = 0; i < fieldValues.length; i++) {
      fieldValues[i] = fixedValue(fields.get(i).type());
    }
    // a copy of an empty record shares the struct's name index, which creating one would look up per value
    GenericRecord empty = GenericRecord.create(struct);
    return () -> {
      GenericRecord record = empty.copy();
      for (int i = 0; i < fieldValues.length; i++) {
        record.set(i, fieldValues[i].get());
      }
      return record;
    };
  }

  // truncate-to-year and truncate-to-month

  private static UnaryOperator<@Nullable Object> truncation(Type type, TemporalAdjuster toFirstDay) {
    return switch (type.typeId()) {
      case DATE -> value -> value == null ? null : ((LocalDate) value).with(toFirstDay);
      case TIMESTAMP -> timestampTruncation(((Types.TimestampType) type).shouldAdjustToUTC(), toFirstDay);
      case TIMESTAMP_NANO -> timestampTruncation(((Types.TimestampNanoType) type).shouldAdjustToUTC(), toFirstDay);
      default -> throw new IllegalArgumentException("no truncation of " + typeName(type));
    };
  }

  private static UnaryOperator<@Nullable Object> timestampTruncation(boolean utc, TemporalAdjuster toFirstDay) {
    if (utc) {
      // the spec truncates in UTC: 2024-01-01T01:30+05:00 is still 2023 there
      return value -> value == null ? null : ((OffsetDateTime) value).withOffsetSameInstant(ZoneOffset.UTC)
          .toLocalDate().with(toFirstDay).atStartOfDay().atOffset(ZoneOffset.UTC);
    }
    return value -> value == null ? null : ((LocalDateTime) value).toLocalDate().with(toFirstDay).atStartOfDay();
  }

  // sha-256-global and sha-256-query-local: the salt is empty for the global one

  private static UnaryOperator<@Nullable Object> hashing(Type type, byte[] salt) {
    return switch (type.typeId()) {
      case STRING -> value -> value == null ? null
          : HEX.formatHex(SHA_256.get().hash(salt, utf8((CharSequence) value)));
      case INTEGER -> value -> value == null ? null
          : (int) LITTLE_ENDIAN_INT.get(SHA_256.get().hash(salt, (int) (Integer) value), 0);
      case LONG -> value -> value == null ? null
          : (long) LITTLE_ENDIAN_LONG.get(SHA_256.get().hash(salt, (long) (Long) value), 0);
      case BINARY -> value -> value == null ? null : ByteBuffer.wrap(SHA_256.get().hash(salt, (ByteBuffer) value));
      default -> throw new IllegalArgumentException("no hashing of " + typeName(type));
    };
  }

  private static byte[] utf8(CharSequence text) {
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /**
   * One thread's SHA-256, with room for an int or long input and for a digest of which only the start is returned.
   * Each hash starts with a reset, though a digest leaves it reset: a digest left holding input by a failure, however
   * unlikely, would give wrong hashes on its thread for good.
   */
  private static final class Sha256 {

    private final MessageDigest digest;
    private final byte[] input = new byte[Long.BYTES];
    private final byte[] output = new byte[SHA_256_BYTES];

    Sha256() {
      try {
        this.digest = MessageDigest.getInstance("SHA-256");
      }
      catch (NoSuchAlgorithmException everyJavaHasIt) {
        throw new IllegalStateException(everyJavaHasIt);
      }
    }

    /** The digest of {@code salt || input}, in this thread's output array: read it before the next hash. */
    byte[] hash(byte[] salt, byte[] input) {
      return hash(salt, input, input.length);
    }

    /** As {@link #hash(byte[], byte[])} of the int's 4 bytes, little-endian. */
    byte[] hash(byte[] salt, int input) {
      LITTLE_ENDIAN_INT.set(this.input, 0, input);
      return hash(salt, this.input, Integer.BYTES);
    }

    /** As {@link #hash(byte[], byte[])} of the long's 8 bytes, little-endian. */
    byte[] hash(byte[] salt, long input) {
      LITTLE_ENDIAN_LONG.set(this.input, 0, input);
      return hash(salt, this.input, Long.BYTES);
    }

    /** The digest of {@code salt ||} the buffer's remaining bytes, in a new array; the buffer keeps its position. */
    byte[] hash(byte[] salt, ByteBuffer input) {
      this.digest.reset();
      this.digest.update(salt);
      this.digest.update(input.duplicate());
      return this.digest.digest();
    }

    private byte[] hash(byte[] salt, byte[] input, int length) {
      this.digest.reset();
      this.digest.update(salt);
      this.digest.update(input, 0, length);
      try {
        this.digest.digest(this.output, 0, SHA_256_BYTES);
      }
      catch (DigestException notWithRoomForTheDigest) {
        throw new IllegalStateException(notWithRoomForTheDigest);
      }
      return this.output;
    }
  }
}
