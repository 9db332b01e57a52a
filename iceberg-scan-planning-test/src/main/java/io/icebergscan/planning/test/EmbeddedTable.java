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
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.jspecify.annotations.Nullable;

/**
 * A table of an {@link EmbeddedIcebergCatalog}: every commit ({@link #append}, {@link #appendRows},
 * {@link #addDeletes}, {@link #rowDelta}) is one snapshot and returns its id. It can be filled two ways.
 *
 * <p><b>File entries only</b>, for planning tests: {@link #dataFile}, {@link #positionDeleteFile},
 * {@link #equalityDeleteFile}, {@link #deletionVectors} and {@link #appendDataFiles} describe files that are
 * never written, which is all server-side planning reads. The builders return Iceberg's own
 * ({@link DataFiles.Builder}, {@link FileMetadata.Builder}) with the path, format and counts set, for the caller
 * to add partition values ({@code withPartitionPath}, {@code withPartition}), metrics ({@code withMetrics}:
 * column sizes, value/null/NaN counts, bounds) or split offsets before {@code build()}.
 *
 * <p><b>Real files</b>, for tests that read what they plan: {@link #writeRows}, {@link #appendRows},
 * {@link #writePositionDeletes}, {@link #writeEqualityDeletes} and {@link #writeDeletionVector} write Avro or
 * Parquet data and delete files and Puffin deletion vectors with Apache Iceberg's own writers (iceberg-data's
 * {@code GenericFileWriterFactory}, iceberg-core's {@code BaseDVFileWriter}), with the metrics Iceberg computes,
 * into the table's FileIO, under the table's location: Iceberg's JVM-wide {@code InMemoryFileIO} at
 * {@code memory://} locations, or for a catalog over an {@link EmbeddedS3} its {@code S3FileIO} in the store's
 * bucket. Rows are {@link Record}s of the current schema ({@link #newRecord}); Iceberg's readers
 * ({@code IcebergGenerics.read(table.table())}) and any client with the FileIO the catalog advertises, such as
 * Iceberg's {@code RESTCatalog}, read them back. Parquet needs
 * iceberg-parquet, hadoop-client-api and hadoop-client-runtime on the classpath (optional dependencies of
 * this module); Avro needs neither. The {@code write…} methods commit nothing: pass their files to
 * {@link #append}, {@link #addDeletes} or {@link #rowDelta} ({@link #appendRows} writes and appends).
 *
 * <pre>{@code
 * DataFile file = table.writeRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a"), table.newRecord(2L, "b")))
 *     .get(0);
 * table.append(file);
 * table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, file, 0)); // the row with id 1 is gone
 * }</pre>
 *
 * <p>Change the schema or spec between writes with Iceberg's API ({@code table().updateSchema()…commit()},
 * {@code table().updateSpec()…commit()}): writes use the current ones, and old files keep theirs.
 */
public final class EmbeddedTable {

  private final Catalog catalog;
  private final TableIdentifier identifier;

