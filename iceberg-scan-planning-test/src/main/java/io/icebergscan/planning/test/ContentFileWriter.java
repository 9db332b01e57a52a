package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableUtil;
import org.apache.iceberg.avro.AvroFormatModel;
import org.apache.iceberg.data.GenericFileWriterFactory;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.deletes.BaseDVFileWriter;
import org.apache.iceberg.deletes.EqualityDeleteWriter;
import org.apache.iceberg.deletes.PositionDelete;
import org.apache.iceberg.deletes.PositionDeleteWriter;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.io.DataWriter;
import org.apache.iceberg.io.FileWriter;
import org.apache.iceberg.io.OutputFileFactory;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Writes real data and delete files for one table with Apache Iceberg's own generic writers
 * ({@link GenericFileWriterFactory}, {@link BaseDVFileWriter}), named by its {@link OutputFileFactory} and stored
 * in the table's FileIO: for an {@link EmbeddedIcebergCatalog}, Iceberg's JVM-wide in-memory FileIO. Nothing
 * is committed here; the caller commits the returned files.
 */
final class ContentFileWriter {

  /**
   * What Parquet needs besides iceberg-data: iceberg-parquet itself, and Hadoop's {@code Configuration}, which
   * Iceberg's Parquet writer builds even for a non-Hadoop FileIO.
   */
  private static final List<String> PARQUET_CLASSES = List.of("org.apache.iceberg.parquet.Parquet",
      "org.apache.hadoop.conf.Configuration");

  /** Whether {@link #registerGenericAvroWithoutParquet} ran in this class loader. */
  private static boolean genericAvroChecked;

  private final Table table;
  private final Schema schema;
  private final PartitionSpec spec;

  ContentFileWriter(Table table) {
    this.table = table;
    this.schema = table.schema();
    this.spec = table.spec();
  }

  /**
   * One data file per partition of the current spec, in the order the partitions first occur in
   * {@code rows}; each file holds its partition's rows in the given order, so a row's position in its file
   * is its index among them.
   */
  List<DataFile> dataFiles(FileFormat format, List<Record> rows) {
    requireWritable(format);
    if (rows.isEmpty()) {
      throw new IllegalArgumentException("no rows to write to " + this.table.name());
    }
    for (int i = 0; i < rows.size(); i++) {
      requireCurrentSchema("row " + i, rows.get(i));
    }
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(this.table).dataFileFormat(format)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(this.table, 1, 1).format(format).build();
    List<DataFile> written = new ArrayList<>();
    partitioned(rows).forEach((partition, partitionRows) -> {
      DataWriter<Record> writer = factory.newDataWriter(outputFile(files, this.spec, partition), this.spec,
          partition);
      written.add(write(writer, partitionRows).toDataFile());
    });
    return List.copyOf(written);
  }

  /** A position delete file (format version 2) of the given rows of one data file, in that file's partition. */
  DeleteFile positionDeletes(FileFormat format, DataFile dataFile, long[] positions) {
    requireWritable(format);
    int formatVersion = TableUtil.formatVersion(this.table);
    if (formatVersion < 2) {
      throw new IllegalStateException(this.table.name() + " is format version 1, which has no delete files");
    }
    if (formatVersion >= 3) {
      // Iceberg refuses to commit position delete files to a v3 table; say so before writing one.
      throw new IllegalStateException(this.table.name() + " is format version " + formatVersion
          + ", where position deletes are deletion vectors: use writeDeletionVector");
    }
    long[] sorted = validPositions(dataFile, positions);
    PartitionSpec fileSpec = specOf(dataFile);
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(this.table).deleteFileFormat(format)
        .build();
    OutputFileFactory files = OutputFileFactory.builderFor(this.table, 1, 1).format(format).build();
    PositionDeleteWriter<Record> writer = factory.newPositionDeleteWriter(
        outputFile(files, fileSpec, dataFile.partition()), fileSpec, dataFile.partition());
    List<PositionDelete<Record>> deletes = new ArrayList<>(sorted.length);
    // The spec wants position deletes sorted by file and position.
    for (long position : sorted) {
      deletes.add(PositionDelete.<Record>create().set(dataFile.location(), position));
    }
    return write(writer, deletes).toDeleteFile();
  }

