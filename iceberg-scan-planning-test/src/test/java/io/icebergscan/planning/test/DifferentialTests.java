package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.Tables.TaskView;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileMetadata;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Differential tests: Apache Iceberg's own REST client ({@code RESTCatalog} with
 * {@code scan-planning-mode=server}, i.e. {@code RESTTableScan}) and this project's planner plan the same
 * table, snapshot and filter on the same embedded Iceberg server, and must agree.
 *
 * <p>Agreement means the same multiset of data files, each with the same set of delete files, where a
 * delete file is identified by content, path, content offset and content size (two deletion vectors may
 * share a Puffin file), and carries the same equality ids, record count, referenced data file and
 * format; a data file is compared by path, record count, size, spec, partition values and first row id;
 * the residual filter must be the same expression. Iceberg's client does not preserve the order of the
 * walk, so the comparison is by set; on single-manifest tables our order must in addition be the order
 * of Iceberg's local planning (the serial walk order, our contract).
 *
 * <p>The matrix is {@link Scan table shapes} × {@link Server server shapes} × our concurrency limits 1,
 * 2, 8 and 32. Every table and server shape pair runs at one of the limits, in rotation, so that every
 * server shape and every table shape meets every limit ({@link #everyShapeMeetsEveryLimit}): a covering
 * design that keeps the suite to seconds, each request costing the embedded server a few
 * milliseconds. {@code -Ddifferential.allLimits=true} runs every pair at every limit.
 * Iceberg's client is asked once per pair (its answer does not depend on our limit), with its default
 * worker pool ({@code iceberg.worker.num-threads}, default max(2, cores)). Iceberg's own asynchronous
 * planning is paired with one table shape only: Iceberg's client waits a fixed second before it polls
 * again ({@code RESTTableScan.MIN_SLEEP_MS}), and Iceberg's planner is rarely done by the first poll.
 */
class DifferentialTests {

  private static final EmbeddedIcebergCatalog CATALOG = EmbeddedIcebergCatalog.create();
  /** Two levels, so both clients join them with the server's separator (%2E). */
  private static final Namespace NAMESPACE = Namespace.of("differential", "shapes");
  private static final int[] LIMITS = { 1, 2, 8, 32 };
  private static final boolean ALL_LIMITS = Boolean.getBoolean("differential.allLimits");

  private static final Map<String, EmbeddedTable> TABLES = new HashMap<>();
  /** The tables as Iceberg's client loaded them. */
  private static final Map<String, Table> CLIENT_TABLES = new HashMap<>();
  private static final Map<String, Long> SNAPSHOTS = new HashMap<>();
  private static final Map<Scan, Map<Server, Answer>> ICEBERG_CLIENT = new EnumMap<>(Scan.class);
  private static final Map<Scan, List<TaskView>> LOCALLY = new EnumMap<>(Scan.class);
  private static RESTCatalog icebergClient;

  /** How the server answers plans. */
  enum Server {
    ICEBERG_CHAIN("Iceberg's chain, 4 tasks a response") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.tasksPerPlanTask(4);
      }
    },
    ICEBERG_ASYNC("Iceberg's async plan, then its chain of 4") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.planAsync(true).tasksPerPlanTask(4);
      }
    },
    UNIFORM("fan-out uniform(10, 1)") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.fanOut(FanOut.uniform(10, 1));
      }
    },
    LEVELS("fan-out levels(1, 3, 2)") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.fanOut(FanOut.levels(1, 3, 2));
      }
    },
    LOPSIDED("lopsided fan-out: 3 under the first handle, 3 deep") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.fanOut(FanOut.custom(path -> path.size() < 3 && path.stream().allMatch(i -> i == 0) ? 3 : 0));
      }
    },
    ASYNC_FAN_OUT("async, then fan-out levels(2, 2)") {
      @Override
      void configure(EmbeddedIcebergCatalog catalog) {
        catalog.planAsync(true).fanOut(FanOut.levels(2, 2));
      }
    };

    private final String description;

    Server(String description) {
      this.description = description;
    }

    abstract void configure(EmbeddedIcebergCatalog catalog);

    @Override
    public String toString() {
      return this.description;
    }
  }

  /** A table and what to plan of it, for both clients. */
  enum Scan {
    UNPARTITIONED("unpartitioned, 24 files", "unpartitioned", true),
    PARTITIONED("4 partitions x 6 files, 4 manifests", "partitioned", false),
    PARTITION_FILTER("partitioned, filter day in (1, 3)", "partitioned", false),
    NOTHING("partitioned, filter day = 9: an empty plan", "partitioned", true),
    EVOLVED_SPEC("partition spec evolved: files and deletes of two specs", "evolved", false),
    V2_DELETES("v2, position + equality deletes, a later append", "v2", false),
    V3_VECTORS("v3, 6 deletion vectors in one Puffin + equality delete", "v3", true),
    FIRST_SNAPSHOT("time travel to snapshot 1 of 4", "history", true),
    THIRD_SNAPSHOT("time travel to snapshot 3 of 4 (after deletes)", "history", false),
    DATA_FILTER("filter day = 1 and id > 100: bounds and residual", "history", false);

    private final String description;
    final String table;
    /** Whether all data files are in one manifest, where the plan order is stable and checked. */
    final boolean singleManifest;

    Scan(String description, String table, boolean singleManifest) {
      this.description = description;
      this.table = table;
      this.singleManifest = singleManifest;
    }

    ScanRequest request() {
      return switch (this) {
        case PARTITION_FILTER -> ScanRequest.builder().filter(RowFilter.in("day", "1", "3")).build();
        case NOTHING -> ScanRequest.builder().filter(RowFilter.equal("day", "9")).build();
        case FIRST_SNAPSHOT -> ScanRequest.builder().snapshotId(SNAPSHOTS.get("history-1")).build();
        case THIRD_SNAPSHOT -> ScanRequest.builder().snapshotId(SNAPSHOTS.get("history-3")).build();
        case DATA_FILTER -> ScanRequest.builder()
            .filter(RowFilter.and(RowFilter.equal("day", "1"), RowFilter.greaterThan("id", 100))).build();
        default -> ScanRequest.all();
      };
    }

    TableScan configure(TableScan scan) {
      return switch (this) {
        case PARTITION_FILTER -> scan.filter(Expressions.in("day", "1", "3"));
        case NOTHING -> scan.filter(Expressions.equal("day", "9"));
        case FIRST_SNAPSHOT -> scan.useSnapshot(SNAPSHOTS.get("history-1"));
        case THIRD_SNAPSHOT -> scan.useSnapshot(SNAPSHOTS.get("history-3"));
        case DATA_FILTER -> scan.filter(Expressions.and(Expressions.equal("day", "1"), Expressions.greaterThan("id", 100L)));
        default -> scan;
      };
    }

    @Override
    public String toString() {
      return this.description;
    }
  }

  /**
   * A task as both clients are compared on it.
   *
   * @param dataFile path, record count, size, spec id, partition values and first row id
   * @param deletes per delete file: content:path@offset+size[equality ids] rows ref format
   * @param residual the residual filter as expression JSON
   */
  record Task(String dataFile, Set<String> deletes, JsonNode residual) {

    static Task of(FileScanTask task) {
      DataFile file = task.file();
      Set<String> deletes = new TreeSet<>();
      for (DeleteFile delete : task.deletes()) {
        deletes.add(delete(delete.content().name(), delete.location(), delete.contentOffset(),
            delete.contentSizeInBytes(), delete.equalityFieldIds() == null ? List.of() : delete.equalityFieldIds(),
            delete.recordCount(), delete.referencedDataFile(), delete.format().name()));
      }
      return new Task(dataFile(file.location(), file.recordCount(), file.fileSizeInBytes(), file.specId(),
          values(file.partition()), file.firstRowId()), deletes,
          CompatibilityTests.json(ExpressionParser.toJson(task.residual())));
    }

    static Task of(io.icebergscan.planning.model.FileScanTask task) {
      io.icebergscan.planning.model.DataFile file = task.dataFile();
      Set<String> deletes = new TreeSet<>();
      for (io.icebergscan.planning.model.DeleteFile delete : task.deleteFiles()) {
        deletes.add(delete(delete.content().name(), delete.filePath(), delete.contentOffset(),
            delete.contentSizeInBytes(), delete.equalityIds(), delete.recordCount(), delete.referencedDataFile(),
            delete.fileFormat().name()));
      }
      return new Task(dataFile(file.filePath(), file.recordCount(), file.fileSizeInBytes(), file.specId(),
          file.partition(), file.firstRowId()), deletes,
          task.residualFilter() == null ? null : CompatibilityTests.json(task.residualFilter()));
    }

    private static String dataFile(String path, long records, long bytes, int specId, List<?> partition,
        Long firstRowId) {
      return path + " rows=" + records + " bytes=" + bytes + " spec=" + specId + " partition=" + partition
          + " first-row-id=" + firstRowId;
    }

    private static String delete(String content, String path, Long offset, Long size, List<Integer> equalityIds,
        long records, String referencedDataFile, String format) {
      return content + ":" + path + "@" + offset + "+" + size + equalityIds + " rows=" + records + " ref="
          + referencedDataFile + " format=" + format;
    }

    private static List<Object> values(StructLike partition) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < partition.size(); i++) {
        values.add(partition.get(i, Object.class));
      }
      return values;
    }
  }

  /** Iceberg's client's answer and the requests it made for it. */
  record Answer(List<Task> tasks, RequestCounts requests) {
  }

  @BeforeAll
  static void createTables() {
    CATALOG.start();
    EmbeddedTable unpartitioned = CATALOG.createTable(identifier("unpartitioned"), Tables.SCHEMA);
    unpartitioned.appendDataFiles(24);
    TABLES.put("unpartitioned", unpartitioned);

    EmbeddedTable partitioned = CATALOG.createTable(identifier("partitioned"), Tables.SCHEMA, Tables.BY_DAY, 2);
    for (int day = 1; day <= 4; day++) {
      partitioned.appendDataFiles(6, "day=" + day);
    }
    TABLES.put("partitioned", partitioned);

    TABLES.put("v2", v2WithPositionAndEqualityDeletes());
    TABLES.put("evolved", evolvedPartitionSpec());
    TABLES.put("v3", v3WithDeletionVectors());

    // 1: three files of day 1 with id bounds; 2: two of day 2; 3: two deletion vectors in one Puffin and
    // an equality delete; 4: three files of day 3.
    EmbeddedTable history = Tables.withEveryKindOfDelete(CATALOG, identifier("history"));
    history.appendDataFiles(3, "day=3");
    List<Long> snapshots = history.snapshotIds();
    for (int i = 0; i < snapshots.size(); i++) {
      SNAPSHOTS.put("history-" + (i + 1), snapshots.get(i));
    }
    TABLES.put("history", history);

    icebergClient = Tables.icebergClient(CATALOG);
  }

  @AfterAll
  static void close() throws IOException {
    if (icebergClient != null) {
      icebergClient.close();
    }
    CATALOG.close();
  }

  @BeforeEach
  void icebergsDefaults() {
    CATALOG.fanOut(null).planAsync(false).submittedPolls(0).tasksPerPlanTask(100);
  }

  static Stream<Arguments> shapesAndLimits() {
    List<Arguments> cases = new ArrayList<>();
    int pair = 0;
    for (Scan scan : Scan.values()) {
      for (Server server : Server.values()) {
        if (server == Server.ICEBERG_ASYNC && scan != Scan.PARTITIONED) {
          continue;
        }
        // One limit a pair, in turn: every server and table shape still meets every limit. The one pair
        // with Iceberg's own asynchronous planning runs at every limit.
        IntStream limits = ALL_LIMITS || server == Server.ICEBERG_ASYNC ? IntStream.of(LIMITS)
            : IntStream.of(LIMITS[pair % LIMITS.length]);
        limits.forEach(limit -> cases.add(arguments(scan, server, limit)));
        pair++;
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} | {1} | limit {2}")
  @MethodSource("shapesAndLimits")
  void plansTheSameFilesAndDeletesAsIcebergsClient(Scan scan, Server server, int limit) {
    server.configure(CATALOG);
    EmbeddedTable table = TABLES.get(scan.table);
    Answer iceberg = ICEBERG_CLIENT.computeIfAbsent(scan, key -> new EnumMap<>(Server.class))
        .computeIfAbsent(server, key -> plannedByIcebergsClient(scan));

    CATALOG.resetRequestCounts();
    ScanPlan plan = planAndClose(limit, table, scan.request());
    RequestCounts ours = CATALOG.requestCounts();

    List<Task> tasks = plan.tasks().stream().map(Task::of).toList();
    assertThat(tasks).as("our tasks against Iceberg's client's").containsExactlyInAnyOrderElementsOf(iceberg.tasks());
    assertThat(tasks.isEmpty()).as("an empty plan").isEqualTo(scan == Scan.NOTHING);
    assertThat(tasks).extracting(Task::dataFile).doesNotHaveDuplicates();
    // Iceberg's local planning as a third opinion: both clients could be wrong the same way.
    List<TaskView> locally = LOCALLY.computeIfAbsent(scan, key -> Tables.plannedLocally(table, scan::configure));
    assertThat(Tables.views(plan.tasks())).containsExactlyInAnyOrderElementsOf(locally);
    if (scan.singleManifest) {
      assertThat(Tables.views(plan.tasks())).as("our order: Iceberg's local planning order")
          .containsExactlyElementsOf(locally);
    }
    // The same plan-tasks were fetched, each once, within our limit; a plan read to its end is not cancelled.
    assertThat(ours.tasks()).isEqualTo(iceberg.requests().tasks()).isEqualTo(plan.statistics().planTasksFetched());
    assertThat(ours.maxConcurrentTasks()).isLessThanOrEqualTo(limit);
    assertThat(ours.plan()).isEqualTo(1);
    assertThat(ours.cancel()).isZero();
  }

  /**
   * Plans with a planner of its own and closes it, which waits for its background requests: a DELETE the
   * planner wrongly sent after returning the plan is then in the request counts read next.
   */
  private static ScanPlan planAndClose(int limit, EmbeddedTable table, ScanRequest request) {
    try (ScanPlanner planner = ScanPlanner.builder().uri(CATALOG.uri()).maxConcurrency(limit)
        .pollInitialDelay(Duration.ofMillis(10)).build()) {
      return planner.plan(CompatibilityTests.ours(table.identifier()), request);
    }
  }

  /** The covering design really covers: every server shape and every table shape meets every limit. */
  @Test
  void everyShapeMeetsEveryLimit() {
    Map<Object, Set<Integer>> limitsByShape = new HashMap<>();
    shapesAndLimits().map(Arguments::get).forEach(arguments -> {
      limitsByShape.computeIfAbsent(arguments[0], key -> new TreeSet<>()).add((Integer) arguments[2]);
      limitsByShape.computeIfAbsent(arguments[1], key -> new TreeSet<>()).add((Integer) arguments[2]);
    });
    assertThat(limitsByShape).hasSize(Scan.values().length + Server.values().length)
        .allSatisfy((shape, limits) -> assertThat(limits).as("limits of %s", shape).containsExactly(1, 2, 8, 32));
  }

  /**
   * Where the two clients behave differently without disagreeing on the plan, pinned so that a change on
   * either side is noticed: Iceberg's client sends a {@code DELETE} for every plan it has read to the end
   * (from {@code CloseableIterable.whenComplete}), which the spec does not require; ours does not.
   */
  @Test
  void icebergsClientCancelsEveryPlanItHasRead() {
    Server.ICEBERG_CHAIN.configure(CATALOG);
    EmbeddedTable table = TABLES.get("unpartitioned");

    CATALOG.resetRequestCounts();
    planByIcebergsClient(Scan.UNPARTITIONED);
    RequestCounts iceberg = CATALOG.requestCounts();
    CATALOG.resetRequestCounts();
    planAndClose(8, table, ScanRequest.all());
    RequestCounts ours = CATALOG.requestCounts();

    // 24 tasks, 4 a response: the plan and a chain of 5 plan-tasks.
    assertThat(iceberg).extracting(RequestCounts::plan, RequestCounts::tasks, RequestCounts::cancel)
        .containsExactly(1, 5, 1);
    assertThat(ours).extracting(RequestCounts::plan, RequestCounts::tasks, RequestCounts::cancel)
        .containsExactly(1, 5, 0);
  }

  /**
   * <b>Finding (Iceberg's client).</b> Apache Iceberg's REST client does not plan incremental scans on
   * the server: {@code newIncrementalAppendScan()} of its REST table is the generic
   * {@code BaseIncrementalAppendScan}, which reads the manifests itself through the client's FileIO (the
   * default {@code ResolvingFileIO} then needs Hadoop on the classpath; here the in-memory FileIO the
   * server writes to). So there is no client answer to compare ours with, and the two disagree by
   * design: Iceberg's local planning takes the start snapshot as exclusive, as the spec says, while
   * Iceberg's server, which ours asks, takes it as inclusive.
   */
  @Test
  void icebergsClientPlansIncrementalScansWithoutTheServer() throws IOException {
    EmbeddedTable table = TABLES.get("history");
    long first = SNAPSHOTS.get("history-1");
    long fourth = SNAPSHOTS.get("history-4");
    List<String> client = new ArrayList<>();
    RESTCatalog readsManifests = new RESTCatalog();
    readsManifests.initialize("client", Map.of("uri", CATALOG.uri(), "scan-planning-mode", "server", "io-impl",
        "org.apache.iceberg.inmemory.InMemoryFileIO"));
    CATALOG.resetRequestCounts();
    try (readsManifests; CloseableIterable<FileScanTask> tasks = readsManifests.loadTable(table.identifier())
        .newIncrementalAppendScan().fromSnapshotExclusive(first).toSnapshot(fourth).planFiles()) {
      tasks.forEach(task -> client.add(task.file().location()));
    }
    assertThat(CATALOG.requestCounts().plan()).as("plan requests of Iceberg's client").isZero();

    ScanPlan ours = planAndClose(8, table, ScanRequest.builder().incremental(first, fourth).build());

    // Snapshot 2 appended day 2's two files, snapshot 4 three files of day 3; snapshot 1 day 1's three.
    assertThat(client).hasSize(5).noneMatch(path -> path.contains("/day=1/"));
    List<String> oursFiles = ours.tasks().stream().map(task -> task.dataFile().filePath()).toList();
    assertThat(oursFiles).hasSize(8).containsAll(client);
    assertThat(oursFiles).filteredOn(path -> !client.contains(path)).containsExactlyInAnyOrder(
        "s3://bucket/t/day=1/f0.parquet", "s3://bucket/t/day=1/f1.parquet", "s3://bucket/t/day=1/f2.parquet");
  }

  // ---------------------------------------------------------------------------------------------

  private static Answer plannedByIcebergsClient(Scan scan) {
    CATALOG.resetRequestCounts();
    List<Task> tasks = planByIcebergsClient(scan);
    return new Answer(tasks, CATALOG.requestCounts());
  }

  private static List<Task> planByIcebergsClient(Scan scan) {
    Table table = CLIENT_TABLES.computeIfAbsent(scan.table, name -> icebergClient.loadTable(identifier(name)));
    List<Task> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned = scan.configure(table.newScan()).planFiles()) {
      planned.forEach(task -> tasks.add(Task.of(task)));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return tasks;
  }

  private static TableIdentifier identifier(String name) {
    return TableIdentifier.of(NAMESPACE, name);
  }

  /**
   * v2, by day: four files a day in one append; then a position delete file for day 1, a file-scoped
   * one for b0, equality deletes on id for day 2 and on (id, day) for day 1; then a fifth file of day 1,
   * which no delete applies to (a higher sequence number).
   */
  private static EmbeddedTable v2WithPositionAndEqualityDeletes() {
    EmbeddedTable table = CATALOG.createTable(identifier("v2"), Tables.SCHEMA, Tables.BY_DAY, 2);
    String base = "s3://bucket/differential/v2/";
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(table.dataFile(base + "day=1/a" + i + ".parquet", 10 + i).withPartitionPath("day=1").build());
      files.add(table.dataFile(base + "day=2/b" + i + ".parquet", 20 + i).withPartitionPath("day=2").build());
    }
    table.append(files);
    table.addDeletes(table.positionDeleteFile(base + "day=1/positions.parquet", 3).withPartitionPath("day=1").build(),
        table.positionDeleteFile(base + "day=2/b0-positions.parquet", 2).withPartitionPath("day=2")
            .withReferencedDataFile(base + "day=2/b0.parquet").build(),
        table.equalityDeleteFile(base + "day=2/ids.parquet", 4, 1).withPartitionPath("day=2").build(),
        table.equalityDeleteFile(base + "day=1/ids-and-days.parquet", 5, 1, 2).withPartitionPath("day=1").build());
    table.append(table.dataFile(base + "day=1/a4.parquet", 14).withPartitionPath("day=1").build());
    return table;
  }

  /**
   * v2, by day, then by day and bucket(id, 4): four files of day 1 in the first spec with a position
   * delete file of that spec, then four files of day 2 in the second spec with an equality delete file of
   * that spec.
   */
  private static EmbeddedTable evolvedPartitionSpec() {
    EmbeddedTable table = CATALOG.createTable(identifier("evolved"), Tables.SCHEMA, Tables.BY_DAY, 2);
    table.appendDataFiles(4, "day=1");
    PartitionSpec byDay = table.spec();
    table.table().updateSpec().addField("id_bucket", Expressions.bucket("id", 4)).commit();
    String base = "s3://bucket/differential/evolved/";
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      files.add(table.dataFile(base + "day=2/id_bucket=" + i + "/f.parquet", 10 + i)
          .withPartitionPath("day=2/id_bucket=" + i).build());
    }
    table.append(files);
    table.addDeletes(FileMetadata.deleteFileBuilder(byDay).ofPositionDeletes().withPath(base + "day=1/positions.parquet")
        .withFormat(FileFormat.PARQUET).withPartitionPath("day=1").withRecordCount(2).withFileSizeInBytes(1224).build(),
        table.equalityDeleteFile(base + "day=2/id_bucket=1/ids.parquet", 3, 1).withPartitionPath("day=2/id_bucket=1")
            .build());
    return table;
  }

  /**
   * v3, by day: ten files of day 1 in one append, then six deletion vectors in one Puffin file (blobs of
   * different sizes) and an equality delete on id, in one row delta.
   */
  private static EmbeddedTable v3WithDeletionVectors() {
    EmbeddedTable table = CATALOG.createTable(identifier("v3"), Tables.SCHEMA, Tables.BY_DAY, 3);
    String base = "s3://bucket/differential/v3/day=1/";
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      files.add(table.dataFile(base + "f" + i + ".parquet", 100 + i).withPartitionPath("day=1").build());
    }
    table.append(files);
    DeletionVectors vectors = table.deletionVectors(base + "vectors.puffin");
    int[] withVector = { 0, 1, 3, 4, 6, 8 };
    for (int i : withVector) {
      vectors.vector(files.get(i), i + 1, 16 + 8L * i);
    }
    List<DeleteFile> deletes = new ArrayList<>(vectors.build());
    deletes.add(table.equalityDeleteFile(base + "ids.parquet", 2, 1).withPartitionPath("day=1").build());
    table.rowDelta(List.of(), deletes);
    return table;
  }
}
