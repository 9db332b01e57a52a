package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.OutputStream;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reading planned tasks: rows cut to the request's {@code select} while the filter's columns are still read,
 * deletes applied, splits read as a whole, a streamed plan read in order, and a missing or corrupt file failing
 * with a typed error that names it rather than leaving its rows out.
 */
class RowReadingTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()));
  private static final Schema NESTED = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "location", Types.StructType.of(
          Types.NestedField.required(3, "lat", Types.DoubleType.get()),
          Types.NestedField.required(4, "lon", Types.DoubleType.get()))));
  private static final String NAMESPACE = "reading";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void selectCutsRowsToItsColumnsWhileTheFilterStillReadsItsOwn(FileFormat format) {
    EmbeddedTable table = table("select_" + format, 2);
    table.appendRows(format, rows(table, 0, 20));
    IcebergScan request = IcebergScan.all().select("name")
        .filter(Expressions.greaterThanOrEqual("id", 15L));
    try (IcebergScanPlan plan = iceberg.plan(load(table), request)) {
      assertThat(plan.schema().columns()).extracting(Types.NestedField::name).containsExactly("name");
      List<Record> rows = read(plan.rows());
      assertThat(rows).allSatisfy(row -> assertThat(row.struct().fields()).hasSize(1));
      assertThat(rows).extracting(row -> row.getField("name"))
          .containsExactlyInAnyOrder("name-15", "name-16", "name-17", "name-18", "name-19");
    }
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void selectOfANestedFieldCutsItsStructWhileTheFilterStillReadsASiblingField(FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "nested_" + format), NESTED,
        PartitionSpec.unpartitioned(), 2);
    List<Record> written = new ArrayList<>();
    for (long id = 0; id < 10; id++) {
      Record location = GenericRecord.create(NESTED.findField("location").type().asStructType());
      location.setField("lat", (double) id);
      location.setField("lon", (double) -id);
      written.add(table.newRecord(id, location));
    }
    table.appendRows(format, written);
    IcebergScan request = IcebergScan.all().select("location.lat")
        .filter(Expressions.lessThanOrEqual("location.lon", -7.0));
    try (IcebergScanPlan plan = iceberg.plan(load(table), request)) {
      List<Record> rows = read(plan.rows());
      assertThat(rows).allSatisfy(row -> {
        assertThat(row.struct().fields()).extracting(Types.NestedField::name).containsExactly("location");
        Record location = (Record) row.getField("location");
        assertThat(location.struct().fields()).extracting(Types.NestedField::name).containsExactly("lat");
        assertThat(location.size()).isOne();
      });
      assertThat(rows).extracting(row -> ((Record) row.getField("location")).getField("lat"))
          .containsExactlyInAnyOrder(7.0, 8.0, 9.0);
    }
  }

  @Test
  void deletesOfEveryKindAreApplied() {
    EmbeddedTable table = table("deletes", 3);
    List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows(table, 0, 10));
    table.append(files);
    table.addDeletes(table.writeDeletionVector(files.get(0), 0, 9),
        table.writeEqualityDeletes(FileFormat.AVRO, List.of(key(table, 4)), 1));
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThat(read(plan.rows())).extracting(row -> row.getField("id"))
          .containsExactlyInAnyOrder(1L, 2L, 3L, 5L, 6L, 7L, 8L);
      long planned = plan.tasks().stream().mapToLong(task -> task.file().recordCount()).sum();
      assertThat(planned).isEqualTo(10);
    }
  }

  @Test
  void splitTasksReadTheSameRowsAsTheirTasks() {
    EmbeddedTable table = table("splits", 2);
    for (int i = 0; i < 6; i++) {
      table.appendRows(FileFormat.AVRO, rows(table, i * 10L, 10));
    }
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      List<CombinedScanTask> groups = plan.splitTasks(new SplitSettings(2 * averageSize(plan), 10, 0));
      assertThat(groups).hasSizeGreaterThan(1).hasSizeLessThan(plan.tasks().size());
      List<Object> fromGroups = new ArrayList<>();
      groups.forEach(group -> read(plan.rows(group)).forEach(row -> fromGroups.add(row.getField("id"))));
      assertThat(fromGroups).containsExactlyInAnyOrderElementsOf(read(plan.rows()).stream()
          .map(row -> row.getField("id")).toList()).hasSize(60);
    }
  }

  @Test
  void aWholeFileWithPositionDeletesIsOpenedOnceAndPiecesOfItReadItsRowsOnce() {
    EmbeddedTable table = table("ranges", 2);
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows(table, 0, 3000));
    table.append(files);
    table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, files.get(0), 0, 1500, 2999));
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner counting = IcebergScanPlanner.builder(planner).fileIoProperties(scope.fileIoProperties())
        .build(); IcebergScanPlan plan = counting.plan(load(table), IcebergScan.all())) {
      String location = files.get(0).location();
      List<Object> whole = read(plan.rows()).stream().map(row -> row.getField("id")).toList();
      assertThat(whole).hasSize(2997).doesNotContain(0L, 1500L, 2999L);
      // Iceberg's Avro reader opens a file a second time to count the rows before a range's start
      assertThat(scope.streamsOpened(location)).as("the whole file, once").isOne();
      List<CombinedScanTask> pieces = plan.splitTasks(new SplitSettings(files.get(0).fileSizeInBytes() / 4, 1, 0));
      assertThat(pieces.stream().mapToInt(piece -> piece.files().size()).sum()).isGreaterThan(1);
      List<Object> fromPieces = new ArrayList<>();
      pieces.forEach(piece -> read(plan.rows(piece)).forEach(row -> fromPieces.add(row.getField("id"))));
      assertThat(fromPieces).containsExactlyInAnyOrderElementsOf(whole);
    }
  }

  @Test
  void aStreamedPlanReadsEveryRow() throws IOException {
    EmbeddedTable table = table("streamed", 2);
    for (int i = 0; i < 12; i++) {
      table.appendRows(FileFormat.AVRO, rows(table, i * 5L, 5));
    }
    IcebergTable loaded = load(table);
    List<Object> whole;
    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all())) {
      whole = read(plan.rows()).stream().map(row -> row.getField("id")).toList();
    }
    try (CloseableIterable<Record> rows = iceberg.readRows(loaded, IcebergScan.all())) {
      // (the server plans twelve manifests in parallel: two plans need not list their files in one order)
      assertThat(read(rows).stream().map(row -> row.getField("id")).toList()).containsExactlyInAnyOrderElementsOf(whole)
          .hasSize(60);
    }
  }

  @Test
  void closingAStreamEarlyStopsThePlan() throws IOException {
    EmbeddedTable table = table("stopped", 2);
    for (int i = 0; i < 8; i++) {
      table.appendRows(FileFormat.AVRO, rows(table, i * 5L, 5));
    }
    try (CloseableIterable<Record> rows = iceberg.readRows(load(table), IcebergScan.all());
        CloseableIterator<Record> iterator = rows.iterator()) {
      assertThat(iterator.hasNext()).isTrue();
      iterator.next();
    }
    // no fetch is left running: the planner's slots are all free again
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
        .until(() -> planner.requestsInFlight() == 0);
  }

  @Test
  void aMissingDataFileFailsNamingIt() {
    EmbeddedTable table = table("missing", 2);
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows(table, 0, 5));
    table.append(files);
    table.table().io().deleteFile(files.get(0).location());
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThatThrownBy(() -> read(plan.rows()))
          .isInstanceOf(TaskReadException.class)
          .hasMessageContaining(files.get(0).location())
          .satisfies(failure -> assertThat(((TaskReadException) failure).dataFile())
              .isEqualTo(files.get(0).location()));
    }
  }

  @Test
  void aCorruptDataFileFailsNamingIt() throws IOException {
    EmbeddedTable table = table("corrupt", 2);
    List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows(table, 0, 5));
    table.append(files);
    OutputFile overwritten = table.table().io().newOutputFile(files.get(0).location());
    try (OutputStream out = overwritten.createOrOverwrite()) {
      out.write("not a parquet file at all".getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThatThrownBy(() -> read(plan.rows()))
          .isInstanceOf(TaskReadException.class)
          .hasMessageContaining(files.get(0).location());
    }
  }

  @Test
  void aMissingDeleteFileFailsRatherThanKeepingTheDeletedRows() {
    EmbeddedTable table = table("missing_delete", 2);
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows(table, 0, 5));
    table.append(files);
    var deletes = table.writePositionDeletes(FileFormat.AVRO, files.get(0), 1);
    table.addDeletes(deletes);
    table.table().io().deleteFile(deletes.location());
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThatThrownBy(() -> read(plan.rows()))
          .isInstanceOf(TaskReadException.class)
          .hasMessageContaining(files.get(0).location())
          .hasMessageContaining(deletes.location());
    }
  }

  @Test
  void aFilterOrSelectTheSchemaDoesNotHaveIsRefusedBeforeSending() {
    EmbeddedTable table = table("refused", 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 3));
    IcebergTable loaded = load(table);
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all()
        .filter(Expressions.equal("nope", 1))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all()
        .filter(Expressions.equal("day", "not a date"))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("day");
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().select("id", "nope")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nope");
    assertThat(catalog.requestCounts().plan()).isZero();
  }

  @Test
  void aCaseInsensitiveScanSelectsAndFiltersColumnsNamedInAnotherCase() {
    EmbeddedTable table = table("case_insensitive", 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 6));
    IcebergScan request = IcebergScan.all().caseSensitive(false).select("NAME", "_FILE")
        .filter(Expressions.greaterThan("ID", 3L));
    try (IcebergScanPlan plan = iceberg.plan(load(table), request)) {
      assertThat(plan.schema().columns()).extracting(Types.NestedField::name).containsExactly("name", "_file");
      List<Record> rows = read(plan.rows());
      assertThat(rows).extracting(row -> row.getField("name")).containsExactlyInAnyOrder("name-4", "name-5");
      assertThat(rows).allSatisfy(row -> assertThat((String) row.getField("_file")).startsWith("memory://"));
    }
  }

  @Test
  void aCaseSensitiveScanRefusesColumnsNamedInAnotherCaseBeforeSending() {
    EmbeddedTable table = table("case_sensitive", 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 3));
    IcebergTable loaded = load(table);
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().filter(Expressions.greaterThan("ID", 1L))
        )).as("by default").isInstanceOf(IllegalArgumentException.class).hasMessageContaining("ID");
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().caseSensitive(true).select("NAME")))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("select names no column")
        .hasMessageContaining("NAME");
    assertThatThrownBy(() -> iceberg.plan(loaded, IcebergScan.all().select("id", "_FILE")))
        .as("a metadata column too").isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("select names no column").hasMessageContaining("_FILE");
    assertThat(catalog.requestCounts().plan()).isZero();
  }

  @Test
  void streamedRowsOfAnIcebergTableOfTheApplicationsOwnReadWithItsFileIO() {
    EmbeddedTable table = table("own_streamed", 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 4));
    IcebergTable own = IcebergTable.of(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, "own_streamed"),
        table.table());
    assertThat(read(iceberg.readRows(own, IcebergScan.all()))).hasSize(4);
  }

  @Test
  void anIcebergTableOfTheApplicationsOwnReadsWithItsFileIO() {
    EmbeddedTable table = table("own", 2);
    table.appendRows(FileFormat.AVRO, rows(table, 0, 4));
    IcebergScanPlanner withoutProperties = IcebergScanPlanner.builder(planner).build();
    IcebergTable own = IcebergTable.of(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, "own"), table.table());
    try (IcebergScanPlan plan = withoutProperties.plan(own, IcebergScan.all())) {
      assertThat(plan.io()).isSameAs(table.table().io());
      assertThat(read(plan.rows())).hasSize(4);
    }
  }

  private static long averageSize(IcebergScanPlan plan) {
    return (long) plan.tasks().stream().mapToLong(FileScanTask::length).average().orElseThrow();
  }

  private static EmbeddedTable table(String name, int formatVersion) {
    return catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA, PartitionSpec.unpartitioned(),
        formatVersion);
  }

  private static IcebergTable load(EmbeddedTable table) {
    return iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, table.identifier().name()));
  }

  private static List<Record> read(CloseableIterable<Record> rows) {
    return TestRows.readAll(rows);
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      rows.add(table.newRecord(id, "name-" + id, LocalDate.EPOCH.plusDays(id % 3)));
    }
    return rows;
  }

  private static Record key(EmbeddedTable table, long id) {
    Record key = table.newRecord();
    key.setField("id", id);
    return key;
  }
}
