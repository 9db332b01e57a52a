package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.icebergscan.planning.ClassPathWithout;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.ResolvingFileIO;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Tables whose data and delete files really exist: each case writes with {@link EmbeddedTable}'s writers and
 * reads back with Apache Iceberg's own generic reader ({@link IcebergGenerics}), which opens the files through
 * the table's FileIO and applies the deletes, so the rows it returns are what the files hold.
 */
class EmbeddedTableDataTests {

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()));
  /** Identity on a date: the partition value is Iceberg's internal one (days), not the row's LocalDate. */
  private static final PartitionSpec BY_DAY = PartitionSpec.builderFor(SCHEMA).identity("day").build();
  private static final LocalDate MONDAY = LocalDate.of(2026, 11, 30);
  private static final LocalDate TUESDAY = MONDAY.plusDays(1);
  private static final LocalDate WEDNESDAY = MONDAY.plusDays(2);
  private static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();

  @AfterEach
  void close() {
    this.catalog.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void writesDataFilesThatIcebergsReaderReadsBack(FileFormat format) throws IOException {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA);
    List<Record> rows = List.of(table.newRecord(1L, "a", MONDAY), table.newRecord(2L, null, null),
        table.newRecord(3L, "c", TUESDAY));

    List<DataFile> files = table.writeRows(format, rows);

    assertThat(files).hasSize(1);
    DataFile file = files.get(0);
    assertThat(file.format()).isEqualTo(format);
    assertThat(file.recordCount()).isEqualTo(3);
    assertThat(file.location()).startsWith(table.table().location() + "/data/").endsWith(format.addExtension(""))
        .startsWith("memory://");
    // The bytes are in the catalog's FileIO, where any InMemoryFileIO of this JVM finds them.
    assertThat(table.table().io()).isInstanceOf(InMemoryFileIO.class);
    try (FileIO clientSide = new InMemoryFileIO()) {
      assertThat(clientSide.newInputFile(file.location()).getLength()).isEqualTo(file.fileSizeInBytes());
    }
    assertThat(read(table.table())).as("nothing is committed yet").isEmpty();

    long snapshot = table.append(files);

    assertThat(table.currentSnapshotId()).isEqualTo(snapshot);
    assertThat(read(table.table())).containsExactly(row(1L, "a", MONDAY), row(2L, null, null), row(3L, "c", TUESDAY));
  }

  @Test
  void partitionedTablesGetOneFilePerPartition() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, 2);
    List<Record> rows = List.of(table.newRecord(1L, "a", MONDAY), table.newRecord(2L, "b", TUESDAY),
        table.newRecord(3L, "c", MONDAY), table.newRecord(4L, "d", WEDNESDAY), table.newRecord(5L, "e", TUESDAY));

    List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows);

    assertThat(files).extracting(file -> file.partition().get(0, Integer.class))
        .containsExactly((int) MONDAY.toEpochDay(), (int) TUESDAY.toEpochDay(), (int) WEDNESDAY.toEpochDay());
    assertThat(files).extracting(DataFile::recordCount).containsExactly(2L, 2L, 1L);
    assertThat(files.get(0).location()).contains("/data/day=2026-11-30/");
    assertThat(files.get(2).location()).contains("/data/day=2026-12-02/");
    // Parquet files carry Iceberg's column metrics, which planning prunes on (its Avro writer records none).
    assertThat(files).extracting(file -> lowerAndUpper(file, 1)).containsExactly(List.of(1L, 3L), List.of(2L, 5L),
        List.of(4L, 4L));
    table.append(files);

    assertThat(read(table.table())).containsExactlyInAnyOrder(row(1L, "a", MONDAY), row(2L, "b", TUESDAY),
        row(3L, "c", MONDAY), row(4L, "d", WEDNESDAY), row(5L, "e", TUESDAY));
    // Rows within a file keep their order; a filter on the partition column prunes to that file.
    assertThat(read(IcebergGenerics.read(table.table()).where(Expressions.equal("day", "2026-12-01")).build()))
        .containsExactly(row(2L, "b", TUESDAY), row(5L, "e", TUESDAY));
    assertThat(plannedFiles(table.table().newScan().filter(Expressions.equal("day", "2026-12-01")).planFiles()))
        .containsExactly(files.get(1).location());
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void positionDeletesRemoveTheirRows(FileFormat format) {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, 2);
    List<DataFile> files = table.writeRows(format, List.of(table.newRecord(1L, "a", MONDAY),
        table.newRecord(2L, "b", MONDAY), table.newRecord(3L, "c", MONDAY), table.newRecord(4L, "d", MONDAY),
        table.newRecord(5L, "e", TUESDAY), table.newRecord(6L, "f", TUESDAY)));
    DataFile monday = files.get(0);
    table.append(files);

    DeleteFile deletes = table.writePositionDeletes(format, monday, 3, 0);

    assertThat(deletes.content()).isEqualTo(FileContent.POSITION_DELETES);
    assertThat(deletes.format()).isEqualTo(format);
    assertThat(deletes.recordCount()).isEqualTo(2);
    assertThat(deletes.specId()).isEqualTo(monday.specId());
    assertThat(deletes.partition().get(0, Integer.class)).isEqualTo((int) MONDAY.toEpochDay());
    assertThat(read(table.table())).as("not committed yet").hasSize(6);
    table.addDeletes(deletes);

    assertThat(read(table.table())).containsExactlyInAnyOrder(row(2L, "b", MONDAY), row(3L, "c", MONDAY),
        row(5L, "e", TUESDAY), row(6L, "f", TUESDAY));
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void equalityDeletesRemoveTheMatchingRowsOfTheirPartition(FileFormat format) {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, 2);
    table.appendRows(format, List.of(table.newRecord(1L, "a", MONDAY), table.newRecord(2L, "b", MONDAY),
        table.newRecord(3L, "c", MONDAY), table.newRecord(1L, "a", TUESDAY), table.newRecord(2L, "b", TUESDAY)));
    int id = table.schema().findField("id").fieldId();

    // The day is set for the partition only: the file holds ids.
    DeleteFile deletes = table.writeEqualityDeletes(format,
        List.of(table.newRecord(2L, null, MONDAY), table.newRecord(3L, "ignored", MONDAY)), id);

    assertThat(deletes.content()).isEqualTo(FileContent.EQUALITY_DELETES);
    assertThat(deletes.format()).isEqualTo(format);
    assertThat(deletes.equalityFieldIds()).containsExactly(id);
    assertThat(deletes.recordCount()).isEqualTo(2);
    assertThat(deletes.partition().get(0, Integer.class)).isEqualTo((int) MONDAY.toEpochDay());
    table.addDeletes(deletes);

    assertThat(read(table.table())).as("Tuesday's id 2 is in another partition").containsExactlyInAnyOrder(
        row(1L, "a", MONDAY), row(1L, "a", TUESDAY), row(2L, "b", TUESDAY));
  }

  @Test
  void equalityDeletesMatchOnEveryChosenField() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA);
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a", MONDAY), table.newRecord(1L, "x", MONDAY),
        table.newRecord(2L, "a", TUESDAY), table.newRecord(3L, null, TUESDAY)));

    table.addDeletes(table.writeEqualityDeletes(FileFormat.AVRO,
        List.of(table.newRecord(1L, "a", null), table.newRecord(3L, null, null)), 1, 2));

    // (1, "x") and (2, "a") each match one field only; a null key value matches a null.
    assertThat(read(table.table())).containsExactlyInAnyOrder(row(1L, "x", MONDAY), row(2L, "a", TUESDAY));
  }

  @Test
  void deletionVectorsArePuffinFilesThatRemoveTheirRows() throws IOException {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, 3);
    List<DataFile> files = table.writeRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a", MONDAY),
        table.newRecord(2L, "b", MONDAY), table.newRecord(3L, "c", MONDAY), table.newRecord(4L, "d", MONDAY),
        table.newRecord(5L, "e", TUESDAY), table.newRecord(6L, "f", TUESDAY), table.newRecord(7L, "g", TUESDAY)));
    table.append(files);

    DeleteFile monday = table.writeDeletionVector(files.get(0), 2, 1);
    DeleteFile tuesday = table.writeDeletionVector(files.get(1), 0);

    assertThat(monday.format()).isEqualTo(FileFormat.PUFFIN);
    assertThat(monday.content()).isEqualTo(FileContent.POSITION_DELETES);
    assertThat(monday.referencedDataFile()).isEqualTo(files.get(0).location());
    assertThat(monday.recordCount()).isEqualTo(2);
    assertThat(monday.partition().get(0, Integer.class)).isEqualTo((int) MONDAY.toEpochDay());
    assertThat(monday.contentOffset()).isNotNull().isPositive();
    assertThat(monday.contentSizeInBytes()).isNotNull().isPositive();
    assertThat(monday.location()).endsWith(".puffin").isNotEqualTo(tuesday.location());
    try (FileIO clientSide = new InMemoryFileIO()) {
      assertThat(clientSide.newInputFile(monday.location()).getLength()).isEqualTo(monday.fileSizeInBytes());
    }
    table.addDeletes(monday, tuesday);

    assertThat(read(table.table())).containsExactlyInAnyOrder(row(1L, "a", MONDAY), row(4L, "d", MONDAY),
        row(6L, "f", TUESDAY), row(7L, "g", TUESDAY));
  }

  @Test
  void eachKindOfDeleteNeedsItsFormatVersion() {
    EmbeddedTable v2 = this.catalog.createTable(EVENTS, SCHEMA);
    DataFile v2File = v2.writeRows(FileFormat.AVRO, List.of(v2.newRecord(1L, "a", MONDAY))).get(0);
    EmbeddedTable v3 = this.catalog.createTable(TableIdentifier.of("db", "v3"), SCHEMA,
        PartitionSpec.unpartitioned(), 3);
    DataFile v3File = v3.writeRows(FileFormat.AVRO, List.of(v3.newRecord(1L, "a", MONDAY))).get(0);

    assertThatIllegalStateException().isThrownBy(() -> v2.writeDeletionVector(v2File, 0))
        .withMessageContaining("format version 2").withMessageContaining("need format version 3");
    assertThatIllegalStateException().isThrownBy(() -> v3.writePositionDeletes(FileFormat.AVRO, v3File, 0))
        .withMessageContaining("format version 3").withMessageContaining("writeDeletionVector");
  }

  @Test
  void rejectsWhatCannotBeWritten() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, 2);
    DataFile file = table.writeRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a", MONDAY),
        table.newRecord(2L, "b", MONDAY))).get(0);

    assertThatIllegalArgumentException().isThrownBy(() -> table.writePositionDeletes(FileFormat.AVRO, file, 2))
        .withMessageContaining("[0, 2)");
    assertThatIllegalArgumentException().isThrownBy(() -> table.writeEqualityDeletes(FileFormat.AVRO,
        List.of(table.newRecord(1L, null, MONDAY), table.newRecord(1L, null, TUESDAY)), 1))
        .withMessageContaining("2 partitions").withMessageContaining("day=2026-11-30, day=2026-12-01");
    assertThatIllegalArgumentException().isThrownBy(() -> table.writeEqualityDeletes(FileFormat.AVRO,
        List.of(table.newRecord(1L, null, MONDAY)), 99)).withMessageContaining("field id 99");
    assertThatIllegalArgumentException().isThrownBy(() -> table.writeRows(FileFormat.ORC,
        List.of(table.newRecord(1L, "a", MONDAY)))).withMessageContaining("not ORC");
    assertThatIllegalArgumentException().isThrownBy(() -> table.newRecord(1L, "a"))
        .withMessageContaining("2 values for the 3 columns");

    Record beforeTheChange = table.newRecord(3L, "c", MONDAY);
    table.table().updateSchema().addColumn("score", Types.IntegerType.get()).commit();
    assertThatIllegalArgumentException().isThrownBy(() -> table.writeRows(FileFormat.AVRO, List.of(beforeTheChange)))
        .withMessageContaining("row 0 is not a record of").withMessageContaining("current schema");
  }

  @Test
  void filesOfEarlierSchemasReadUnderTheEvolvedOne() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, new Schema(
        Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "name", Types.StringType.get())));
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a"), table.newRecord(2L, "b")));
    table.table().updateSchema().addColumn("score", Types.IntegerType.get()).renameColumn("name", "label").commit();
    long renamed = table.appendRows(FileFormat.PARQUET, List.of(table.newRecord(3L, "c", 30)));
    table.table().updateSchema().deleteColumn("label").commit();

    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(4L, 40)));

    List<Record> current = records(IcebergGenerics.read(table.table()).build());
    assertThat(current).allSatisfy(record -> assertThat(names(record)).containsExactly("id", "score"));
    assertThat(read(current)).containsExactlyInAnyOrder(row(1L, null), row(2L, null), row(3L, 30), row(4L, 40));
    // At the snapshot of the rename the column is "label", read by field id from files that call it "name".
    List<Record> then = records(IcebergGenerics.read(table.table()).useSnapshot(renamed).build());
    assertThat(then).allSatisfy(record -> assertThat(names(record)).containsExactly("id", "label", "score"));
    assertThat(read(then)).containsExactlyInAnyOrder(row(1L, "a", null), row(2L, "b", null), row(3L, "c", 30));
  }

  @Test
  void earlierSnapshotsReadAsTheyWere() {
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA);
    DataFile first = table.writeRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a", MONDAY),
        table.newRecord(2L, "b", MONDAY))).get(0);
    long appended = table.append(first);
    long appendedAgain = table.appendRows(FileFormat.PARQUET, List.of(table.newRecord(3L, "c", TUESDAY)));
    long positionDeleted = table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, first, 0));
    long equalityDeleted = table.addDeletes(table.writeEqualityDeletes(FileFormat.PARQUET,
        List.of(table.newRecord(3L, null, null)), 1));

    assertThat(table.snapshotIds()).containsExactly(appended, appendedAgain, positionDeleted, equalityDeleted);
    assertThat(read(IcebergGenerics.read(table.table()).useSnapshot(appended).build()))
        .containsExactly(row(1L, "a", MONDAY), row(2L, "b", MONDAY));
    assertThat(read(IcebergGenerics.read(table.table()).useSnapshot(appendedAgain).build()))
        .containsExactlyInAnyOrder(row(1L, "a", MONDAY), row(2L, "b", MONDAY), row(3L, "c", TUESDAY));
    assertThat(read(IcebergGenerics.read(table.table()).useSnapshot(positionDeleted).build()))
        .containsExactlyInAnyOrder(row(2L, "b", MONDAY), row(3L, "c", TUESDAY));
    assertThat(read(table.table())).containsExactly(row(2L, "b", MONDAY));
  }

  @Test
  void theCatalogAdvertisesItsFileIOAsADefault() throws IOException {
    this.catalog.start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA);
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a", MONDAY)));

    RawHttp http = new RawHttp(this.catalog);
    assertThat(http.get("/v1/config").json().path("defaults").path("io-impl").asText())
        .isEqualTo(InMemoryFileIO.class.getName());
    this.catalog.planningEndpoints(false);
    assertThat(http.get("/v1/config").json().path("defaults").path("io-impl").asText())
        .as("also when the planning endpoints are left out").isEqualTo(InMemoryFileIO.class.getName());
    this.catalog.planningEndpoints(true);
    // A default, not an override: a client's own choice wins.
    try (RESTCatalog ownFileIO = new RESTCatalog()) {
      ownFileIO.initialize("client", Map.of("uri", this.catalog.uri(), "io-impl", ResolvingFileIO.class.getName()));
      assertThat(ownFileIO.loadTable(EVENTS).io()).isInstanceOf(ResolvingFileIO.class);
    }
  }

  @ParameterizedTest(name = "format version {0}")
  @ValueSource(ints = { 2, 3 })
  void icebergsRestClientReadsTheRowsThroughTheCatalog(int formatVersion) throws IOException {
    this.catalog.tasksPerPlanTask(1).start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, SCHEMA, BY_DAY, formatVersion);
    List<DataFile> files = table.writeRows(FileFormat.PARQUET, List.of(table.newRecord(1L, "a", MONDAY),
        table.newRecord(2L, "b", MONDAY), table.newRecord(3L, "c", MONDAY), table.newRecord(4L, "d", TUESDAY),
        table.newRecord(5L, "e", TUESDAY)));
    long appended = table.append(files);
    DeleteFile positions = formatVersion == 2 ? table.writePositionDeletes(FileFormat.AVRO, files.get(0), 1)
        : table.writeDeletionVector(files.get(0), 1);
    DeleteFile equality = table.writeEqualityDeletes(FileFormat.PARQUET, List.of(table.newRecord(5L, null, TUESDAY)),
        1);
    table.rowDelta(List.of(), List.of(positions, equality));

    try (RESTCatalog client = Tables.icebergClient(this.catalog)) {
      Table loaded = client.loadTable(EVENTS);
      assertThat(loaded.io()).as("the FileIO the catalog advertised").isInstanceOf(InMemoryFileIO.class);
      this.catalog.resetRequestCounts();

      assertThat(read(loaded)).containsExactlyInAnyOrder(row(1L, "a", MONDAY), row(3L, "c", MONDAY),
          row(4L, "d", TUESDAY));
      assertThat(this.catalog.requestCounts().plan()).as("planned on the server").isEqualTo(1);
      assertThat(this.catalog.requestCounts().tasks()).as("two files, one task a response").isEqualTo(1);
      assertThat(read(IcebergGenerics.read(loaded).useSnapshot(appended).build())).hasSize(5);
    }
  }

  @Test
  void avroNeedsNoParquetAndParquetSaysWhatIsMissing() throws Exception {
    ClassPathWithout.Run run = ClassPathWithout.run(path -> {
      String name = Path.of(path).getFileName().toString();
      return name.startsWith("iceberg-parquet-") || name.startsWith("parquet-") || name.startsWith("hadoop-client-");
    }, WithoutParquet.class);
    assertThat(run.leftOut()).as("this module's tests have the optional jars")
        .anyMatch(name -> name.startsWith("iceberg-parquet-")).anyMatch(name -> name.startsWith("hadoop-client-api-"));

    assertThat(run.outcome()).isEqualTo(List.of("no iceberg-parquet", "read 2 b", "writing PARQUET files needs "
        + "org.apache.iceberg:iceberg-parquet and org.apache.hadoop:hadoop-client-api and hadoop-client-runtime "
        + "on the classpath (optional dependencies of iceberg-scan-planning-test: declare them in your build), "
        + "or write AVRO files, which need neither; missing: org.apache.iceberg.parquet.Parquet, "
        + "org.apache.hadoop.conf.Configuration"));
  }

  /**
   * Runs in a class loader without iceberg-parquet, Parquet and Hadoop: writes Avro data, position and
   * equality delete files and reads what is left, then tries Parquet. Only JDK types cross the loader boundary.
   */
  public static final class WithoutParquet implements Callable<List<String>> {

    @Override
    public List<String> call() throws IOException {
      List<String> outcome = new ArrayList<>();
      try {
        Class.forName("org.apache.iceberg.parquet.Parquet");
        outcome.add("iceberg-parquet is there");
      }
      catch (ClassNotFoundException expected) {
        outcome.add("no iceberg-parquet");
      }
      try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create()) {
        EmbeddedTable table = catalog.createTable(TableIdentifier.of("db", "t"),
            new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
                Types.NestedField.optional(2, "name", Types.StringType.get())));
        DataFile file = table.writeRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a"), table.newRecord(2L, "b"),
            table.newRecord(3L, "c"))).get(0);
        table.append(file);
        table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, file, 0),
            table.writeEqualityDeletes(FileFormat.AVRO, List.of(table.newRecord(3L, null)), 1));
        try (CloseableIterable<Record> rows = IcebergGenerics.read(table.table()).build()) {
          rows.forEach(row -> outcome.add("read " + row.getField("id") + " " + row.getField("name")));
        }
        try {
          table.writeRows(FileFormat.PARQUET, List.of(table.newRecord(2L, "b")));
          outcome.add("wrote Parquet");
        }
        catch (IllegalStateException refused) {
          outcome.add(refused.getMessage());
        }
      }
      return outcome;
    }
  }

  // ---------------------------------------------------------------------------------------------

  private static List<Object> row(@Nullable Object... values) {
    return Arrays.asList(values);
  }

  private static List<List<Object>> read(Table table) {
    return read(IcebergGenerics.read(table).build());
  }

  private static List<List<Object>> read(CloseableIterable<Record> records) {
    return read(records(records));
  }

  /**
   * Rows as lists of their columns' values, strings as {@code String} whichever {@code CharSequence} the reader
   * made; without the metadata columns Iceberg's reader adds to apply position deletes ({@code _pos}).
   */
  private static List<List<Object>> read(List<Record> records) {
    List<List<Object>> rows = new ArrayList<>();
    for (Record record : records) {
      List<Object> values = new ArrayList<>();
      for (Types.NestedField field : record.struct().fields()) {
        if (!MetadataColumns.isMetadataColumn(field.fieldId())) {
          Object value = record.getField(field.name());
          values.add(value instanceof CharSequence text ? text.toString() : value);
        }
      }
      rows.add(values);
    }
    return rows;
  }

  private static List<Record> records(CloseableIterable<Record> records) {
    List<Record> copies = new ArrayList<>();
    try (records) {
      records.forEach(record -> copies.add(record.copy()));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return copies;
  }

  private static List<String> names(Record record) {
    return record.struct().fields().stream().map(Types.NestedField::name).filter(MetadataColumns::nonMetadataColumn)
        .toList();
  }

  private static List<Object> lowerAndUpper(DataFile file, int fieldId) {
    Types.NestedField field = SCHEMA.findField(fieldId);
    return List.of(Conversions.fromByteBuffer(field.type(), file.lowerBounds().get(fieldId)),
        Conversions.fromByteBuffer(field.type(), file.upperBounds().get(fieldId)));
  }

  private static List<String> plannedFiles(CloseableIterable<FileScanTask> tasks) {
    List<String> locations = new ArrayList<>();
    try (tasks) {
      tasks.forEach(task -> locations.add(task.file().location()));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return locations;
  }
}
