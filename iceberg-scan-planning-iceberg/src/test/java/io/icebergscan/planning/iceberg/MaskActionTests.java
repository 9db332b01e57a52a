package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.variants.PhysicalType;
import org.apache.iceberg.variants.Variant;
import org.apache.iceberg.variants.VariantValue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The nine actions of the read restrictions, against the spec's vectors (docs: read-restrictions.md, "Vectors"),
 * against SHA-256 and code-point masking computed here another way, and at their edges: nulls, surrogate pairs and
 * combining marks, offsets across a year's end, every type an action applies to and every one it does not.
 */
class MaskActionTests {

  private static final byte[] SALT_OF_ONES = filled(16, (byte) 1);

  /** One type of each kind Iceberg 1.12 has, the UTC and local timestamps apart. */
  private static final Map<String, Type> TYPES = Map.ofEntries(
      Map.entry("boolean", Types.BooleanType.get()),
      Map.entry("int", Types.IntegerType.get()),
      Map.entry("long", Types.LongType.get()),
      Map.entry("float", Types.FloatType.get()),
      Map.entry("double", Types.DoubleType.get()),
      Map.entry("decimal", Types.DecimalType.of(10, 2)),
      Map.entry("string", Types.StringType.get()),
      Map.entry("date", Types.DateType.get()),
      Map.entry("time", Types.TimeType.get()),
      Map.entry("timestamp", Types.TimestampType.withoutZone()),
      Map.entry("timestamptz", Types.TimestampType.withZone()),
      Map.entry("timestamp_ns", Types.TimestampNanoType.withoutZone()),
      Map.entry("timestamptz_ns", Types.TimestampNanoType.withZone()),
      Map.entry("uuid", Types.UUIDType.get()),
      Map.entry("fixed", Types.FixedType.ofLength(3)),
      Map.entry("binary", Types.BinaryType.get()),
      Map.entry("list", Types.ListType.ofOptional(1, Types.StringType.get())),
      Map.entry("map", Types.MapType.ofOptional(2, 3, Types.StringType.get(), Types.LongType.get())),
      Map.entry("struct", Types.StructType.of(Types.NestedField.optional(4, "a", Types.IntegerType.get()))),
      Map.entry("variant", Types.VariantType.get()),
      Map.entry("geometry", Types.GeometryType.crs84()),
      Map.entry("geography", Types.GeographyType.crs84()),
      Map.entry("unknown", Types.UnknownType.get()));

  /** What random strings are drawn from: code point ranges, and the marks mask-alphanum keeps. */
  private static final int[][] RANGES = {
      {0x20, 0x7e}, // ASCII
      {0xa0, 0xff}, // Latin-1
      {0x391, 0x3c9}, // Greek
      {0x4e00, 0x9fff}, // CJK
      {0x660, 0x669}, // Arabic-Indic digits
      {0x1f300, 0x1f64f}, // emoji, surrogate pairs in UTF-16
      {0x300, 0x36f}, // combining marks
      {'0', '9'}};

  private static final String KEPT = "(),.-@";

  private static final Set<String> DATES_AND_TIMESTAMPS =
      Set.of("date", "timestamp", "timestamptz", "timestamp_ns", "timestamptz_ns");

  private static final Set<String> HASHABLE = Set.of("string", "int", "long", "binary");

  /** The spec's "Applicable to", written out per action. */
  private static final Map<MaskAction, Set<String>> APPLICABLE = Map.of(
      MaskAction.MASK_ALPHANUM, Set.of("string"),
      MaskAction.SHOW_FIRST_4, Set.of("string"),
      MaskAction.SHOW_LAST_4, Set.of("string"),
      MaskAction.REPLACE_WITH_NULL, TYPES.keySet(),
      MaskAction.MASK_TO_FIXED_VALUE, TYPES.keySet().stream()
          .filter(name -> !Set.of("geometry", "geography", "unknown").contains(name)).collect(Collectors.toSet()),
      MaskAction.TRUNCATE_TO_YEAR, DATES_AND_TIMESTAMPS,
      MaskAction.TRUNCATE_TO_MONTH, DATES_AND_TIMESTAMPS,
      MaskAction.SHA_256_GLOBAL, HASHABLE,
      MaskAction.SHA_256_QUERY_LOCAL, HASHABLE);

  // the vectors

