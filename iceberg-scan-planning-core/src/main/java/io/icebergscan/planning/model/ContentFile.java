package io.icebergscan.planning.model;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * A file of the table that a scan reads: a {@link DataFile}, or a {@link DeleteFile} that removes rows from data
 * files. These are the fields of the REST spec's {@code ContentFile} that both kinds have.
 */
public sealed interface ContentFile permits DataFile, DeleteFile {

  /** What the file holds. */
  FileContent content();

  /** The file's location. */
  String filePath();

  /** The file's format. */
  FileFormat fileFormat();

  /** The id of the partition spec the file was written with. */
  int specId();

  /** Partition values in the order of the spec's fields ({@code null} for a null value). */
  List<@Nullable Object> partition();

  /** The whole file's size. */
  long fileSizeInBytes();

  /** The number of rows in the file (for a delete file, of deletes). */
  long recordCount();

  /** Encryption key metadata as an upper-case hexadecimal string, or {@code null}. */
  @Nullable String keyMetadata();

  /** Offsets where the file may be split, empty when unknown. */
  List<Long> splitOffsets();

  /** The id of the sort order the file is sorted by, or {@code null}. */
  @Nullable Integer sortOrderId();
}
