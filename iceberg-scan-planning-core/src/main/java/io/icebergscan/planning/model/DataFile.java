package io.icebergscan.planning.model;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A data file of the table, with every field of the REST spec's {@code DataFile}. Lists keep their order; the
 * stats maps are unmodifiable and, like {@link Map#copyOf}, have no iteration order.
 *
 * @param filePath the file's location
 * @param fileFormat the file's format
 * @param specId the id of the partition spec the file was written with
 * @param partition partition values in the order of the spec's fields ({@code null} for a null value)
 * @param fileSizeInBytes the file's size
 * @param recordCount the number of rows in the file
 * @param keyMetadata encryption key metadata as an upper-case hexadecimal string, or {@code null}
 * @param splitOffsets offsets where the file may be split, empty when unknown
 * @param sortOrderId the id of the sort order the file is sorted by, or {@code null}
 * @param firstRowId the row id of the file's first row (row lineage, format v3), or {@code null}
 * @param columnSizes column id to bytes on disk
 * @param valueCounts column id to value count, nulls and NaNs included
 * @param nullValueCounts column id to null count
 * @param nanValueCounts column id to NaN count
 * @param lowerBounds column id to lower bound, as the JSON primitive the catalog sent
 * @param upperBounds column id to upper bound, as the JSON primitive the catalog sent
 */
public record DataFile(
    String filePath,
    FileFormat fileFormat,
    int specId,
    List<@Nullable Object> partition,
    long fileSizeInBytes,
    long recordCount,
    @Nullable String keyMetadata,
    List<Long> splitOffsets,
    @Nullable Integer sortOrderId,
    @Nullable Long firstRowId,
    Map<Integer, Long> columnSizes,
    Map<Integer, Long> valueCounts,
    Map<Integer, Long> nullValueCounts,
    Map<Integer, Long> nanValueCounts,
    Map<Integer, Object> lowerBounds,
    Map<Integer, Object> upperBounds) implements ContentFile {

  public DataFile {
    Objects.requireNonNull(filePath, "filePath");
    Objects.requireNonNull(fileFormat, "fileFormat");
    partition = Values.nullableList(partition);
    Values.nonNegative(fileSizeInBytes, "fileSizeInBytes");
    Values.nonNegative(recordCount, "recordCount");
    splitOffsets = Values.list(splitOffsets);
    if (firstRowId != null) {
      Values.nonNegative(firstRowId, "firstRowId");
    }
    columnSizes = Values.map(columnSizes);
    valueCounts = Values.map(valueCounts);
    nullValueCounts = Values.map(nullValueCounts);
    nanValueCounts = Values.map(nanValueCounts);
    lowerBounds = Values.map(lowerBounds);
    upperBounds = Values.map(upperBounds);
  }

  /** The content of a data file is always {@link FileContent#DATA}. */
  public FileContent content() {
    return FileContent.DATA;
  }
}
