package io.icebergscan.planning.internal.wire;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import io.icebergscan.planning.model.ContentFile;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The spec's {@code ContentFile}s: a {@code DataFile}, or a {@code PositionDeleteFile} or
 * {@code EqualityDeleteFile} (plus {@code referenced-data-file}, as Apache Iceberg writes it). The fields all
 * content files share are read once, then the kind's own.
 */
final class ContentFileParser {

  private ContentFileParser() {
  }

  static DataFile dataFile(JsonReader in, JsonNode node, Path path) {
    return (DataFile) read(in, node, path, true);
  }

  static DeleteFile deleteFile(JsonReader in, JsonNode node, Path path) {
    return (DeleteFile) read(in, node, path, false);
  }

  private static ContentFile read(JsonReader in, JsonNode node, Path path, boolean dataFile) {
    JsonNode file = in.object(node, path);
    FileContent content = content(in, in.required(file, path, "content"), path.field("content"));
    int specId = in.intValue(in.required(file, path, "spec-id"), path.field("spec-id"));
    List<@Nullable Object> partition = partition(in, in.required(file, path, "partition"), path.field("partition"));
    String filePath = in.nonEmptyString(in.required(file, path, "file-path"), path.field("file-path"));
    FileFormat format = fileFormat(in, in.required(file, path, "file-format"), path.field("file-format"));
    long size = in.nonNegativeLong(in.required(file, path, "file-size-in-bytes"), path.field("file-size-in-bytes"));
    long records = in.nonNegativeLong(in.required(file, path, "record-count"), path.field("record-count"));
    JsonNode keyNode = in.optional(file, "key-metadata");
    String keyMetadata = keyNode == null ? null : hex(in, keyNode, path.field("key-metadata"));
    JsonNode splitsNode = in.optional(file, "split-offsets");
    List<Long> splitOffsets = splitsNode == null
        ? List.of()
        : in.nonNegativeLongList(splitsNode, path.field("split-offsets"));
    JsonNode sortNode = in.optional(file, "sort-order-id");
    Integer sortOrderId = sortNode == null ? null : in.intValue(sortNode, path.field("sort-order-id"));

    if (dataFile) {
      if (content != FileContent.DATA) {
        throw in.fail("a data file must have content 'data', not '" + content.name() + "'", path.field("content"));
      }
      Long firstRowId = in.optionalNonNegativeLong(file, path, "first-row-id");
      Map<Integer, Long> columnSizes = countMap(in, file, path, "column-sizes");
      Map<Integer, Long> valueCounts = countMap(in, file, path, "value-counts");
      Map<Integer, Long> nullValueCounts = countMap(in, file, path, "null-value-counts");
      Map<Integer, Long> nanValueCounts = countMap(in, file, path, "nan-value-counts");
      Map<Integer, Object> lowerBounds = valueMap(in, file, path, "lower-bounds");
      Map<Integer, Object> upperBounds = valueMap(in, file, path, "upper-bounds");
      try {
        return new DataFile(filePath, format, specId, partition, size, records, keyMetadata, splitOffsets,
            sortOrderId, firstRowId, columnSizes, valueCounts, nullValueCounts, nanValueCounts, lowerBounds,
            upperBounds);
      }
      catch (IllegalArgumentException | NullPointerException ex) {
        // a rule of the model's own that the checks here did not cover is still a malformed answer
        throw in.fail("invalid data file" + in.shown(": ", ex.getMessage()), path);
      }
    }

    if (content == FileContent.DATA) {
      throw in.fail("a delete file cannot have content 'data'", path.field("content"));
    }
    List<Integer> equalityIds = List.of();
    if (content == FileContent.EQUALITY_DELETES) {
      Path idsPath = path.field("equality-ids");
      JsonNode ids = in.optional(file, "equality-ids");
      if (ids == null) {
        throw in.fail("an equality delete file needs equality-ids", idsPath);
      }
      equalityIds = in.intList(ids, idsPath);
      if (equalityIds.isEmpty()) {
        throw in.fail("an equality delete file needs at least one equality id", idsPath);
      }
    }
    JsonNode referenced = in.optional(file, "referenced-data-file");
    String referencedDataFile = referenced == null ? null
        : in.string(referenced, path.field("referenced-data-file"));
    Long contentOffset = in.optionalNonNegativeLong(file, path, "content-offset");
    Long contentSize = in.optionalNonNegativeLong(file, path, "content-size-in-bytes");
    if (contentOffset != null && contentSize == null) {
      throw in.fail("content-size-in-bytes is required with content-offset", path.field("content-size-in-bytes"));
    }
    try {
      return new DeleteFile(content, filePath, format, specId, partition, size, records, keyMetadata, splitOffsets,
          sortOrderId, equalityIds, referencedDataFile, contentOffset, contentSize);
    }
    catch (IllegalArgumentException | NullPointerException ex) {
      throw in.fail("invalid delete file" + in.shown(": ", ex.getMessage()), path);
    }
  }