  static Stream<Arguments> stringVectors() {
    return Stream.of(
        Arguments.of(MaskAction.MASK_ALPHANUM, "prashant010696@gmail.com", "xxxxxxxxnnnnnn@xxxxx.xxx"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "(555) 123-4567", "(nnn)xnnn-nnnn"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "a.b,c", "x.x,x"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "\u00dcn\u00efc\u00f6d\u00e9 123", "xxxxxxxxnnn"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "\ud83d\ude00a1", "xxn"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "\u0663\u0664\u0665", "xxx"),
        Arguments.of(MaskAction.MASK_ALPHANUM, "e\u0301", "xx"),
        Arguments.of(MaskAction.SHOW_FIRST_4, "prashant010696@gmail.com", "prasxxxxnnnnnn@xxxxx.xxx"),
        Arguments.of(MaskAction.SHOW_FIRST_4, "(555) 123-4567", "(555)xnnn-nnnn"),
        Arguments.of(MaskAction.SHOW_LAST_4, "4111-1111-1111-4444", "nnnn-nnnn-nnnn-4444"),
        Arguments.of(MaskAction.SHOW_LAST_4, "(555) 123-4567", "(nnn)xnnn-4567"),
        Arguments.of(MaskAction.SHOW_FIRST_4, "abcd", "abcd"),
        Arguments.of(MaskAction.SHOW_FIRST_4, "ab", "ab"),
        Arguments.of(MaskAction.SHOW_FIRST_4, "", ""),
        Arguments.of(MaskAction.SHOW_LAST_4, "abcd", "abcd"),
        Arguments.of(MaskAction.SHOW_LAST_4, "ab", "ab"),
        Arguments.of(MaskAction.SHOW_LAST_4, "", ""),
        Arguments.of(MaskAction.SHA_256_GLOBAL, "hello",
            "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"),
        Arguments.of(MaskAction.SHA_256_GLOBAL, "caf\u00e9",
            "850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e"));
  }

  @ParameterizedTest(name = "{0} of \"{1}\"")
  @MethodSource("stringVectors")
  void theStringVectorsOfTheSpec(MaskAction action, String input, String expected) {
    UnaryOperator<Object> bound = bind(action, Types.StringType.get());
    assertThat(bound.apply(input)).isEqualTo(expected);
    // Avro hands strings over as other CharSequences: the result is a String all the same
    assertThat(bound.apply(new StringBuilder(input))).isInstanceOf(String.class).isEqualTo(expected);
  }

