package io.icebergscan.planning.iceberg;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionData;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The planner's tasks as Iceberg's own {@link FileScanTask}s mean what Apache Iceberg's REST client makes of the
 * same answers ({@code RESTCatalog} with {@code scan-planning-mode=server}), field by field: partitions of every
 * transform and several specs, all metrics and bounds, key metadata, split offsets, sort orders, first row ids,
 * every kind of delete with its references, and residuals. Splits are Iceberg's own {@code planTasks}, and both
 * survive Java serialization as Iceberg's tasks do.
 */
class TaskConversionTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(5, "flag", Types.BooleanType.get()),
      Types.NestedField.optional(6, "score", Types.DoubleType.get()),
      Types.NestedField.optional(7, "ts", Types.TimestampType.withZone()));
  private static final PartitionSpec SPEC = PartitionSpec.builderFor(SCHEMA).identity("day").bucket("name", 8)
      .truncate("amount", 100).identity("flag").hour("ts").build();
  private static final TableIdentifier WIDE = TableIdentifier.of("conversion", "wide");
  private static final TableIdentifier DELETES = TableIdentifier.of("conversion", "deletes");

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static RESTCatalog icebergClient;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(3, 2)).start();
    EmbeddedTable wide = catalog.createTable(WIDE, SCHEMA, SPEC, 3);
    wide.table().replaceSortOrder().asc("id").commit();
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.add(wideFile(wide, i));
    }
    wide.append(files);
    // a second spec: files of both must find their own
    wide.table().updateSpec().addField(Expressions.bucket("id", 4)).commit();
    PartitionSpec evolved = wide.table().spec();
    PartitionData partition = partition(evolved, 3, 1, null, null, null, 7);
    wide.append(wide.dataFile("s3://bucket/wide/evolved.parquet", 40).withPartition(partition).build());

    EmbeddedTable deletes = catalog.createTable(DELETES, SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("day")
        .build(), 3);
    PartitionData day1 = partition(deletes.spec(), 1);
    PartitionData day2 = partition(deletes.spec(), 2);
    DataFile a = deletes.dataFile("s3://bucket/deletes/day=1/a.parquet", 100).withPartition(day1).build();
    DataFile b = deletes.dataFile("s3://bucket/deletes/day=1/b.parquet", 100).withPartition(day1).build();
    DataFile c = deletes.dataFile("s3://bucket/deletes/day=2/c.parquet", 100).withPartition(day2).build();
    deletes.append(a, b, c);
    List<DeleteFile> deleteFiles = new ArrayList<>(deletes.deletionVectors("s3://bucket/deletes/day=1/dv.puffin")
        .vector(a, 3).vector(b, 5).build());
    deleteFiles.add(deletes.equalityDeleteFile("s3://bucket/deletes/day=2/eq.parquet", 2, 1, 2).withPartition(day2)
        .build());
    deletes.rowDelta(List.of(), deleteFiles);

    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    icebergClient = new RESTCatalog();
    icebergClient.initialize("client", Map.of("uri", catalog.uri(), "scan-planning-mode", "server"));
  }

  @AfterAll
  static void stop() throws IOException {
    icebergClient.close();
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @ValueSource(strings = { "", "{\"type\":\"gt\",\"term\":\"id\",\"value\":2}",
      "{\"type\":\"and\",\"left\":{\"type\":\"eq\",\"term\":\"flag\",\"value\":true},"
          + "\"right\":{\"type\":\"lt\",\"term\":\"score\",\"value\":0.5}}",
      "{\"type\":\"eq\",\"term\":\"day\",\"value\":\"1970-01-02\"}" })
  void everyFieldMeansWhatIcebergsClientMakesOfIt(String filter) {
    IcebergScan request = filter.isEmpty() ? IcebergScan.all() : IcebergScan.all().filter(ExpressionParser.fromJson(filter));
    try (IcebergScanPlan plan = plan(WIDE, request)) {
      // Iceberg's client is given the filter this one sends: the spec's normalization of the scan's (a range
      // comparison on an optional or floating column guarded against null and NaN), whose residuals the tasks carry
      assertThat(byLocation(plan.tasks())).isEqualTo(byLocation(icebergClientTasks(WIDE,
          scan -> filter.isEmpty() ? scan : scan.filter(SpecPredicates.normalize(ExpressionParser.fromJson(filter),
              SCHEMA.asStruct(), true)))));
      assertThat(plan.tasks()).isNotEmpty();
    }
  }

  /**
   * Values reach Iceberg's {@code SingleValueParser} as JSON text, not as Jackson 2 nodes, which Iceberg's runtime
   * jars relocate (the Spark tests read through one): each kind of value survives the trip, escapes included.
   */
  @Test
  void modelValuesReachIcebergsSingleValueParserAsJsonText() {
    String awkward = "a \"quoted\" back\\slash, a\ttab, a\nnewline and \u0001";
    assertThat(org.apache.iceberg.SingleValueParser.fromJson(Types.StringType.get(), TaskConverter.json(awkward)))
        .isEqualTo(awkward);
    assertThat(org.apache.iceberg.SingleValueParser.fromJson(Types.LongType.get(), TaskConverter.json(42L)))
        .isEqualTo(42L);
    assertThat(org.apache.iceberg.SingleValueParser.fromJson(Types.DoubleType.get(), TaskConverter.json(2.5e300)))
        .isEqualTo(2.5e300);
    assertThat(org.apache.iceberg.SingleValueParser.fromJson(Types.BooleanType.get(), TaskConverter.json(true)))
        .isEqualTo(true);
    assertThat(org.apache.iceberg.SingleValueParser.fromJson(Types.IntegerType.get(), TaskConverter.json(null)))
        .isNull();
  }

  @Test
  void deletesKeepTheirKindReferencesOffsetsAndEqualityIds() {
    try (IcebergScanPlan plan = plan(DELETES, IcebergScan.all())) {
      assertThat(byLocation(plan.tasks())).isEqualTo(byLocation(icebergClientTasks(DELETES, scan -> scan)));
      FileScanTask a = plan.tasks().stream().filter(task -> task.file().location().endsWith("/a.parquet"))
          .findFirst().orElseThrow();
      assertThat(a.deletes()).singleElement().satisfies(dv -> {
        assertThat(dv.format()).isEqualTo(org.apache.iceberg.FileFormat.PUFFIN);
        assertThat(dv.referencedDataFile()).isEqualTo(a.file().location());
        assertThat(dv.contentOffset()).isNotNull();
        assertThat(dv.contentSizeInBytes()).isNotNull();
      });
      FileScanTask c = plan.tasks().stream().filter(task -> task.file().location().endsWith("/c.parquet"))
          .findFirst().orElseThrow();
      assertThat(c.deletes()).singleElement().satisfies(eq -> assertThat(eq.equalityFieldIds()).containsExactly(1,
          2));
    }
  }

  @Test
  void statisticsAskedForAreIcebergsCountsAndBinaryBounds() {
    try (IcebergScanPlan plan = plan(WIDE, IcebergScan.all().includeColumnStats(List.of("id", "name")))) {
      DataFile first = task(plan, "/f0.parquet").file();
      assertThat(first.columnSizes()).isEqualTo(Map.of(1, 800L, 2, 300L));
      assertThat(first.valueCounts()).isEqualTo(Map.of(1, 100L, 2, 100L));
      assertThat(first.nullValueCounts()).isEqualTo(Map.of(2, 0L));
      assertThat(first.lowerBounds()).isEqualTo(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 0L),
          2, Conversions.toByteBuffer(Types.StringType.get(), "a0")));
      assertThat(first.upperBounds()).isEqualTo(Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 9L),
          2, Conversions.toByteBuffer(Types.StringType.get(), "z0")));
    }
  }

  @Test
  void withoutStatisticsAskedForAFileHasNoneAsWithIcebergsClient() {
    try (IcebergScanPlan plan = plan(WIDE, IcebergScan.all())) {
      DataFile theirs = icebergClientTasks(WIDE, scan -> scan).stream()
          .filter(task -> task.file().location().endsWith("/f0.parquet")).findFirst().orElseThrow().file();
      for (DataFile file : List.of(theirs, task(plan, "/f0.parquet").file())) {
        assertThat(file.columnSizes()).as("column sizes").isNull();
        assertThat(file.valueCounts()).as("value counts").isNull();
        assertThat(file.nullValueCounts()).as("null value counts").isNull();
        assertThat(file.nanValueCounts()).as("NaN value counts").isNull();
        assertThat(file.lowerBounds()).as("lower bounds").isNull();
        assertThat(file.upperBounds()).as("upper bounds").isNull();
      }
    }
  }

  @Test
  void deleteFilesKeepTheirSplitOffsetsAndKeyMetadata() {
    TableIdentifier identifier = TableIdentifier.of("conversion", "delete_offsets");
    EmbeddedTable table = catalog.createTable(identifier, SCHEMA, PartitionSpec.unpartitioned(), 2);
    table.append(table.dataFile("s3://bucket/delete_offsets/a.parquet", 100).build());
    ByteBuffer key = ByteBuffer.wrap(new byte[] { 7, 8, (byte) 0xfe });
    table.addDeletes(table.equalityDeleteFile("s3://bucket/delete_offsets/eq.parquet", 2, 1)
        .withSplitOffsets(List.of(4L, 40L)).withEncryptionKeyMetadata(key).build());
    try (IcebergScanPlan plan = plan(identifier, IcebergScan.all())) {
      assertThat(byLocation(plan.tasks())).isEqualTo(byLocation(icebergClientTasks(identifier, scan -> scan)));
      assertThat(plan.tasks()).singleElement().satisfies(task -> assertThat(task.deletes()).singleElement()
          .satisfies(delete -> {
            assertThat(delete.splitOffsets()).containsExactly(4L, 40L);
            assertThat(delete.keyMetadata()).isEqualTo(key);
          }));
    }
  }

  @Test
  void aResidualNamingAColumnInAnotherCaseIsMalformedForACaseSensitiveScanOnly() {
    String upperCase = ExpressionParser.toJson(Expressions.greaterThan("ID", 2L));
    ScanPlanner sendingUpperCase = new StubPlanner(planner) {

      @Override
      public ScanPlan plan(io.icebergscan.planning.model.TableIdentifier table, ScanRequest request) {
        ScanPlan plan = super.plan(table, request);
        return new ScanPlan(plan.planId(), plan.tasks().stream().map(task ->
            new io.icebergscan.planning.model.FileScanTask(task.dataFile(), task.deleteFiles(), upperCase)).toList(),
            plan.storageCredentials(), plan.statistics());
      }
    };
    Expression filter = Expressions.greaterThan("id", 2L);
    try (IcebergScanPlanner overUpperCase = IcebergScanPlanner.builder(sendingUpperCase).scanReports(false).build()) {
      IcebergTable table = IcebergTable.of(WIDE, catalog.table(WIDE).table());
      assertThatThrownBy(() -> overUpperCase.plan(table, IcebergScan.all().filter(filter)))
          .isInstanceOf(MalformedResponseException.class).hasMessageContaining("residual filter");
      try (IcebergScanPlan plan = overUpperCase.plan(table, IcebergScan.all().caseSensitive(false).filter(filter)
          )) {
        assertThat(plan.tasks()).hasSize(7);
      }
    }
  }

  @Test
  void aPlanNamesItsTableAndHowManyTasksItHas() {
    try (IcebergScanPlan plan = plan(DELETES, IcebergScan.all())) {
      assertThat(plan).hasToString("IcebergScanPlan[conversion.deletes, 3 tasks]");
    }
  }

  @Test
  void partitionValuesAreTypedByTheSpecTheFileNames() {
    try (IcebergScanPlan plan = plan(WIDE, IcebergScan.all())) {
      FileScanTask evolved = plan.tasks().stream().filter(task -> task.file().location().endsWith("/evolved.parquet"))
          .findFirst().orElseThrow();
      assertThat(evolved.spec().fields()).hasSize(6);
      assertThat(evolved.file().partition().get(5, Integer.class)).isEqualTo(7);
      FileScanTask first = plan.tasks().stream().filter(task -> task.file().location().endsWith("/f0.parquet"))
          .findFirst().orElseThrow();
      assertThat(first.spec().fields()).hasSize(5);
      assertThat(first.file().partition().get(0, Integer.class)).isEqualTo(0); // a date: days since the epoch
      assertThat(first.file().partition().get(1, Integer.class)).isEqualTo(0); // a bucket
      assertThat(first.file().partition().get(2, BigDecimal.class)).isEqualByComparingTo("0.00");
      assertThat(first.file().partition().get(3, Boolean.class)).isTrue();
      assertThat(first.file().keyMetadata()).isEqualTo(ByteBuffer.wrap(new byte[] { 0, 1, (byte) 0xfe }));
    }
  }

  @Test
  void aFilterOnNoPartitionColumnStaysTheWholeResidual() {
    // no partition field derives from id, so no partition decides it: each task's residual is the filter itself
    // (a catalog that sends no residual gets the request's filter from the core's parser, ResponseParserTest)
    Expression filter = Expressions.greaterThan("id", 2L);
    try (IcebergScanPlan plan = plan(WIDE, IcebergScan.all().filter(filter))) {
      assertThat(plan.tasks()).allSatisfy(task -> assertThat(IcebergFiles.residual(task.residual()))
          .isEqualTo(IcebergFiles.residual(filter)));
    }
  }

  @Test
  void splitsAreIcebergsOwnPlanTasks() {
    Table table = catalog.table(WIDE).table();
    table.updateProperties().set(TableProperties.SPLIT_SIZE, "3000").set(TableProperties.SPLIT_OPEN_FILE_COST, "100")
        .commit();
    try (IcebergScanPlan plan = iceberg.plan(IcebergTable.of(WIDE, catalog.table(WIDE).table()),
        IcebergScan.all().maxConcurrency(1))) {
      List<CombinedScanTask> ours = plan.splitTasks();
      assertThat(plan.splitTasks().stream().mapToLong(group -> group.files().size()).sum())
          .isGreaterThan(plan.tasks().size()); // the split offsets split files
      List<CombinedScanTask> reference = new ArrayList<>();
      try (CloseableIterable<FileScanTask> split = org.apache.iceberg.util.TableScanUtil.splitFiles(
          CloseableIterable.withNoopClose(icebergClientTasksInOrder(plan.tasks())), 3000);
          CloseableIterable<CombinedScanTask> groups = org.apache.iceberg.util.TableScanUtil.planTasks(split, 3000,
              TableProperties.SPLIT_LOOKBACK_DEFAULT, 100)) {
        groups.forEach(reference::add);
      }
      catch (IOException failure) {
        throw new UncheckedIOException(failure);
      }
      assertThat(ours.stream().map(IcebergFiles::describe).toList())
          .isEqualTo(reference.stream().map(IcebergFiles::describe).toList());
      assertThat(plan.splitTasks(new SplitSettings(1_000_000, 10, 0))).hasSize(1);
    }
    finally {
      table.updateProperties().remove(TableProperties.SPLIT_SIZE).remove(TableProperties.SPLIT_OPEN_FILE_COST)
          .commit();
    }
  }

  @Test
  void tasksAndSplitsSurviveJavaSerialization() {
    try (IcebergScanPlan plan = plan(DELETES, IcebergScan.all().filter(
        Expressions.lessThan("id", 50L)))) {
      for (FileScanTask task : plan.tasks()) {
        assertThat(IcebergFiles.describe(roundTrip(task))).isEqualTo(IcebergFiles.describe(task));
      }
      for (CombinedScanTask group : plan.splitTasks()) {
        assertThat(IcebergFiles.describe(roundTrip(group))).isEqualTo(IcebergFiles.describe(group));
      }
    }
  }

  @Test
  void aFileOfASpecTheTableDoesNotHaveFailsNamingTheFile() {
    // the wide table's files name specs the other table does not have (spec 1): converted with the other's
    // metadata they are malformed, never tasks with a wrong partition
    TableMetadata other = IcebergTable.of(DELETES, catalog.table(DELETES).table()).metadata();
    TaskConverter converter = new TaskConverter(other, other.schema(), true, false);
    io.icebergscan.planning.model.FileScanTask wide = planner.plan(io(WIDE), ScanRequest.all()).tasks().stream()
        .filter(task -> task.dataFile().specId() == 1).findFirst().orElseThrow();
    assertThatThrownBy(() -> converter.convert(wide))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("s3://bucket/wide/")
        .satisfies(failure -> assertThat(((MalformedResponseException) failure).field())
            .isEqualTo("data-file.spec-id"));
  }

  @Test
  void forARestrictedTableAMalformedTaskFailsWithoutItsPathItsValuesOrACause() {
    TableMetadata other = IcebergTable.of(DELETES, catalog.table(DELETES).table()).metadata();
    TableMetadata wideMetadata = IcebergTable.of(WIDE, catalog.table(WIDE).table()).metadata();
    io.icebergscan.planning.model.FileScanTask wide = planner.plan(io(WIDE), ScanRequest.all()).tasks().stream()
        .filter(task -> task.dataFile().specId() == 1).findFirst().orElseThrow();
    // a file of a spec the table does not have: its path and its partition values describe the raw rows
    assertThatThrownBy(() -> new TaskConverter(other, other.schema(), true, true).convert(wide))
        .isInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("withheld").hasMessageNotContaining("s3://bucket/wide/").hasNoCause()
        .satisfies(failure -> assertThat(((MalformedResponseException) failure).field())
            .isEqualTo("data-file.spec-id"));
    // a residual that is no expression of the schema: its literal may be a raw value
    io.icebergscan.planning.model.FileScanTask badResidual = new io.icebergscan.planning.model.FileScanTask(
        wide.dataFile(), wide.deleteFiles(), ExpressionParser.toJson(Expressions.equal("no_such", "raw-secret")));
    assertThatThrownBy(() -> new TaskConverter(wideMetadata, wideMetadata.schema(), true, true).convert(badResidual))
        .isInstanceOf(MalformedResponseException.class).hasMessageContaining("residual filter")
        .hasMessageNotContaining("raw-secret").hasMessageNotContaining("no_such")
        .hasMessageNotContaining("s3://bucket/wide/").hasNoCause();
    // unrestricted, both name what was wrong
    assertThatThrownBy(() -> new TaskConverter(wideMetadata, wideMetadata.schema(), true, false)
        .convert(badResidual)).hasMessageContaining("no_such").hasMessageContaining("s3://bucket/wide/").cause().isNotNull();
  }

  private static FileScanTask task(IcebergScanPlan plan, String fileName) {
    return plan.tasks().stream().filter(task -> task.file().location().endsWith(fileName)).findFirst().orElseThrow();
  }

  private static IcebergScanPlan plan(TableIdentifier identifier, IcebergScan request) {
    return iceberg.plan(IcebergTable.of(identifier, catalog.table(identifier).table()), request);
  }

  private static io.icebergscan.planning.model.TableIdentifier io(TableIdentifier identifier) {
    return io.icebergscan.planning.model.TableIdentifier.of(List.of(identifier.namespace().levels()), identifier.name());
  }

  private static List<FileScanTask> icebergClientTasks(TableIdentifier identifier, UnaryOperator<TableScan> scan) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.apply(icebergClient.loadTable(identifier).newScan())
        .planFiles()) {
      planned.forEach(tasks::add);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return tasks;
  }

  /** Iceberg's client's tasks in our order (its own order is not the walk's): the same input to planTasks. */
  private static List<FileScanTask> icebergClientTasksInOrder(List<FileScanTask> ours) {
    List<FileScanTask> theirs = icebergClientTasks(WIDE, scan -> scan);
    List<String> order = ours.stream().map(task -> task.file().location()).toList();
    theirs.sort(Comparator.comparingInt(task -> order.indexOf(task.file().location())));
    return theirs;
  }

  private static List<Map<String, Object>> byLocation(List<FileScanTask> tasks) {
    return tasks.stream().map(IcebergFiles::describe)
        .sorted(Comparator.comparing(view -> String.valueOf(((Map<?, ?>) view.get("file")).get("location"))))
        .toList();
  }

  @SuppressWarnings("unchecked")
  private static <T> T roundTrip(T value) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
        out.writeObject(value);
      }
      try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
        return (T) in.readObject();
      }
    }
    catch (IOException | ClassNotFoundException failure) {
      throw new IllegalStateException(failure);
    }
  }

  private static DataFile wideFile(EmbeddedTable table, int i) {
    Types.StructType struct = SCHEMA.asStruct();
    Map<Integer, ByteBuffer> lower = Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 10L),
        2, Conversions.toByteBuffer(Types.StringType.get(), "a" + i),
        4, Conversions.toByteBuffer(Types.DecimalType.of(10, 2), new BigDecimal("1.25")),
        6, Conversions.toByteBuffer(Types.DoubleType.get(), i / 10.0));
    Map<Integer, ByteBuffer> upper = Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), i * 10L + 9),
        2, Conversions.toByteBuffer(Types.StringType.get(), "z" + i),
        6, Conversions.toByteBuffer(Types.DoubleType.get(), i / 10.0 + 0.05));
    assertThat(struct.fields()).hasSize(7);
    return table.dataFile("s3://bucket/wide/f" + i + ".parquet", 100 + i)
        .withPartition(partition(SPEC, i % 2, i % 8, new BigDecimal(i % 3 + ".00"), i % 2 == 0,
            i)) // hours since the epoch
        .withMetrics(new Metrics(100L + i, Map.of(1, 800L, 2, 300L + i), Map.of(1, 100L + i, 2, 100L + i),
            Map.of(2, (long) i), Map.of(6, 0L), lower, upper))
        .withSplitOffsets(List.of(4L, 1000L + i, 2000L + i))
        .withFileSizeInBytes(3000 + i)
        .withEncryptionKeyMetadata(ByteBuffer.wrap(new byte[] { 0, 1, (byte) 0xfe }))
        .withSortOrder(table.table().sortOrder())
        .build();
  }

  private static PartitionData partition(PartitionSpec spec, Object... values) {
    PartitionData partition = new PartitionData(spec.partitionType());
    for (int i = 0; i < values.length; i++) {
      partition.set(i, values[i]);
    }
    return partition;
  }
}
