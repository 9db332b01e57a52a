package io.icebergscan.planning.model;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A position or equality delete file, with every field of the REST spec's {@code PositionDeleteFile}
 * and {@code EqualityDeleteFile}, plus {@code referenced-data-file} as Apache Iceberg writes it.
 *
 * <p>Equality is by value over all fields, so two deletion vectors stored in one Puffin file are
 * different delete files: they differ in {@link #contentOffset()} and {@link #contentSizeInBytes()}.
 *
 * @param content {@link FileContent#POSITION_DELETES} or {@link FileContent#EQUALITY_DELETES}
 * @param filePath the file's location
 * @param fileFormat the file's format ({@link FileFormat#PUFFIN} for deletion vectors)
 * @param specId the id of the partition spec the file was written with
 * @param partition partition values in the order of the spec's fields ({@code null} for a null value)
 * @param fileSizeInBytes the whole file's size
 * @param recordCount the number of deletes in the file (or in the deletion vector)
 * @param keyMetadata encryption key metadata as an upper-case hexadecimal string, or {@code null}
 * @param splitOffsets offsets where the file may be split, empty when unknown
 * @param sortOrderId the id of the sort order, or {@code null}
 * @param equalityIds the field ids an equality delete matches on; empty for position deletes
 * @param referencedDataFile the one data file a position delete applies to, when the writer said so
 * @param contentOffset where a deletion vector's blob starts in the Puffin file, or {@code null}
 * @param contentSizeInBytes the length of that blob, or {@code null}
 */
public record DeleteFile(
    FileContent content,
    String filePath,
    FileFormat fileFormat,
    int specId,
    List<@Nullable Object> partition,
    long fileSizeInBytes,
    long recordCount,
    @Nullable String keyMetadata,
    List<Long> splitOffsets,
    @Nullable Integer sortOrderId,
    List<Integer> equalityIds,
    @Nullable String referencedDataFile,
    @Nullable Long contentOffset,
    @Nullable Long contentSizeInBytes) implements ContentFile {

  public DeleteFile {
    Objects.requireNonNull(content, "content");
    if (content == FileContent.DATA) {
      throw new IllegalArgumentException("a delete file cannot have content DATA");
    }
    Objects.requireNonNull(filePath, "filePath");
    Objects.requireNonNull(fileFormat, "fileFormat");
    partition = Values.nullableList(partition);
    Values.nonNegative(fileSizeInBytes, "fileSizeInBytes");
    Values.nonNegative(recordCount, "recordCount");
    splitOffsets = Values.list(splitOffsets);
    equalityIds = Values.list(equalityIds);
    if (content == FileContent.EQUALITY_DELETES && equalityIds.isEmpty()) {
      throw new IllegalArgumentException("an equality delete file needs equality ids: " + filePath);
    }
    if (contentOffset != null) {
      Values.nonNegative(contentOffset, "contentOffset");
      if (contentSizeInBytes == null) {
        throw new IllegalArgumentException("contentOffset needs contentSizeInBytes: " + filePath);
      }
    }
    if (contentSizeInBytes != null) {
      Values.nonNegative(contentSizeInBytes, "contentSizeInBytes");
    }
  }

  /** Whether this is a deletion vector: a position delete blob at an offset inside a Puffin file. */
  public boolean isDeletionVector() {
    return this.content == FileContent.POSITION_DELETES && this.fileFormat == FileFormat.PUFFIN
        && this.contentOffset != null;
  }
}
