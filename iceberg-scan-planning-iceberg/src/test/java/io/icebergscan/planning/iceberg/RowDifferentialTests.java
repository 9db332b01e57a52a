package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * The row-level differential: the rows read through this module (a plan on the catalog's server side, the tasks
 * converted to Iceberg's, read with deletes applied) equal, as multisets, the rows Apache Iceberg reads itself,
 * twice over: {@code IcebergGenerics.read} planning locally on the catalog's own table, and
 * {@code IcebergGenerics.read} on the table as Iceberg's {@code RESTCatalog} loads it with
 * {@code scan-planning-mode=server}. Every table shape meets every filter at every one of its snapshots (a time
 * travel with its default schema: the snapshot's), and ours are read six ways: in task order and as read, at read
 * concurrency 1, 4 and 16; in task order they are, row for row, the plan's tasks read one after the other.
 *
 * <p>Two shapes are read as a table loaded earlier: one whose spec another writer evolved after the load (against
 * Iceberg's table object loaded at the same time; Iceberg's REST client fails there, see
 * {@link SnapshotResolutionTests}), and one whose column was renamed since its first snapshot, with a filter on the
 * old name at that snapshot.
 *
 * <p>Where Iceberg's {@code Evaluator} departs from the expressions spec (it keeps a null for {@code lt} and
 * {@code lt-eq}, a NaN for {@code gt} and {@code gt-eq}, and so drops them for their negations), the spec wins:
 * the expected rows are Iceberg's rows of the snapshot, unfiltered, kept by each filter's spec semantics written out
 * here, and Iceberg's own filtered rows are compared only for the filters where the two agree.
 *
 * <p>The catalog serves every plan over a fan-out tree of plan-tasks, so both clients walk trees.
 */
class RowDifferentialTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()));
  private static final PartitionSpec BY_DAY = PartitionSpec.builderFor(SCHEMA).identity("day").build();
  private static final PartitionSpec BY_BUCKET = PartitionSpec.builderFor(SCHEMA).bucket("id", 4).build();
  private static final String NAMESPACE = "differential";

  /** Filters on the columns every shape has, from none to compound ones with nulls and NaNs. */
  private static final Map<String, Filter> FILTERS = filters();
  /** The filter only the shape renamed since its first snapshot takes, there: NaN scores. */
  private static final Filter SCORE_ABOVE_TWO = new Filter(Expressions.greaterThan("score", 2.0), row -> {
    Double score = (Double) row.get(position(row, 4));
    return score != null && !score.isNaN() && score > 2.0;
  }, false);
  private static final Map<String, EmbeddedTable> TABLES = new TreeMap<>();
  /** The read concurrencies ours are read at, each in task order and as read. */
  private static final List<Integer> READ_CONCURRENCIES = List.of(1, 4, 16);

  /** Shapes read as loaded before another writer changed them: ours, and Iceberg's table object of that time. */
  private static final Map<String, IcebergTable> LOADED_EARLIER = new HashMap<>();
  private static final Map<String, Table> ICEBERG_LOADED_EARLIER = new HashMap<>();
  /** Filters only some shapes take, at the snapshots where their columns are: a shape's name to its extra scans. */
  private static final Map<String, List<Arguments>> EXTRA_SCANS = new HashMap<>();

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  /** Ours at each read concurrency. */
  private static final Map<Integer, IcebergScanPlanner> READERS = new TreeMap<>();
  private static RESTCatalog icebergClient;
  private static final AtomicLong ROWS_COMPARED = new AtomicLong();
  private static final AtomicLong SCANS_COMPARED = new AtomicLong();

  @BeforeAll
  static void createTables() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(3, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(8).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    READ_CONCURRENCIES.forEach(concurrency -> READERS.put(concurrency,
        IcebergScanPlanner.builder(planner).readConcurrency(concurrency).build()));
    shape("v2_unpartitioned_avro", PartitionSpec.unpartitioned(), 2, table -> {
      table.appendRows(FileFormat.AVRO, rows(table, 0, 30));
      table.appendRows(FileFormat.AVRO, rows(table, 30, 20));
    });
    shape("v2_unpartitioned_parquet", PartitionSpec.unpartitioned(), 2, table -> {
      table.appendRows(FileFormat.PARQUET, rows(table, 0, 40));
    });
    shape("v2_by_day_position_deletes_avro", BY_DAY, 2, table -> {
      List<DataFile> files = table.writeRows(FileFormat.AVRO, rows(table, 0, 60));
      table.append(files);
      table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, files.get(0), 0, 3, 5),
          table.writePositionDeletes(FileFormat.AVRO, files.get(1), 1));
    });
    shape("v2_by_bucket_position_deletes_parquet", BY_BUCKET, 2, table -> {
      List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows(table, 0, 80));
      table.append(files);
      table.addDeletes(table.writePositionDeletes(FileFormat.PARQUET, files.get(0), 0, 1, 2),
          table.writePositionDeletes(FileFormat.PARQUET, files.get(2), 4));
      table.appendRows(FileFormat.PARQUET, rows(table, 80, 20));
    });
    shape("v2_equality_deletes_avro", PartitionSpec.unpartitioned(), 2, table -> {
      table.appendRows(FileFormat.AVRO, rows(table, 0, 50));
      table.addDeletes(table.writeEqualityDeletes(FileFormat.AVRO, List.of(key(table, 3), key(table, 17),
          key(table, 42)), 1));
      // rows appended after the delete are not deleted by it, even with a deleted id
      table.appendRows(FileFormat.AVRO, rows(table, 17, 2));
    });
    shape("v2_by_day_equality_deletes_parquet", BY_DAY, 2, table -> {
      table.appendRows(FileFormat.PARQUET, rows(table, 0, 60));
      Record nameInDay1 = table.newRecord(null, "name-4", LocalDate.EPOCH.plusDays(1), null);
      nameInDay1.setField("id", 0L);
      table.addDeletes(table.writeEqualityDeletes(FileFormat.PARQUET, List.of(nameInDay1), 2, 3));
    });
    shape("v3_unpartitioned_dvs_parquet", PartitionSpec.unpartitioned(), 3, table -> {
      List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows(table, 0, 40));
      table.append(files);
      table.addDeletes(table.writeDeletionVector(files.get(0), 0, 10, 39));
    });
    shape("v3_by_day_dvs_avro", BY_DAY, 3, table -> {
      List<DataFile> files = table.writeRows(FileFormat.AVRO, rows(table, 0, 60));
      table.append(files);
      table.addDeletes(table.writeDeletionVector(files.get(0), 1, 2),
          table.writeDeletionVector(files.get(2), 0));
    });
    shape("v3_by_day_dvs_and_equality_mixed_formats", BY_DAY, 3, table -> {
      List<DataFile> avro = table.writeRows(FileFormat.AVRO, rows(table, 0, 30));
      List<DataFile> parquet = table.writeRows(FileFormat.PARQUET, rows(table, 30, 30));
      List<DataFile> all = new ArrayList<>(avro);
      all.addAll(parquet);
      table.append(all);
      List<DeleteFile> deletes = new ArrayList<>();
      deletes.add(table.writeDeletionVector(avro.get(0), 0));
      deletes.add(table.writeDeletionVector(parquet.get(1), 2, 3));
      Record key = table.newRecord(33L, null, LocalDate.EPOCH.plusDays(33 % 3), null);
      deletes.add(table.writeEqualityDeletes(FileFormat.AVRO, List.of(key), 1));
      table.rowDelta(List.of(), deletes);
    });
    shape("v2_evolved_schema", PartitionSpec.unpartitioned(), 2, table -> {
      table.appendRows(FileFormat.AVRO, rows(table, 0, 20));
      table.table().updateSchema().addColumn("extra", Types.StringType.get()).commit();
      table.table().updateSchema().renameColumn("score", "points").commit();
      List<Record> later = new ArrayList<>();
      for (long id = 20; id < 35; id++) {
        later.add(table.newRecord(id, "name-" + id, LocalDate.EPOCH.plusDays(id % 3), id / 4.0, "x" + id));
      }
      table.appendRows(FileFormat.PARQUET, later);
    });
    shape("v2_several_snapshots", BY_DAY, 2, table -> {
      List<DataFile> first = table.writeRows(FileFormat.AVRO, rows(table, 0, 30));
      table.append(first);
      table.appendRows(FileFormat.PARQUET, rows(table, 30, 30));
      table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, first.get(0), 0, 1));
      table.addDeletes(table.writeEqualityDeletes(FileFormat.PARQUET, List.of(key(table, 31)), 1));
      table.appendRows(FileFormat.AVRO, rows(table, 60, 10));
    });
    shape("v3_evolved_spec", BY_DAY, 3, table -> {
      table.appendRows(FileFormat.PARQUET, rows(table, 0, 30));
      table.table().updateSpec().addField(Expressions.bucket("id", 2)).commit();
      List<DataFile> later = table.writeRows(FileFormat.PARQUET, rows(table, 30, 30));
      table.append(later);
      table.addDeletes(table.writeDeletionVector(later.get(0), 0));
    });
    shape("v2_many_files_fan_out", PartitionSpec.unpartitioned(), 2, table -> {
      for (int file = 0; file < 40; file++) {
        table.appendRows(file % 2 == 0 ? FileFormat.AVRO : FileFormat.PARQUET, rows(table, file * 5L, 5));
      }
    });
    shape("v2_spec_evolved_after_load", BY_DAY, 2, table -> {
      table.appendRows(FileFormat.AVRO, rows(table, 0, 30));
      table.addDeletes(table.writeEqualityDeletes(FileFormat.AVRO, List.of(key(table, 4)), 1));
      String name = table.identifier().name();
      LOADED_EARLIER.put(name, iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, name)));
      ICEBERG_LOADED_EARLIER.put(name, table.table());
      // another writer, after the load: a spec the loaded metadata does not know, and files of it
      table.table().updateSpec().addField(Expressions.bucket("id", 4)).commit();
      table.appendRows(FileFormat.PARQUET, rows(table, 30, 20));
    });
    shape("v2_time_travel_renamed", PartitionSpec.unpartitioned(), 2, table -> {
      table.appendRows(FileFormat.AVRO, rows(table, 0, 40));
      long first = table.currentSnapshotId();
      table.table().updateSchema().renameColumn("score", "points").commit();
      table.appendRows(FileFormat.PARQUET, rows(table, 40, 20));
      EXTRA_SCANS.put(table.identifier().name(), List.of(arguments(table.identifier().name(), "score > 2", first)));
    });
    icebergClient = new RESTCatalog();
    icebergClient.initialize("client", Map.of("uri", catalog.uri(), "scan-planning-mode", "server"));
  }

  @AfterAll
  static void stop() throws IOException {
    System.out.printf("row differential: %d tables, %d filters, %d scans (table x filter x snapshot), %d rows "
        + "compared, each against both of Iceberg's readers%n", TABLES.size(), FILTERS.size(), SCANS_COMPARED.get(),
        ROWS_COMPARED.get());
    icebergClient.close();
    iceberg.close();
    READERS.values().forEach(IcebergScanPlanner::close);
    planner.close();
    catalog.close();
  }

  static Stream<Arguments> scans() {
    List<Arguments> scans = new ArrayList<>();
    TABLES.forEach((name, table) -> {
      List<Long> snapshots = timeTravels(LOADED_EARLIER.containsKey(name)
          ? snapshotIds(LOADED_EARLIER.get(name)) : table.snapshotIds());
      for (String filter : FILTERS.keySet()) {
        scans.add(arguments(name, filter, null));
        for (Long snapshot : snapshots) {
          scans.add(arguments(name, filter, snapshot));
        }
      }
      scans.addAll(EXTRA_SCANS.getOrDefault(name, List.of()));
    });
    return scans.stream();
  }

  private static List<Long> snapshotIds(IcebergTable table) {
    return table.metadata().snapshots().stream().map(org.apache.iceberg.Snapshot::snapshotId).toList();
  }

  /** The first, a middle and the one before the current snapshot: time travel past each kind of commit. */
  private static List<Long> timeTravels(List<Long> snapshots) {
    if (snapshots.size() <= 3) {
      return snapshots.subList(0, snapshots.size() - 1);
    }
    return List.of(snapshots.get(0), snapshots.get(snapshots.size() / 2), snapshots.get(snapshots.size() - 2));
  }

  @ParameterizedTest(name = "{0} where {1} at {2}")
  @MethodSource("scans")
  void rowsEqualIcebergsOwnReaders(String tableName, String filterName, Long snapshot) {
    Filter spec = filterName.equals("score > 2") ? SCORE_ABOVE_TWO : FILTERS.get(filterName);
    Expression filter = spec.expression();
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, tableName);
    // a time travel reads with the snapshot's schema, as Iceberg's useSnapshot does
    IcebergScan scan = snapshot == null ? IcebergScan.all().filter(filter) : IcebergScan.all().filter(filter)
        .useSnapshot(snapshot);
    IcebergTable table = LOADED_EARLIER.containsKey(tableName) ? LOADED_EARLIER.get(tableName)
        : iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, tableName));
    Table local = ICEBERG_LOADED_EARLIER.getOrDefault(tableName, TABLES.get(tableName).table());
    List<String> expected = icebergRows(local, Expressions.alwaysTrue(), snapshot, spec.spec());
    List<String> icebergFiltered = icebergRows(local, filter, snapshot, row -> true);
    if (spec.icebergAgrees()) {
      assertThat(icebergFiltered).as("IcebergGenerics filtering, where it agrees with the spec")
          .containsExactlyInAnyOrderElementsOf(expected);
    }
    if (!LOADED_EARLIER.containsKey(tableName)) {
      assertThat(icebergRows(icebergClient.loadTable(identifier), filter, snapshot, row -> true))
          .as("IcebergGenerics over RESTCatalog's server-side plan, against it planning locally")
          .containsExactlyInAnyOrderElementsOf(icebergFiltered);
    }
    for (Map.Entry<Integer, IcebergScanPlanner> reader : READERS.entrySet()) {
      try (IcebergScanPlan plan = reader.getValue().plan(table, scan)) {
        List<String> serial = new ArrayList<>();
        plan.tasks().forEach(task -> serial.addAll(rendered(plan.rows(task))));
        assertThat(serial).as("the tasks read one after the other").containsExactlyInAnyOrderElementsOf(expected);
        assertThat(rendered(plan.rows())).as("in task order at read concurrency %d", reader.getKey())
            .containsExactlyElementsOf(serial);
        assertThat(rendered(plan.rows().unordered())).as("as read at read concurrency %d", reader.getKey())
            .containsExactlyInAnyOrderElementsOf(expected);
      }
    }
    ROWS_COMPARED.addAndGet(expected.size());
    SCANS_COMPARED.incrementAndGet();
  }

  @Test
  void theShapesHaveRowsDeletesAndHistory() {
    // the matrix is only worth its name if the shapes hold what their names say
    assertThat(TABLES).hasSizeGreaterThanOrEqualTo(15);
    assertThat(LOADED_EARLIER).containsOnlyKeys("v2_spec_evolved_after_load");
    assertThat(TABLES.get("v2_spec_evolved_after_load").snapshotIds())
        .as("the writer committed after the load").hasSizeGreaterThan(snapshotIds(LOADED_EARLIER.get(
            "v2_spec_evolved_after_load")).size());
    assertThat(FILTERS).hasSizeGreaterThanOrEqualTo(6);
    TABLES.values().forEach(table -> assertThat(table.snapshotIds()).isNotEmpty());
    assertThat(TABLES.values().stream().filter(table -> table.snapshotIds().size() > 1).count())
        .isGreaterThanOrEqualTo(8);
  }

  /** Iceberg's rows of the snapshot where {@code filter}, those {@code kept} keeps. */
  private static List<String> icebergRows(Table table, Expression filter, Long snapshot, Predicate<Record> kept) {
    IcebergGenerics.ScanBuilder scan = IcebergGenerics.read(table).where(filter);
    if (snapshot != null) {
      scan = scan.useSnapshot(snapshot);
    }
    List<Record> rows = new ArrayList<>();
    try (CloseableIterable<Record> read = scan.build()) {
      read.forEach(row -> {
        if (kept.test(row)) {
          rows.add(row);
        }
      });
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rendered(CloseableIterable.withNoopClose(rows));
  }

  /** Where a row holds the field with that id. */
  private static int position(Record row, int fieldId) {
    List<Types.NestedField> fields = row.struct().fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).fieldId() == fieldId) {
        return i;
      }
    }
    throw new IllegalArgumentException("no field " + fieldId + " in " + row.struct());
  }

  /**
   * A filter as Iceberg's expression, and as the expressions spec evaluates it on a row: two-valued and null-safe,
   * a comparison with null or NaN false.
   *
   * @param icebergAgrees whether Iceberg's own {@code Evaluator} gives the spec's answer on these rows
   */
  private record Filter(Expression expression, Predicate<Record> spec, boolean icebergAgrees) {
  }

  /**
   * Each row as its fields by name, so rows compare whatever class holds them. Iceberg's generic reader leaves
   * the row position it read for position deletes ({@code _pos}) in its rows; ours are cut to the scan's
   * columns, so metadata columns are left out of the comparison.
   */
  private static List<String> rendered(CloseableIterable<Record> rows) {
    List<String> rendered = new ArrayList<>();
    try (rows) {
      for (Record row : rows) {
        Map<String, Object> fields = new TreeMap<>();
        row.struct().fields().stream().filter(field -> !MetadataColumns.isMetadataColumn(field.fieldId()))
            .forEach(field -> fields.put(field.name(), row.getField(field.name())));
        rendered.add(fields.toString());
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rendered;
  }

  private static void shape(String name, PartitionSpec spec, int formatVersion, Consumer<EmbeddedTable> fill) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA, spec, formatVersion);
    fill.accept(table);
    TABLES.put(name, table);
  }

  /** Rows {@code from} to {@code from + count - 1}: three days, some null names and scores, one NaN score. */
  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      Record row = table.newRecord();
      row.setField("id", id);
      row.setField("name", id % 7 == 0 ? null : "name-" + id);
      row.setField("day", LocalDate.EPOCH.plusDays(id % 3));
      String score = table.schema().findField(4).name();
      row.setField(score, id % 11 == 0 ? null : id == 13 ? Double.NaN : id / 4.0);
      rows.add(row);
    }
    return rows;
  }

  /** An equality key on {@code id} (with its day, the partition of partitioned tables). */
  private static Record key(EmbeddedTable table, long id) {
    Record key = table.newRecord();
    key.setField("id", id);
    key.setField("day", LocalDate.EPOCH.plusDays(id % 3));
    return key;
  }

  private static Map<String, Filter> filters() {
    LocalDate dayTwo = LocalDate.EPOCH.plusDays(1);
    Map<String, Filter> filters = new HashMap<>();
    filters.put("nothing", new Filter(Expressions.alwaysTrue(), row -> true, true));
    filters.put("id > 25", new Filter(Expressions.greaterThan("id", 25L), row -> id(row) > 25, true));
    filters.put("id in (1, 3, 17, 31, 42)", new Filter(Expressions.in("id", 1L, 3L, 17L, 31L, 42L),
        row -> List.of(1L, 3L, 17L, 31L, 42L).contains(id(row)), true));
    filters.put("name startsWith name-1", new Filter(Expressions.startsWith("name", "name-1"),
        row -> name(row) != null && name(row).startsWith("name-1"), true));
    filters.put("day = 1970-01-02", new Filter(Expressions.equal("day", "1970-01-02"),
        row -> dayTwo.equals(row.getField("day")), true));
    filters.put("name is null or id < 5", new Filter(Expressions.or(Expressions.isNull("name"),
        Expressions.lessThan("id", 5L)), row -> name(row) == null || id(row) < 5, true));
    filters.put("not (day >= 1970-01-02) and id <= 40",
        new Filter(Expressions.and(Expressions.not(Expressions.greaterThanOrEqual("day", "1970-01-02")),
            Expressions.lessThanOrEqual("id", 40L)),
            row -> !(row.getField("day") != null && !((LocalDate) row.getField("day")).isBefore(dayTwo))
                && id(row) <= 40, true));
    // the spec leaves null names out of name < v, and so keeps them in its negation: Iceberg's Evaluator does not
    filters.put("name < name-2", new Filter(Expressions.lessThan("name", "name-2"),
        row -> name(row) != null && name(row).compareTo("name-2") < 0, false));
    filters.put("not (name < name-2)", new Filter(Expressions.not(Expressions.lessThan("name", "name-2")),
        row -> !(name(row) != null && name(row).compareTo("name-2") < 0), false));
    filters.put("never", new Filter(Expressions.alwaysFalse(), row -> false, true));
    return Map.copyOf(filters);
  }

  private static long id(Record row) {
    return (Long) row.getField("id");
  }

  private static String name(Record row) {
    return (String) row.getField("name");
  }
}