  @Test
  void theHashVectorsOfTheSpecAreSha256OfTheBytesTheRulesGive() {
    assertThat(bind(MaskAction.SHA_256_GLOBAL, Types.IntegerType.get()).apply(42)).isEqualTo(-290282264)
        .isEqualTo(littleEndianInt(sha256(littleEndian(42))));
    assertThat(bind(MaskAction.SHA_256_GLOBAL, Types.IntegerType.get()).apply(-1)).isEqualTo(454268333)
        .isEqualTo(littleEndianInt(sha256(littleEndian(-1))));
    assertThat(bind(MaskAction.SHA_256_GLOBAL, Types.LongType.get()).apply(42L)).isEqualTo(-4111196313959201555L)
        .isEqualTo(littleEndianLong(sha256(littleEndian(42L))));
    byte[] digest = sha256(new byte[] {1, 2, 3});
    assertThat(digest).isEqualTo(hex("039058c6f2c0cb492c533b0a4d14ef77cc0f78abccced5287d84a1a2011cfb81"));
    assertThat(bind(MaskAction.SHA_256_GLOBAL, Types.BinaryType.get()).apply(ByteBuffer.wrap(new byte[] {1, 2, 3})))
        .isEqualTo(ByteBuffer.wrap(digest));
    assertThat(HexFormat.of().formatHex(sha256("hello".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
    // NFC: é is one code point, two UTF-8 bytes
    assertThat("caf\u00e9".getBytes(StandardCharsets.UTF_8)).hasSize(5);
    assertThat(HexFormat.of().formatHex(sha256("caf\u00e9".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("850f7dc43910ff890f8879c0ed26fe697c93a067ad93a7d50f466a7028a9bf4e");
  }

  @Test
  void theQueryLocalVectorIsSha256OfTheSaltThenTheInput() {
    String expected = "06c343731700ca16797f96e987180093e28b4c653e08efccb4f5fbb91313f56c";
    assertThat(MaskAction.SHA_256_QUERY_LOCAL.bind(Types.StringType.get(), SALT_OF_ONES).apply("hello"))
        .isEqualTo(expected);
    assertThat(HexFormat.of().formatHex(sha256(SALT_OF_ONES, "hello".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo(expected);
  }

  @Test
  void theDateAndTimestamptzVectors() {
    LocalDate date = LocalDate.of(2024, 7, 15);
    assertThat(bind(MaskAction.TRUNCATE_TO_YEAR, Types.DateType.get()).apply(date)).isEqualTo(LocalDate.of(2024, 1, 1));
    assertThat(bind(MaskAction.TRUNCATE_TO_MONTH, Types.DateType.get()).apply(date))
        .isEqualTo(LocalDate.of(2024, 7, 1));
    OffsetDateTime instant = OffsetDateTime.of(2024, 7, 15, 13, 45, 30, 0, ZoneOffset.UTC);
    assertThat(bind(MaskAction.TRUNCATE_TO_YEAR, Types.TimestampType.withZone()).apply(instant))
        .isEqualTo(OffsetDateTime.parse("2024-01-01T00:00Z"));
    assertThat(bind(MaskAction.TRUNCATE_TO_MONTH, Types.TimestampType.withZone()).apply(instant))
        .isEqualTo(OffsetDateTime.parse("2024-07-01T00:00Z"));
  }

  @Test
  void theFixedValueVectorsNullIntAndDecimal() {
    assertThat(bind(MaskAction.MASK_TO_FIXED_VALUE, Types.IntegerType.get()).apply(null)).isEqualTo(0);
    Object decimal = bind(MaskAction.MASK_TO_FIXED_VALUE, Types.DecimalType.of(10, 2)).apply(new BigDecimal("12.34"));
    assertThat(decimal).isEqualTo(new BigDecimal("0.00"));
    assertThat(((BigDecimal) decimal).scale()).isEqualTo(2);
  }

  // nulls

  static Stream<Arguments> nullKeepingActions() {
    return APPLICABLE.entrySet().stream().filter(entry -> entry.getKey() != MaskAction.MASK_TO_FIXED_VALUE)
        .flatMap(entry -> entry.getValue().stream().sorted().map(type -> Arguments.of(entry.getKey(), type)));
  }

  @ParameterizedTest(name = "{0} on {1}")
  @MethodSource("nullKeepingActions")
  void everyActionButTheFixedValueKeepsANull(MaskAction action, String type) {
    assertThat(action.bind(TYPES.get(type), SALT_OF_ONES).apply(null)).isNull();
  }

  static Stream<Arguments> fixedValues() {
    return Stream.of(
        Arguments.of("boolean", true, false),
        Arguments.of("int", 7, 0),
        Arguments.of("long", 7L, 0L),
        Arguments.of("float", 1.5f, 0.0f),
        Arguments.of("double", -1.5d, 0.0d),
        Arguments.of("decimal", new BigDecimal("-99.99"), new BigDecimal("0.00")),
        Arguments.of("string", "secret", "XXXXXXXX"),
        Arguments.of("date", LocalDate.of(2024, 7, 15), LocalDate.of(1970, 1, 1)),
        Arguments.of("time", LocalTime.of(13, 45, 30), LocalTime.of(0, 0)),
        Arguments.of("timestamp", LocalDateTime.of(2024, 7, 15, 13, 45), LocalDateTime.of(1970, 1, 1, 0, 0)),
        Arguments.of("timestamp_ns", LocalDateTime.of(2024, 7, 15, 13, 45, 1, 5), LocalDateTime.of(1970, 1, 1, 0, 0)),
        Arguments.of("timestamptz", OffsetDateTime.parse("2024-07-15T13:45+02:00"),
            OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
        Arguments.of("timestamptz_ns", OffsetDateTime.parse("2024-07-15T13:45:00.000000001Z"),
            OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC)),
        Arguments.of("uuid", UUID.randomUUID(), UUID.fromString("00000000-0000-0000-0000-000000000000")),
        Arguments.of("fixed", new byte[] {1, 2, 3}, new byte[3]),
        Arguments.of("binary", ByteBuffer.wrap(new byte[] {1}), ByteBuffer.allocate(0)),
        Arguments.of("list", new ArrayList<>(List.of("a")), List.of()),
        Arguments.of("map", Map.of("a", 1L), Map.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("fixedValues")
  void theFixedValueOfEachTypeReplacesAValueAndANullAlike(String type, Object value, Object fixed) {
    UnaryOperator<Object> bound = bind(MaskAction.MASK_TO_FIXED_VALUE, TYPES.get(type));
    Object fromValue = bound.apply(value);
    Object fromNull = bound.apply(null);
    assertThat(fromValue).isEqualTo(fixed);
    assertThat(fromNull).isEqualTo(fixed);
    if (!(fixed instanceof List || fixed instanceof Map)) {
      assertThat(fromValue).hasSameClassAs(fixed);
      assertThat(fromNull).hasSameClassAs(fixed);
    }
    if (fixed instanceof OffsetDateTime) {
      assertThat(((OffsetDateTime) fromValue).getOffset()).isEqualTo(ZoneOffset.UTC);
    }
  }

  @Test
  void mutableFixedValuesAreNewForEachValue() {
    UnaryOperator<Object> fixed = bind(MaskAction.MASK_TO_FIXED_VALUE, Types.FixedType.ofLength(4));
    byte[] bytes = (byte[]) fixed.apply(null);
    assertThat(bytes).isEqualTo(new byte[4]);
    bytes[0] = 9;
    assertThat(fixed.apply(null)).isNotSameAs(bytes).isEqualTo(new byte[4]);

    UnaryOperator<Object> list = bind(MaskAction.MASK_TO_FIXED_VALUE, TYPES.get("list"));
    @SuppressWarnings("unchecked")
    List<Object> first = (List<Object>) list.apply(null);
    first.add("leaked");
    assertThat(list.apply(null)).isNotSameAs(first).isEqualTo(List.of());

    UnaryOperator<Object> map = bind(MaskAction.MASK_TO_FIXED_VALUE, TYPES.get("map"));
    @SuppressWarnings("unchecked")
    Map<Object, Object> firstMap = (Map<Object, Object>) map.apply(null);
    firstMap.put("leaked", 1L);
    assertThat(map.apply(null)).isNotSameAs(firstMap).isEqualTo(Map.of());

    UnaryOperator<Object> binary = bind(MaskAction.MASK_TO_FIXED_VALUE, Types.BinaryType.get());
    assertThat(binary.apply(null)).isNotSameAs(binary.apply(null));
  }

  @Test
  void theFixedValueOfAVariantIsAnEmptyObject() {
    UnaryOperator<Object> bound = bind(MaskAction.MASK_TO_FIXED_VALUE, Types.VariantType.get());
    Variant variant = (Variant) bound.apply(null);
    assertThat(variant.metadata().dictionarySize()).isZero();
    assertThat(variant.value().type()).isEqualTo(PhysicalType.OBJECT);
    assertThat(variant.value().asObject().numFields()).isZero();
    // as written: an object header, no fields, and the one offset past the (empty) data
    ByteBuffer written = ByteBuffer.allocate(variant.value().sizeInBytes()).order(ByteOrder.LITTLE_ENDIAN);
    variant.value().writeTo(written, 0);
    assertThat(written.array()).containsExactly(0x02, 0x00, 0x00);
    VariantValue read = VariantValue.from(variant.metadata(), written);
    assertThat(read.asObject().numFields()).isZero();
    assertThat(bound.apply(null)).isNotSameAs(variant);
  }

  @Test
  void theFixedValueOfAStructIsEachFieldsOwnRecursively() {
    Types.StructType inner = Types.StructType.of(
        Types.NestedField.optional(20, "note", Types.StringType.get()),
        Types.NestedField.required(21, "at", Types.TimestampNanoType.withZone()));
    Types.StructType struct = Types.StructType.of(
        Types.NestedField.required(10, "count", Types.IntegerType.get()),
        Types.NestedField.optional(11, "tags", Types.ListType.ofRequired(12, Types.StringType.get())),
        Types.NestedField.optional(13, "scores", Types.MapType.ofOptional(14, 15, Types.StringType.get(),
            Types.DoubleType.get())),
        Types.NestedField.optional(16, "price", Types.DecimalType.of(9, 3)),
        Types.NestedField.optional(17, "inner", inner),
        Types.NestedField.optional(18, "payload", Types.FixedType.ofLength(2)));
    UnaryOperator<Object> bound = bind(MaskAction.MASK_TO_FIXED_VALUE, struct);

    Record record = (Record) bound.apply(null);
    assertThat(record.struct()).isEqualTo(struct);
    assertThat(record.getField("count")).isEqualTo(0);
    assertThat(record.getField("tags")).isEqualTo(List.of());
    assertThat(record.getField("scores")).isEqualTo(Map.of());
    assertThat(record.getField("price")).isEqualTo(new BigDecimal("0.000"));
    assertThat(((BigDecimal) record.getField("price")).scale()).isEqualTo(3);
    assertThat(record.getField("payload")).isEqualTo(new byte[2]);
    Record innerRecord = (Record) record.getField("inner");
    assertThat(innerRecord.struct()).isEqualTo(inner);
    assertThat(innerRecord.getField("note")).isEqualTo("XXXXXXXX");
    assertThat(innerRecord.getField("at")).isEqualTo(OffsetDateTime.of(1970, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC));

    Record again = (Record) bound.apply(null);
    assertThat(again).isNotSameAs(record);
    assertThat(again.getField("tags")).isNotSameAs(record.getField("tags"));
    assertThat(again.getField("inner")).isNotSameAs(innerRecord);
    record.setField("count", 5);
    assertThat(again.getField("count")).isEqualTo(0);
  }

  // truncation

  @Test
  void aTimestamptzIsTruncatedInUtcAcrossItsOffset() {
    OffsetDateTime newYearInKarachi = OffsetDateTime.parse("2024-01-01T01:30+05:00");
    Object year = bind(MaskAction.TRUNCATE_TO_YEAR, Types.TimestampType.withZone()).apply(newYearInKarachi);
    Object month = bind(MaskAction.TRUNCATE_TO_MONTH, Types.TimestampType.withZone()).apply(newYearInKarachi);
    assertThat(year).isEqualTo(OffsetDateTime.parse("2023-01-01T00:00Z"));
    assertThat(month).isEqualTo(OffsetDateTime.parse("2023-12-01T00:00Z"));
    assertThat(((OffsetDateTime) year).getOffset()).isEqualTo(ZoneOffset.UTC);
    // and the other way: still 2024 in UTC
    assertThat(bind(MaskAction.TRUNCATE_TO_YEAR, Types.TimestampNanoType.withZone())
        .apply(OffsetDateTime.parse("2023-12-31T22:00:00.5-03:00")))
        .isEqualTo(OffsetDateTime.parse("2024-01-01T00:00Z"));
  }

  @Test
  void nanosecondTimestampsKeepNothingBelowTheTruncation() {
    LocalDateTime local = LocalDateTime.of(2024, 7, 15, 23, 59, 59, 999_999_999);
    assertThat(bind(MaskAction.TRUNCATE_TO_MONTH, Types.TimestampNanoType.withoutZone()).apply(local))
        .isEqualTo(LocalDateTime.of(2024, 7, 1, 0, 0, 0, 0));
    assertThat(bind(MaskAction.TRUNCATE_TO_YEAR, Types.TimestampNanoType.withoutZone()).apply(local))
        .isEqualTo(LocalDateTime.of(2024, 1, 1, 0, 0, 0, 0));
    assertThat(bind(MaskAction.TRUNCATE_TO_MONTH, Types.TimestampType.withoutZone()).apply(local))
        .isEqualTo(LocalDateTime.of(2024, 7, 1, 0, 0));
    OffsetDateTime utc = OffsetDateTime.of(2024, 7, 15, 23, 59, 59, 1, ZoneOffset.UTC);
    assertThat(bind(MaskAction.TRUNCATE_TO_MONTH, Types.TimestampNanoType.withZone()).apply(utc))
        .isEqualTo(OffsetDateTime.of(2024, 7, 1, 0, 0, 0, 0, ZoneOffset.UTC));
  }

  // unicode

  @Test
  void maskAlphanumMasksCodePointsOfAnyScriptAndKeepsOnlyAsciiDigitsAndSixMarks() {
    UnaryOperator<Object> mask = bind(MaskAction.MASK_ALPHANUM, Types.StringType.get());
    assertThat(mask.apply("\u03a9\u03bc\u03ad\u03b3\u03b1 \u6f22\u5b57")).isEqualTo("xxxxxxxx");
    // Arabic-Indic, Devanagari and full-width digits are not ASCII digits
    assertThat(mask.apply("\u0661\u0662 \u0967 \uff11 12")).isEqualTo("xxxxxxxnn");
    // a surrogate pair is one code point; a skin tone modifier is another
    assertThat(mask.apply("\ud83d\ude00")).isEqualTo("x");
    assertThat(mask.apply("\ud83d\udc4d\ud83c\udffd")).isEqualTo("xx");
    assertThat(mask.apply("\ud835\udfce")).as("mathematical bold digit zero").isEqualTo("x");
    // no normalization: a decomposed é is two code points, a precomposed one is one
    assertThat(mask.apply("e\u0301")).isEqualTo("xx");
    assertThat(mask.apply("\u00e9")).isEqualTo("x");
    assertThat(mask.apply("()[]{},.;:-_@#!?/\\ \t\n")).isEqualTo("()xxxx,.xx-x@xxxxxxxx");
    // a lone surrogate is a code point of its own too
    assertThat(mask.apply("a\ud800b")).isEqualTo("xxx");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "a", "\ud83d\ude00", "ab", "1\u0301", "abc", "\u00e9\u00e9\u00e9", "abcd", "(55)",
      "\ud83d\ude00\ud83d\ude01\ud83d\ude02\ud83d\ude03", "e\u0301e\u0301", "\u6f22\u5b57\u0663\ud83d\ude00"})
  void valuesOfAtMostFourCodePointsAreShownWhole(String value) {
    assertThat(bind(MaskAction.SHOW_FIRST_4, Types.StringType.get()).apply(value)).isEqualTo(value);
    assertThat(bind(MaskAction.SHOW_LAST_4, Types.StringType.get()).apply(value)).isEqualTo(value);
  }

  @Test
  void showFirst4AndShowLast4CountCodePointsNotChars() {
    String emoji = "\ud83d\ude00\ud83d\ude01\ud83d\ude02\ud83d\ude03\ud83d\ude04";
    assertThat(bind(MaskAction.SHOW_FIRST_4, Types.StringType.get()).apply(emoji))
        .isEqualTo("\ud83d\ude00\ud83d\ude01\ud83d\ude02\ud83d\ude03x");
    assertThat(bind(MaskAction.SHOW_LAST_4, Types.StringType.get()).apply(emoji))
        .isEqualTo("x\ud83d\ude01\ud83d\ude02\ud83d\ude03\ud83d\ude04");
    assertThat(bind(MaskAction.SHOW_FIRST_4, Types.StringType.get()).apply("abcde")).isEqualTo("abcdx");
    assertThat(bind(MaskAction.SHOW_LAST_4, Types.StringType.get()).apply("abcde")).isEqualTo("xbcde");
    assertThat(bind(MaskAction.SHOW_FIRST_4, Types.StringType.get()).apply("e\u0301e\u0301e\u0301"))
        .isEqualTo("e\u0301e\u0301xx");
    assertThat(bind(MaskAction.SHOW_LAST_4, Types.StringType.get()).apply("\u0661\u0662 12\ud83d\ude00-"))
        .isEqualTo("xxx12\ud83d\ude00-");
  }

  // compared with another computation, on random values

  @Test
  void theMasksAgreeWithAnotherComputationOnRandomStrings() {
    long seed = seed();
    Random random = new Random(seed);
    UnaryOperator<Object> mask = bind(MaskAction.MASK_ALPHANUM, Types.StringType.get());
    UnaryOperator<Object> first = bind(MaskAction.SHOW_FIRST_4, Types.StringType.get());
    UnaryOperator<Object> last = bind(MaskAction.SHOW_LAST_4, Types.StringType.get());
    for (int i = 0; i < 5000; i++) {
      String value = randomString(random);
      int[] codePoints = value.codePoints().toArray();
      int n = codePoints.length;
      String description = "seed " + seed + ", value " + i + ": " + value;
      assertThat(mask.apply(value)).as(description).isEqualTo(maskedByRegex(value));
      String expectedFirst = n <= 4 ? value : new String(codePoints, 0, 4) + maskedByRegex(new String(codePoints, 4,
          n - 4));
      String expectedLast = n <= 4 ? value : maskedByRegex(new String(codePoints, 0, n - 4))
          + new String(codePoints, n - 4, 4);
      assertThat(first.apply(value)).as(description).isEqualTo(expectedFirst);
      assertThat(last.apply(value)).as(description).isEqualTo(expectedLast);
    }
  }

  @Test
  void theHashesAgreeWithMessageDigestOnRandomValues() {
    long seed = seed();
    Random random = new Random(seed);
    byte[] salt = new byte[16 + random.nextInt(17)];
    random.nextBytes(salt);
    for (byte[] withSalt : List.of(new byte[0], salt)) {
      MaskAction action = withSalt.length == 0 ? MaskAction.SHA_256_GLOBAL : MaskAction.SHA_256_QUERY_LOCAL;
      UnaryOperator<Object> strings = action.bind(Types.StringType.get(), salt);
      UnaryOperator<Object> ints = action.bind(Types.IntegerType.get(), salt);
      UnaryOperator<Object> longs = action.bind(Types.LongType.get(), salt);
      UnaryOperator<Object> binaries = action.bind(Types.BinaryType.get(), salt);
      for (int i = 0; i < 2000; i++) {
        String description = "seed " + seed + ", " + action.wireName() + ", value " + i;
        String string = randomString(random);
        assertThat(strings.apply(string)).as(description)
            .isEqualTo(HexFormat.of().formatHex(sha256(withSalt, string.getBytes(StandardCharsets.UTF_8))));
        int anInt = random.nextInt();
        assertThat(ints.apply(anInt)).as(description)
            .isEqualTo(ByteBuffer.wrap(sha256(withSalt, littleEndian(anInt))).order(ByteOrder.LITTLE_ENDIAN).getInt());
        long aLong = random.nextLong();
        assertThat(longs.apply(aLong)).as(description).isEqualTo(
            ByteBuffer.wrap(sha256(withSalt, littleEndian(aLong))).order(ByteOrder.LITTLE_ENDIAN).getLong());
        byte[] bytes = new byte[random.nextInt(70)];
        random.nextBytes(bytes);
        assertThat(binaries.apply(ByteBuffer.wrap(bytes))).as(description)
            .isEqualTo(ByteBuffer.wrap(sha256(withSalt, bytes)));
      }
    }
  }

  @Test
  void aBinaryIsHashedFromItsPositionWhichItKeeps() {
    ByteBuffer buffer = ByteBuffer.wrap(new byte[] {9, 1, 2, 3});
    buffer.position(1);
    Object hashed = bind(MaskAction.SHA_256_GLOBAL, Types.BinaryType.get()).apply(buffer);
    assertThat(hashed).isEqualTo(ByteBuffer.wrap(sha256(new byte[] {1, 2, 3})));
    assertThat(((ByteBuffer) hashed).remaining()).isEqualTo(32);
    assertThat(buffer.position()).isEqualTo(1);
    assertThat(buffer.remaining()).isEqualTo(3);
  }

  @Test
  void theBoundFunctionsGiveTheSameResultsOnManyThreadsAtOnce() throws Exception {
    UnaryOperator<Object> strings = MaskAction.SHA_256_QUERY_LOCAL.bind(Types.StringType.get(), SALT_OF_ONES);
    UnaryOperator<Object> longs = bind(MaskAction.SHA_256_GLOBAL, Types.LongType.get());
    UnaryOperator<Object> mask = bind(MaskAction.SHOW_LAST_4, Types.StringType.get());
    List<Object> expected = new ArrayList<>();
    for (int i = 0; i < 500; i++) {
      expected.add(List.of(strings.apply("value " + i), longs.apply((long) i), mask.apply("value " + i)));
    }
    ExecutorService threads = Executors.newFixedThreadPool(8);
    try {
      List<Callable<List<Object>>> readers = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        readers.add(() -> {
          List<Object> results = new ArrayList<>();
          for (int i = 0; i < 500; i++) {
            results.add(List.of(strings.apply("value " + i), longs.apply((long) i), mask.apply("value " + i)));
          }
          return results;
        });
      }
      for (Future<List<Object>> read : threads.invokeAll(readers)) {
        assertThat(read.get()).isEqualTo(expected);
      }
    }
    finally {
      threads.shutdownNow();
    }
  }

  // salt

  @Test
  void queryLocalNeedsASaltOfSixteenBytesAndKeepsItsOwnCopy() {
    assertThatThrownBy(() -> MaskAction.SHA_256_QUERY_LOCAL.bind(Types.StringType.get(), null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> MaskAction.SHA_256_QUERY_LOCAL.bind(Types.StringType.get(), new byte[15]))
        .isInstanceOf(IllegalArgumentException.class);
    byte[] salt = SALT_OF_ONES.clone();
    UnaryOperator<Object> bound = MaskAction.SHA_256_QUERY_LOCAL.bind(Types.StringType.get(), salt);
    Arrays.fill(salt, (byte) 0);
    assertThat(bound.apply("hello")).isEqualTo("06c343731700ca16797f96e987180093e28b4c653e08efccb4f5fbb91313f56c");
    // the global hash takes no salt, whatever it is given
    assertThat(MaskAction.SHA_256_GLOBAL.bind(Types.StringType.get(), SALT_OF_ONES).apply("hello"))
        .isEqualTo("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
  }

  @Test
  void aQuerySaltIsThirtyTwoFreshBytes() {
    byte[] salt = MaskAction.newQuerySalt();
    assertThat(salt).hasSize(32);
    assertThat(MaskAction.newQuerySalt()).hasSize(32).isNotEqualTo(salt);
    assertThat(MaskAction.SHA_256_QUERY_LOCAL.bind(Types.LongType.get(), salt).apply(42L))
        .isNotEqualTo(MaskAction.SHA_256_QUERY_LOCAL.bind(Types.LongType.get(), MaskAction.newQuerySalt()).apply(42L));
  }

  // refusal

  @ParameterizedTest
  @EnumSource(MaskAction.class)
  void eachActionAppliesToItsTypesAndRefusesTheOthersWithARuleText(MaskAction action) {
    for (Map.Entry<String, Type> type : TYPES.entrySet()) {
      String refusal = action.refusal(type.getValue(), true);
      if (APPLICABLE.get(action).contains(type.getKey())) {
        assertThat(refusal).as(type.getKey()).isNull();
        assertThat(action.bind(type.getValue(), SALT_OF_ONES)).as(type.getKey()).isNotNull();
      }
      else {
        assertThat(refusal).as(type.getKey()).startsWith(action.wireName() + " ");
        assertThatThrownBy(() -> action.bind(type.getValue(), SALT_OF_ONES)).as(type.getKey())
            .isInstanceOf(IllegalArgumentException.class).hasMessage(refusal);
      }
    }
  }

  @Test
  void theRuleTextsNameTheActionAndTheTypesOnly() {
    assertThat(MaskAction.MASK_ALPHANUM.refusal(Types.LongType.get(), true))
        .isEqualTo("mask-alphanum applies to string only, not to long");
    assertThat(MaskAction.SHOW_LAST_4.refusal(TYPES.get("struct"), true))
        .isEqualTo("show-last-4 applies to string only, not to struct");
    assertThat(MaskAction.TRUNCATE_TO_MONTH.refusal(Types.TimeType.get(), true)).isEqualTo(
        "truncate-to-month applies to date, timestamp, timestamptz, timestamp_ns and timestamptz_ns only, not to time");
    assertThat(MaskAction.SHA_256_GLOBAL.refusal(Types.FixedType.ofLength(16), true))
        .isEqualTo("sha-256-global applies to string, int, long and binary only, not to fixed[16]");
    assertThat(MaskAction.SHA_256_QUERY_LOCAL.refusal(Types.UUIDType.get(), true))
        .isEqualTo("sha-256-query-local applies to string, int, long and binary only, not to uuid");
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(Types.UnknownType.get(), true))
        .isEqualTo("mask-to-fixed-value has no fixed value for unknown");
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(Types.GeometryType.of("EPSG:4326"), true))
        .isEqualTo("mask-to-fixed-value has no fixed value for geometry");
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(Types.GeographyType.crs84(), false))
        .isEqualTo("mask-to-fixed-value has no fixed value for geography");
    assertThat(MaskAction.SHA_256_GLOBAL.refusal(Types.DecimalType.of(10, 2), true))
        .isEqualTo("sha-256-global applies to string, int, long and binary only, not to decimal(10, 2)");
    assertThat(MaskAction.MASK_ALPHANUM.refusal(Types.TimestampNanoType.withZone(), true))
        .isEqualTo("mask-alphanum applies to string only, not to timestamptz_ns");
  }

  @Test
  void replaceWithNullIsRefusedOnARequiredFieldOnly() {
    for (Type type : TYPES.values()) {
      assertThat(MaskAction.REPLACE_WITH_NULL.refusal(type, true)).as(type.toString()).isNull();
      assertThat(MaskAction.REPLACE_WITH_NULL.refusal(type, false)).as(type.toString())
          .isEqualTo("replace-with-null on a required field");
    }
    assertThat(bind(MaskAction.REPLACE_WITH_NULL, Types.StringType.get()).apply("secret")).isNull();
    assertThat(bind(MaskAction.REPLACE_WITH_NULL, TYPES.get("struct")).apply(new Object())).isNull();
    // the others do not depend on optionality
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(Types.IntegerType.get(), false)).isNull();
    assertThat(MaskAction.SHA_256_GLOBAL.refusal(Types.IntegerType.get(), false)).isNull();
  }

  @Test
  void aStructHasAFixedValueOnlyIfEveryFieldHasOneAtAnyDepth() {
    Types.StructType deep = Types.StructType.of(
        Types.NestedField.optional(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "place", Types.StructType.of(
            Types.NestedField.optional(3, "name", Types.StringType.get()),
            Types.NestedField.optional(4, "shape", Types.GeometryType.crs84()))));
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(deep, true))
        .isEqualTo("mask-to-fixed-value has no fixed value for geometry");
    assertThatThrownBy(() -> MaskAction.MASK_TO_FIXED_VALUE.bind(deep, null))
        .isInstanceOf(IllegalArgumentException.class);
    // an empty list or map needs no value of its elements
    assertThat(MaskAction.MASK_TO_FIXED_VALUE.refusal(Types.ListType.ofOptional(5, Types.GeometryType.crs84()), true))
        .isNull();
  }

  @Test
  void aValueOfTheWrongClassFailsWithoutTheValueInTheMessage() {
    assertThatThrownBy(() -> bind(MaskAction.SHA_256_GLOBAL, Types.IntegerType.get()).apply(123456789L))
        .isInstanceOf(ClassCastException.class).message().doesNotContain("123456789");
    assertThatThrownBy(() -> bind(MaskAction.MASK_ALPHANUM, Types.StringType.get()).apply(123456789))
        .isInstanceOf(ClassCastException.class).message().doesNotContain("123456789");
  }

  // names

  @ParameterizedTest
  @EnumSource(MaskAction.class)
  void eachWireNameNamesItsAction(MaskAction action) {
    assertThat(MaskAction.fromWireName(action.wireName())).isSameAs(action);
  }

  @Test
  void theWireNamesAreTheSpecsNine() {
    assertThat(Stream.of(MaskAction.values()).map(MaskAction::wireName)).containsExactly("mask-alphanum",
        "show-first-4", "show-last-4", "replace-with-null", "mask-to-fixed-value", "truncate-to-year",
        "truncate-to-month", "sha-256-global", "sha-256-query-local");
  }

  @ParameterizedTest
  @ValueSource(strings = {"mask-to-default", "apply-expression", "MASK-ALPHANUM", "mask_alphanum", "MASK_ALPHANUM",
      " mask-alphanum", "sha-256", ""})
  void anyOtherNameHasNoAction(String name) {
    assertThat(MaskAction.fromWireName(name)).isNull();
  }

  // what the tests compute their own way

  private static UnaryOperator<Object> bind(MaskAction action, Type type) {
    return action.bind(type, null);
  }

  /** mask-alphanum by regular expressions, on each code point's own string. */
  private static String maskedByRegex(String value) {
    return value.codePoints().mapToObj(Character::toString)
        .map(codePoint -> codePoint.matches("[0-9]") ? "n" : codePoint.matches("[(),.@-]") ? codePoint : "x")
        .collect(Collectors.joining());
  }

  private static String randomString(Random random) {
    int length = random.nextInt(4) == 0 ? random.nextInt(6) : random.nextInt(40);
    StringBuilder value = new StringBuilder();
    for (int i = 0; i < length; i++) {
      int pick = random.nextInt(RANGES.length + 1);
      if (pick == RANGES.length) {
        value.append(KEPT.charAt(random.nextInt(KEPT.length())));
      }
      else {
        int[] range = RANGES[pick];
        value.appendCodePoint(range[0] + random.nextInt(range[1] - range[0] + 1));
      }
    }
    return value.toString();
  }

  /** A new seed each run, so that runs cover more; set -Dmask.seed to repeat one a failure names. */
  private static long seed() {
    return Long.getLong("mask.seed", ThreadLocalRandom.current().nextLong());
  }

  private static byte[] sha256(byte[]... parts) {
    try {
      MessageDigest digest = MessageDigest.getInstance("SHA-256");
      for (byte[] part : parts) {
        digest.update(part);
      }
      return digest.digest();
    }
    catch (NoSuchAlgorithmException everyJavaHasIt) {
      throw new IllegalStateException(everyJavaHasIt);
    }
  }

  private static byte[] littleEndian(int value) {
    return new byte[] {(byte) value, (byte) (value >>> 8), (byte) (value >>> 16), (byte) (value >>> 24)};
  }

  private static byte[] littleEndian(long value) {
    byte[] bytes = new byte[8];
    for (int i = 0; i < 8; i++) {
      bytes[i] = (byte) (value >>> (8 * i));
    }
    return bytes;
  }

  private static int littleEndianInt(byte[] bytes) {
    return (bytes[0] & 0xff) | (bytes[1] & 0xff) << 8 | (bytes[2] & 0xff) << 16 | (bytes[3] & 0xff) << 24;
  }

  private static long littleEndianLong(byte[] bytes) {
    long value = 0;
    for (int i = 7; i >= 0; i--) {
      value = value << 8 | (bytes[i] & 0xff);
    }
    return value;
  }

  private static byte[] hex(String hex) {
    return HexFormat.of().parseHex(hex);
  }

  private static byte[] filled(int length, byte value) {
    byte[] bytes = new byte[length];
    Arrays.fill(bytes, value);
    return bytes;
  }
}