  EmbeddedTable(Catalog catalog, TableIdentifier identifier) {
    this.catalog = catalog;
    this.identifier = identifier;
    // Before any read or write of Avro files, ours or Iceberg's readers' on table().
    ContentFileWriter.registerGenericAvroWithoutParquet();
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

  /**
   * A record of the current schema for {@link #writeRows} and {@link #writeEqualityDeletes}: empty without
   * values (set them with {@code setField}), or with one value per top-level column, in schema order, as
   * Iceberg's generic data model holds them ({@code Long}, {@code String}, {@code LocalDate},
   * {@code LocalDateTime}, {@code BigDecimal}, {@code ByteBuffer}, …; {@code null} for none).
   *
   * @throws IllegalArgumentException when the number of values is neither 0 nor the number of columns
   */
  public Record newRecord(@Nullable Object... values) {
    Schema schema = schema();
    GenericRecord record = GenericRecord.create(schema);
    if (values.length == 0) {
      return record;
    }
    if (values.length != schema.columns().size()) {
      throw new IllegalArgumentException(values.length + " values for the " + schema.columns().size()
          + " columns of " + this.identifier + ": " + schema.asStruct());
    }
    for (int i = 0; i < values.length; i++) {
      record.set(i, values[i]);
    }
    return record;
  }

  /**
   * Writes the rows as real data files of the current schema and spec, one file per partition (in the order
   * partitions first occur in {@code rows}), without committing them. Within a file the rows keep their order,
   * so the row at position {@code p} of a file is the {@code p}-th of the rows given for its partition.
   *
   * @param format {@code AVRO}, or {@code PARQUET} when iceberg-parquet and Hadoop are on the classpath
   * @param rows records of the current schema ({@link #newRecord}), at least one
   * @return the data files, to commit with {@link #append(List)} or {@link #rowDelta}, with the metrics
   * Iceberg's writer records: for Parquet sizes, value and null counts and bounds per column, for Avro the
   * row count only (so filters prune Avro files by partition alone)
   * @throws IllegalStateException for {@code PARQUET} without iceberg-parquet or Hadoop on the classpath
   */
  public List<DataFile> writeRows(FileFormat format, List<Record> rows) {
    return new ContentFileWriter(table()).dataFiles(format, rows);
  }

  /** {@link #writeRows} then one append of the files written; returns the new snapshot's id. */
  public long appendRows(FileFormat format, List<Record> rows) {
    return append(writeRows(format, rows));
  }

  /**
   * Writes a real position delete file (format version 2) deleting rows of one data file, in that file's spec
   * and partition, without committing it.
   *
   * @param format {@code AVRO}, or {@code PARQUET} when iceberg-parquet and Hadoop are on the classpath
   * @param file a data file of this table, such as one {@link #writeRows} returned
   * @param positions the positions (from 0) of the rows to delete, in any order
   * @return the delete file, to commit with {@link #addDeletes} or {@link #rowDelta}
   * @throws IllegalStateException when the table's format version is not 2 (version 3 takes
   * {@linkplain #writeDeletionVector deletion vectors})
   * @throws IllegalArgumentException for no positions, or one outside the file's rows
   */
  public DeleteFile writePositionDeletes(FileFormat format, DataFile file, long... positions) {
    return new ContentFileWriter(table()).positionDeletes(format, file, positions);
  }

  /**
   * Writes a real equality delete file, without committing it: it deletes the rows whose values in the fields
   * {@code fieldIds} equal those of one of the keys, in rows committed before it. The keys are records of the
   * current schema ({@link #newRecord}) of which only those fields are written; on a partitioned table the
   * partition source columns must be set too, since the file belongs to the keys' partition and deletes in
   * that partition only (all keys must fall into one).
   *
   * @param format {@code AVRO}, or {@code PARQUET} when iceberg-parquet and Hadoop are on the classpath
   * @param keys records of the current schema, at least one
   * @param fieldIds the ids of the top-level primitive columns rows are matched on, at least one
   * @return the delete file, to commit with {@link #addDeletes} or {@link #rowDelta}
   * @throws IllegalArgumentException for no keys or field ids, a field id that is not a top-level primitive
   * column, or keys in several partitions
   */
  public DeleteFile writeEqualityDeletes(FileFormat format, List<Record> keys, int... fieldIds) {
    return new ContentFileWriter(table()).equalityDeletes(format, keys, fieldIds);
  }

  /**
   * Writes a real deletion vector (format version 3) deleting rows of one data file, in a Puffin file of its
   * own, in that data file's spec and partition, without committing it. A data file can have one vector:
   * this writes the first, and Iceberg's scan planning fails on a second for the same file.
   *
   * @param file a data file of this table, such as one {@link #writeRows} returned
   * @param positions the positions (from 0) of the rows to delete, in any order
   * @return the vector, with its Puffin blob's offset and size, to commit with {@link #addDeletes} or
   * {@link #rowDelta}
   * @throws IllegalStateException when the table's format version is below 3
   * @throws IllegalArgumentException for no positions, or one outside the file's rows
   */
  public DeleteFile writeDeletionVector(DataFile file, long... positions) {
    return new ContentFileWriter(table()).deletionVector(file, positions);
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