  /**
   * An equality delete file matching rows on {@code fieldIds}, holding the keys projected to those fields, in
   * the partition of the current spec that all keys fall into.
   */
  DeleteFile equalityDeletes(FileFormat format, List<Record> keys, int[] fieldIds) {
    requireWritable(format);
    if (TableUtil.formatVersion(this.table) < 2) {
      throw new IllegalStateException(this.table.name() + " is format version 1, which has no delete files");
    }
    if (keys.isEmpty()) {
      throw new IllegalArgumentException("no keys to write to an equality delete file of " + this.table.name());
    }
    Schema deleteSchema = equalitySchema(fieldIds);
    List<Record> projected = new ArrayList<>(keys.size());
    for (int i = 0; i < keys.size(); i++) {
      Record key = keys.get(i);
      requireCurrentSchema("key " + i, key);
      Record deleteRow = GenericRecord.create(deleteSchema);
      deleteSchema.columns().forEach(field -> deleteRow.setField(field.name(), key.getField(field.name())));
      projected.add(deleteRow);
    }
    Map<@Nullable PartitionKey, List<Record>> byPartition = partitioned(keys);
    if (byPartition.size() > 1) {
      throw new IllegalArgumentException("the keys fall into " + byPartition.size() + " partitions of "
          + this.table.name() + " (" + byPartition.keySet().stream().map(ContentFileWriter::path)
              .collect(Collectors.joining(", "))
          + "): an equality delete file belongs to one, write one file per partition");
    }
    @Nullable PartitionKey partition = byPartition.keySet().iterator().next();
    GenericFileWriterFactory factory = new GenericFileWriterFactory.Builder(this.table).deleteFileFormat(format)
        .equalityFieldIds(fieldIds).equalityDeleteRowSchema(deleteSchema).build();
    OutputFileFactory files = OutputFileFactory.builderFor(this.table, 1, 1).format(format).build();
    EqualityDeleteWriter<Record> writer = factory.newEqualityDeleteWriter(outputFile(files, this.spec, partition),
        this.spec, partition);
    return write(writer, projected).toDeleteFile();
  }

  /** A deletion vector (format version 3) of the given rows of one data file, in a Puffin file of its own. */
  DeleteFile deletionVector(DataFile dataFile, long[] positions) {
    int formatVersion = TableUtil.formatVersion(this.table);
    if (formatVersion < 3) {
      throw new IllegalStateException(this.table.name() + " is format version " + formatVersion
          + ": deletion vectors need format version 3 (createTable(identifier, schema, spec, 3)); "
          + "use writePositionDeletes");
    }
    long[] sorted = validPositions(dataFile, positions);
    PartitionSpec fileSpec = specOf(dataFile);
    OutputFileFactory files = OutputFileFactory.builderFor(this.table, 1, 1).format(FileFormat.PUFFIN).build();
    // No previous deletes to merge: a data file has at most one vector, and the caller adds the first.
    BaseDVFileWriter writer = new BaseDVFileWriter(files, path -> null);
    try (writer) {
      for (long position : sorted) {
        writer.delete(dataFile.location(), position, fileSpec, dataFile.partition());
      }
    }
    catch (IOException failure) {
      throw new UncheckedIOException("could not write a deletion vector for " + dataFile.location(), failure);
    }
    return writer.result().deleteFiles().get(0);
  }

  /**
   * Makes Iceberg's generic Avro readers and writers work without iceberg-parquet; idempotent. Iceberg 1.12
   * registers its generic format models (Avro, Parquet, ORC) in one class, {@code GenericFormatModels}, which
   * cannot be linked without iceberg-parquet ({@code NoClassDefFoundError: …/parquet/VariantShreddingAnalyzer},
   * logged and swallowed by its {@code FormatModelRegistry}): then no generic model is registered, and Avro
   * reads and writes fail too ("Format model is not registered for format AVRO"). This registers the two Avro
   * models it would have (records, and position deletes), and nothing when iceberg-parquet is there.
   */
  static synchronized void registerGenericAvroWithoutParquet() {
    if (genericAvroChecked) {
      return;
    }
    genericAvroChecked = true;
    if (OptionalDependencies.isPresent(PARQUET_CLASSES.get(0))) {
      return;
    }
    try {
      FormatModelRegistry.register(AvroFormatModel.create(Record.class, Void.class,
          (icebergSchema, avroSchema, engineSchema) -> org.apache.iceberg.data.avro.DataWriter.create(avroSchema),
          (icebergSchema, avroSchema, engineSchema, constants) -> PlannedDataReader.create(icebergSchema,
              constants)));
      FormatModelRegistry.register(AvroFormatModel.forPositionDeletes());
    }
    catch (IllegalArgumentException alreadyRegistered) {
      // Someone else filled the gap first: their models serve as well.
    }
  }

  /**
   * Fails unless Iceberg can write {@code format} here: Avro always (iceberg-core has it), Parquet only with
   * the optional iceberg-parquet and Hadoop jars on the classpath.
   */
  /** Whether files of that format can be written here: Parquet needs iceberg-parquet and Hadoop, optional ones. */
  static boolean isWritable(FileFormat format) {
    try {
      requireWritable(format);
      return true;
    }
    catch (IllegalStateException missing) {
      return false;
    }
  }

