package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;

/**
 * Several deletion vectors in one Puffin file, as a format-version 3 writer produces them: one
 * {@link DeleteFile} per vector, all with the same path and file size, each with its own content offset
 * and size and the data file it applies to. Blobs are laid out back to back after the 4-byte Puffin
 * magic; the footer is assumed to take {@value #FOOTER_BYTES} bytes. Commit the result with
 * {@link EmbeddedTable#addDeletes}.
 */
public final class DeletionVectors {

  /** Where the first blob starts: after the Puffin magic {@code PFA1}. */
  static final long FIRST_BLOB_OFFSET = 4;
  static final long FOOTER_BYTES = 256;

  private record Vector(DataFile dataFile, long deletedRows, long blobSize) {
  }

  private final Table table;
  private final String puffinPath;
  private final List<Vector> vectors = new ArrayList<>();

  DeletionVectors(Table table, String puffinPath) {
    this.table = table;
    this.puffinPath = Objects.requireNonNull(puffinPath, "puffinPath");
  }

  /** A vector deleting {@code deletedRows} rows of {@code dataFile}, its blob sized like a small bitmap. */
  public DeletionVectors vector(DataFile dataFile, long deletedRows) {
    return vector(dataFile, deletedRows, 12 + Math.max(8, (deletedRows + 7) / 8));
  }

  /** A vector deleting {@code deletedRows} rows of {@code dataFile}, with a blob of {@code blobSize} bytes. */
  public DeletionVectors vector(DataFile dataFile, long deletedRows, long blobSize) {
    Objects.requireNonNull(dataFile, "dataFile");
    if (deletedRows < 1 || blobSize < 1) {
      throw new IllegalArgumentException("deletedRows and blobSize must be positive: " + deletedRows + ", " + blobSize);
    }
    this.vectors.add(new Vector(dataFile, deletedRows, blobSize));
    return this;
  }

  /** One delete file per vector, in the order they were added. */
  public List<DeleteFile> build() {
    if (this.vectors.isEmpty()) {
      throw new IllegalStateException("no vector was added to " + this.puffinPath);
    }
    long fileSize = FIRST_BLOB_OFFSET + FOOTER_BYTES;
    for (Vector vector : this.vectors) {
      fileSize += vector.blobSize();
    }
    List<DeleteFile> deleteFiles = new ArrayList<>(this.vectors.size());
    long offset = FIRST_BLOB_OFFSET;
    for (Vector vector : this.vectors) {
      // A vector belongs to its data file's partition, in that file's spec.
      PartitionSpec spec = this.table.specs().get(vector.dataFile().specId());
      deleteFiles.add(FileMetadata.deleteFileBuilder(spec).ofPositionDeletes().withFormat(FileFormat.PUFFIN)
          .withPath(this.puffinPath).withPartition(vector.dataFile().partition()).withFileSizeInBytes(fileSize)
          .withRecordCount(vector.deletedRows()).withReferencedDataFile(vector.dataFile().location())
          .withContentOffset(offset).withContentSizeInBytes(vector.blobSize()).build());
      offset += vector.blobSize();
    }
    return List.copyOf(deleteFiles);
  }
}