  private static FileContent content(JsonReader in, JsonNode node, Path path) {
    String text = in.string(node, path);
    FileContent content = contentNamed(text);
    if (content == null) {
      throw in.fail("unknown content" + in.quoted(text), path);
    }
    return content;
  }

  /** Kebab case is the spec's; older writers send the enum names, so case and separator are ignored. */
  static @Nullable FileContent contentNamed(String text) {
    String name = text.toUpperCase(Locale.ROOT).replace('-', '_');
    for (FileContent content : FileContent.values()) {
      if (content.name().equals(name)) {
        return content;
      }
    }
    return null;
  }

  private static FileFormat fileFormat(JsonReader in, JsonNode node, Path path) {
    String text = in.string(node, path);
    FileFormat format = formatNamed(text);
    if (format == null) {
      throw in.fail("unknown file format" + in.quoted(text), path);
    }
    return format;
  }

  static @Nullable FileFormat formatNamed(String text) {
    for (FileFormat format : FileFormat.values()) {
      if (format.name().equalsIgnoreCase(text)) {
        return format;
      }
    }
    return null;
  }

  private static List<@Nullable Object> partition(JsonReader in, JsonNode node, Path path) {
    JsonNode array = in.array(node, path);
    List<@Nullable Object> values = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode value = array.get(i);
      // A null partition value is a real value (the row's partition field was null), unlike a null bound.
      values.add(value.isNull() ? null : in.primitiveAt(value, path, i));
    }
    return values;
  }

  private static String hex(JsonReader in, JsonNode node, Path path) {
    String text = in.string(node, path);
    if (text.length() % 2 != 0) {
      throw in.fail("hexadecimal binary value has an odd number of digits", path);
    }
    if (!hexDigits(text)) {
      throw in.fail("not a hexadecimal binary value", path);
    }
    return text.toUpperCase(Locale.ROOT);
  }

  static boolean hexDigits(String text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F')) {
        return false;
      }
    }
    return true;
  }

  private static Map<Integer, Long> countMap(JsonReader in, JsonNode file, Path parent, String name) {
    return statsMap(in, file, parent, name, in::nonNegativeLongAt);
  }

  private static Map<Integer, Object> valueMap(JsonReader in, JsonNode file, Path parent, String name) {
    return statsMap(in, file, parent, name, in::primitiveAt);
  }

  /** Reads element {@code index} of the array at {@code parent}; the element's path is built only to fail. */
  @FunctionalInterface
  private interface ElementReader<V> {
    V read(JsonNode element, Path parent, int index);
  }

  /** A spec {@code CountMap} or {@code ValueMap}: parallel {@code keys} and {@code values} arrays. */
  private static <V> Map<Integer, V> statsMap(JsonReader in, JsonNode file, Path parent, String name,
      ElementReader<V> value) {
    JsonNode node = in.optional(file, name);
    if (node == null) {
      return Map.of();
    }
    Path path = parent.field(name);
    JsonNode map = in.object(node, path);
    int[] keys = mapKeys(in, map, path);
    Path valuesPath = path.field("values");
    JsonNode values = mapValues(in, map, path, valuesPath, keys.length);
    @SuppressWarnings("unchecked")
    Map.Entry<Integer, V>[] entries = new Map.Entry[keys.length];
    for (int i = 0; i < keys.length; i++) {
      entries[i] = Map.entry(keys[i], value.read(values.get(i), valuesPath, i));
    }
    // Compact and unmodifiable already, so the file record keeps this map instead of copying it.
    return Map.ofEntries(entries);
  }

  private static int[] mapKeys(JsonReader in, JsonNode map, Path path) {
    JsonNode node = in.optional(map, "keys");
    if (node == null) {
      return new int[0];
    }
    Path keysPath = path.field("keys");
    JsonNode array = in.array(node, keysPath);
    int[] keys = new int[array.size()];
    // Catalogs write keys in column id order; a set to find duplicates is built only for keys out of order.
    Set<Integer> seen = null;
    for (int i = 0; i < keys.length; i++) {
      int key = in.intAt(array.get(i), keysPath, i);
      if (seen == null && i > 0 && key <= keys[i - 1]) {
        seen = new HashSet<>();
        for (int j = 0; j < i; j++) {
          seen.add(keys[j]);
        }
      }
      if (seen != null && !seen.add(key)) {
        throw in.fail("duplicate key" + in.shown(" ", key), keysPath.element(i));
      }
      keys[i] = key;
    }
    return keys;
  }

  private static JsonNode mapValues(JsonReader in, JsonNode map, Path path, Path valuesPath, int keyCount) {
    JsonNode node = in.optional(map, "values");
    JsonNode values = node == null ? JsonReader.EMPTY_ARRAY : in.array(node, valuesPath);
    if (values.size() != keyCount) {
      throw in.fail(keyCount + " keys but " + values.size() + " values", path);
    }
    return values;
  }
}
