package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.apache.iceberg.AppendFiles;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.RowDelta;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * A table of an {@link EmbeddedIcebergCatalog}, filled with file entries: every commit
 * ({@link #append}, {@link #addDeletes}, {@link #rowDelta}) is one snapshot and returns its id.
 *
 * <p>The builders return Iceberg's own ({@link DataFiles.Builder}, {@link FileMetadata.Builder}) with
 * the path, format and counts set, for the caller to add partition values ({@code withPartitionPath},
 * {@code withPartition}), metrics ({@code withMetrics}: column sizes, value/null/NaN counts, bounds) or
 * split offsets before {@code build()}.
 */
public final class EmbeddedTable {

  private final Catalog catalog;
  private final TableIdentifier identifier;

  EmbeddedTable(Catalog catalog, TableIdentifier identifier) {
    this.catalog = catalog;
    this.identifier = identifier;
  }

  public TableIdentifier identifier() {
    return this.identifier;
  }

  /** The table as it is now (loaded again on every call). */
  public Table table() {
    return this.catalog.loadTable(this.identifier);
  }

  public Schema schema() {
    return table().schema();
  }

  /** The current partition spec. */
  public PartitionSpec spec() {
    return table().spec();
  }

  /**
   * A Parquet data file of the current spec with a path, a record count and a file size (1 KiB plus
   * 100 bytes a row; change it with {@code withFileSizeInBytes}).
   */
  public DataFiles.Builder dataFile(String path, long recordCount) {
    return dataFile(spec(), path, recordCount);
  }

  private static DataFiles.Builder dataFile(PartitionSpec spec, String path, long recordCount) {
    return DataFiles.builder(spec).withPath(path).withFormat(FileFormat.PARQUET).withRecordCount(recordCount)
        .withFileSizeInBytes(nominalSize(recordCount));
  }

  /** A Parquet position delete file of the current spec (v2 style: positions in a file of its own). */
  public FileMetadata.Builder positionDeleteFile(String path, long recordCount) {
    return FileMetadata.deleteFileBuilder(spec()).ofPositionDeletes().withPath(path).withFormat(FileFormat.PARQUET)
        .withRecordCount(recordCount).withFileSizeInBytes(nominalSize(recordCount));
  }

  /** A Parquet equality delete file of the current spec, matching rows on the given field ids. */
  public FileMetadata.Builder equalityDeleteFile(String path, long recordCount, int... equalityFieldIds) {
    return FileMetadata.deleteFileBuilder(spec()).ofEqualityDeletes(equalityFieldIds).withPath(path)
        .withFormat(FileFormat.PARQUET).withRecordCount(recordCount).withFileSizeInBytes(nominalSize(recordCount));
  }

  /** Deletion vectors (format version 3) stored together in one Puffin file at {@code puffinPath}. */
  public DeletionVectors deletionVectors(String puffinPath) {
    return new DeletionVectors(table(), puffinPath);
  }

  /** Commits the data files as one append; returns the new snapshot's id. */
  public long append(DataFile... dataFiles) {
    return append(List.of(dataFiles));
  }

  /** Commits the data files as one append; returns the new snapshot's id. */
  public long append(List<DataFile> dataFiles) {
    Table table = table();
    AppendFiles append = table.newAppend();
    dataFiles.forEach(append::appendFile);
    append.commit();
    return table.currentSnapshot().snapshotId();
  }

  /**
   * Appends {@code count} generated data files to an unpartitioned table: file {@code i} (from 0) has
   * {@code i + 1} rows. For a quick table of many files; returns the snapshot id.
   */
  public long appendDataFiles(int count) {
    if (!spec().isUnpartitioned()) {
      throw new IllegalStateException(
          this.identifier + " is partitioned: use appendDataFiles(count, partitionPath) or dataFile(…)");
    }
    return appendDataFiles(count, null);
  }

  /**
   * Appends {@code count} generated data files to one partition, given as a path such as
   * {@code "day=2"}: file {@code i} (from 0) has {@code i + 1} rows; returns the snapshot id.
   */
  public long appendDataFiles(int count, @Nullable String partitionPath) {
    Table table = table(); // once: every load parses the table's metadata again
    String prefix = table.location() + "/data/" + (partitionPath == null ? "" : partitionPath + "/")
        + UUID.randomUUID() + "-";
    List<DataFile> files = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      DataFiles.Builder file = dataFile(table.spec(), prefix + i + ".parquet", i + 1);
      files.add((partitionPath == null ? file : file.withPartitionPath(partitionPath)).build());
    }
    return append(files);
  }

  /** Commits delete files (position, equality or deletion vectors) as one row delta; returns the snapshot id. */
  public long addDeletes(DeleteFile... deleteFiles) {
    return rowDelta(List.of(), List.of(deleteFiles));
  }

  /** Commits data and delete files together as one row delta; returns the snapshot id. */
  public long rowDelta(List<DataFile> dataFiles, List<DeleteFile> deleteFiles) {
    Table table = table();
    RowDelta delta = table.newRowDelta();
    dataFiles.forEach(delta::addRows);
    deleteFiles.forEach(delta::addDeletes);
    delta.commit();
    return table.currentSnapshot().snapshotId();
  }

  /** The ids of all snapshots, oldest first. */
  public List<Long> snapshotIds() {
    List<Long> ids = new ArrayList<>();
    for (Snapshot snapshot : table().snapshots()) {
      ids.add(snapshot.snapshotId());
    }
    return List.copyOf(ids);
  }

  /**
   * The current snapshot's id.
   *
   * @throws IllegalStateException when nothing was committed yet
   */
  public long currentSnapshotId() {
    Snapshot current = table().currentSnapshot();
    if (current == null) {
      throw new IllegalStateException(this.identifier + " has no snapshot yet");
    }
    return current.snapshotId();
  }

  @Override
  public String toString() {
    return "EmbeddedTable[" + this.identifier + "]";
  }

  private static long nominalSize(long recordCount) {
    return 1024 + 100 * recordCount;
  }
}