  static void requireWritable(FileFormat format) {
    Objects.requireNonNull(format, "format");
    if (format == FileFormat.AVRO) {
      return;
    }
    if (format != FileFormat.PARQUET) {
      throw new IllegalArgumentException("the embedded catalog writes AVRO and PARQUET files, not " + format);
    }
    List<String> missing = OptionalDependencies.missing(PARQUET_CLASSES);
    if (!missing.isEmpty()) {
      throw new IllegalStateException("writing PARQUET files needs org.apache.iceberg:iceberg-parquet and "
          + "org.apache.hadoop:hadoop-client-api and hadoop-client-runtime on the classpath (optional "
          + "dependencies of iceberg-scan-planning-test: declare them in your build), or write AVRO files, "
          + "which need neither; missing: " + String.join(", ", missing));
    }
  }

  /**
   * The rows grouped by partition of the current spec, partitions in first-seen order; a {@code null} key for
   * an unpartitioned spec. Rows are wrapped because transforms take Iceberg's internal representations (a
   * date as days, not a {@code LocalDate}).
   */
  private Map<@Nullable PartitionKey, List<Record>> partitioned(List<Record> rows) {
    Map<@Nullable PartitionKey, List<Record>> groups = new LinkedHashMap<>();
    if (this.spec.isUnpartitioned()) {
      groups.put(null, rows);
      return groups;
    }
    PartitionKey key = new PartitionKey(this.spec, this.schema);
    InternalRecordWrapper wrapper = new InternalRecordWrapper(this.schema.asStruct());
    for (Record row : rows) {
      key.partition(wrapper.wrap(row));
      // copy: the key is reused for the next row
      groups.computeIfAbsent(key.copy(), ignored -> new ArrayList<>()).add(row);
    }
    return groups;
  }

  private Schema equalitySchema(int[] fieldIds) {
    if (fieldIds.length == 0) {
      throw new IllegalArgumentException("an equality delete file needs at least one field id");
    }
    Set<Integer> ids = Arrays.stream(fieldIds).boxed().collect(Collectors.toSet());
    for (int id : ids) {
      Types.NestedField field = this.schema.asStruct().field(id);
      if (field == null || !field.type().isPrimitiveType()) {
        throw new IllegalArgumentException("field id " + id + " is not a top-level primitive column of "
            + this.table.name() + "'s current schema " + this.schema.asStruct());
      }
    }
    return TypeUtil.select(this.schema, ids);
  }

  private void requireCurrentSchema(String what, Record record) {
    Objects.requireNonNull(record, what);
    if (!record.struct().equals(this.schema.asStruct())) {
      throw new IllegalArgumentException(what + " is not a record of " + this.table.name()
          + "'s current schema (create it with newRecord() or GenericRecord.create(schema())): it has "
          + record.struct() + ", the table " + this.schema.asStruct());
    }
  }

  private PartitionSpec specOf(DataFile dataFile) {
    PartitionSpec fileSpec = this.table.specs().get(dataFile.specId());
    if (fileSpec == null) {
      throw new IllegalArgumentException(dataFile.location() + " has partition spec " + dataFile.specId()
          + ", which " + this.table.name() + " does not have");
    }
    return fileSpec;
  }

  private static long[] validPositions(DataFile dataFile, long[] positions) {
    if (positions.length == 0) {
      throw new IllegalArgumentException("no positions to delete in " + dataFile.location());
    }
    long[] sorted = Arrays.stream(positions).sorted().distinct().toArray();
    if (sorted[0] < 0 || sorted[sorted.length - 1] >= dataFile.recordCount()) {
      throw new IllegalArgumentException("positions must be in [0, " + dataFile.recordCount() + ") for "
          + dataFile.location() + ": " + Arrays.toString(positions));
    }
    return sorted;
  }

  /** An unpartitioned spec gets no partition directory: Iceberg's location provider would add an empty one. */
  private static EncryptedOutputFile outputFile(OutputFileFactory files, PartitionSpec spec,
      @Nullable StructLike partition) {
    return spec.isUnpartitioned() || partition == null ? files.newOutputFile() : files.newOutputFile(spec, partition);
  }

  private static <T, W extends FileWriter<T, ?>> W write(W writer, List<T> rows) {
    try (writer) {
      writer.write(rows);
    }
    catch (IOException failure) {
      throw new UncheckedIOException("could not write " + writer, failure);
    }
    return writer;
  }

  private static String path(@Nullable PartitionKey partition) {
    return partition == null ? "unpartitioned" : partition.toPath();
  }
}
