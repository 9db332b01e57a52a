package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;

import io.icebergscan.planning.Latches;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A plan's delete files are each read once ({@link PlanDeletes}), however many of its tasks they apply to and however
 * many tasks are read at once, within the plan's bound on what it keeps; and they are loaded on the reading thread,
 * not on Iceberg's delete worker pool, whose caller waits by polling.
 */
class DeleteLoadingTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "delete_loading";
  private static final int FILES = 8;

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static EmbeddedTable table;
  private static DeleteFile equalityDeletes;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    table = catalog.createTable(TableIdentifier.of(NAMESPACE, "shared"), SCHEMA, PartitionSpec.unpartitioned(), 2);
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (long id = file * 10L; id < file * 10L + 10; id++) {
        rows.add(table.newRecord(id, "name-" + id));
      }
      table.appendRows(FileFormat.AVRO, rows);
    }
    // one equality delete file for every data file: a key in every other file
    List<Record> keys = new ArrayList<>();
    for (long id = 3; id < FILES * 10; id += 20) {
      Record key = table.newRecord();
      key.setField("id", id);
      keys.add(key);
    }
    equalityDeletes = table.writeEqualityDeletes(FileFormat.AVRO, keys, 1);
    table.addDeletes(equalityDeletes);
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @ValueSource(ints = { 1, 4 })
  void aDeleteFileSharedByEveryTaskIsReadOncePerPlan(int concurrency) {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).fileIoProperties(scope.fileIoProperties())
        .readConcurrency(concurrency).build();
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(identifier()), IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(FILES).allSatisfy(task -> assertThat(task.deletes()).hasSize(1));
      List<Record> rows = TestRows.readAll(plan.rows());
      assertThat(rows).hasSize(FILES * 10 - FILES / 2);
      assertThat(ids(rows)).containsExactlyInAnyOrderElementsOf(ids(TestRows.readAll(IcebergGenerics.read(
          table.table()).build())));
      assertThat(scope.streamsOpened(equalityDeletes.location())).isOne();
      // the plan keeps it: another read of the plan's rows reads it no more
      assertThat(TestRows.readAll(plan.rows())).hasSize(rows.size());
      assertThat(scope.streamsOpened(equalityDeletes.location())).isOne();
    }
  }

  @Test
  void aDeleteFileOverThePlansBoundIsReadForEachTaskThatNeedsIt() {
    PlanDeletes none = new PlanDeletes(1);
    Queue<String> opened = new ConcurrentLinkedQueue<>();
    Schema key = SCHEMA.select("id");
    for (int task = 0; task < 3; task++) {
      StructLikeSet deleted = none.loader(file -> {
        opened.add(file.location());
        return table.table().io().newInputFile(file.location());
      }).loadEqualityDeletes(List.of(equalityDeletes), key);
      assertThat(deleted).hasSize(FILES / 2);
    }
    assertThat(opened).hasSize(3);
    assertThat(none.kept()).isZero();
  }

  @Test
  void aDeleteFileAsLargeAsThePlansBoundIsKept() {
    Schema key = SCHEMA.select("id");
    PlanDeletes exactly = new PlanDeletes(estimatedSize(equalityDeletes, key));
    Queue<String> opened = new ConcurrentLinkedQueue<>();
    for (int task = 0; task < 3; task++) {
      assertThat(exactly.loader(counting(opened)).loadEqualityDeletes(List.of(equalityDeletes), key))
          .hasSize(FILES / 2);
    }
    assertThat(opened).hasSize(1);
    assertThat(exactly.kept()).isOne();
  }

  @Test
  void aDeleteFileThatFitsTheBoundOnlyWithoutTheOnesKeptIsReadForEachTaskThatNeedsIt() {
    Schema key = SCHEMA.select("id");
    List<Record> keys = new ArrayList<>();
    for (long id = 5; id < FILES * 10; id += 20) {
      Record deleted = table.newRecord();
      deleted.setField("id", id);
      keys.add(deleted);
    }
    DeleteFile other = table.writeEqualityDeletes(FileFormat.AVRO, keys, 1);
    long size = estimatedSize(equalityDeletes, key);
    assertThat(size).isPositive().isEqualTo(estimatedSize(other, key));
    // room for one and a half: the first is kept, the second does not fit beside it
    PlanDeletes deletes = new PlanDeletes(size + size / 2);
    Queue<String> opened = new ConcurrentLinkedQueue<>();
    for (int task = 0; task < 3; task++) {
      assertThat(deletes.loader(counting(opened)).loadEqualityDeletes(List.of(equalityDeletes), key))
          .hasSize(FILES / 2);
      assertThat(deletes.loader(counting(opened)).loadEqualityDeletes(List.of(other), key)).hasSize(FILES / 2);
    }
    assertThat(opened.stream().filter(equalityDeletes.location()::equals)).as("the first, kept").hasSize(1);
    assertThat(opened.stream().filter(other.location()::equals)).as("the second, per task").hasSize(3);
    assertThat(deletes.kept()).isOne();
  }

  @Test
  void aLoadThatFailsGivesItsShareOfTheBoundBack() {
    Schema key = SCHEMA.select("id");
    PlanDeletes exactly = new PlanDeletes(estimatedSize(equalityDeletes, key));
    Queue<String> opened = new ConcurrentLinkedQueue<>();
    AtomicBoolean unreachable = new AtomicBoolean(true);
    Function<DeleteFile, InputFile> flaky = file -> {
      if (unreachable.getAndSet(false)) {
        throw new IllegalStateException("storage unreachable");
      }
      return counting(opened).apply(file);
    };
    assertThatThrownBy(() -> exactly.loader(flaky)
        .loadEqualityDeletes(List.of(equalityDeletes), key)).hasStackTraceContaining("storage unreachable");
    assertThat(exactly.kept()).isZero();
    for (int task = 0; task < 3; task++) {
      assertThat(exactly.loader(flaky).loadEqualityDeletes(List.of(equalityDeletes), key)).hasSize(FILES / 2);
    }
    assertThat(opened).as("kept once the storage answers").hasSize(1);
    assertThat(exactly.kept()).isOne();
  }

  @Test
  void aLoadUnderWayIsNotYetKept() throws Exception {
    PlanDeletes deletes = new PlanDeletes(PlanDeletes.DEFAULT_MAX_BYTES);
    CountDownLatch loading = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<StructLikeSet> load = pool.submit(() -> deletes.loader(file -> {
        loading.countDown();
        Latches.await(release, "released");
        return table.table().io().newInputFile(file.location());
      }).loadEqualityDeletes(List.of(equalityDeletes), SCHEMA.select("id")));
      assertThat(loading.await(10, TimeUnit.SECONDS)).as("the load is under way").isTrue();
      assertThat(deletes.kept()).isZero();
      release.countDown();
      assertThat(load.get(10, TimeUnit.SECONDS)).hasSize(FILES / 2);
      assertThat(deletes.kept()).isOne();
    }
    finally {
      pool.shutdownNow();
    }
  }

  @Test
  void deletesAreLoadedOnTheReadingThreadItself() {
    PlanDeletes deletes = new PlanDeletes(PlanDeletes.DEFAULT_MAX_BYTES);
    Queue<Thread> loadedOn = new ConcurrentLinkedQueue<>();
    StructLikeSet deleted = deletes.loader(file -> {
      loadedOn.add(Thread.currentThread());
      return table.table().io().newInputFile(file.location());
    }).loadEqualityDeletes(List.of(equalityDeletes), SCHEMA.select("id"));
    assertThat(deleted).hasSize(FILES / 2);
    assertThat(loadedOn).containsExactly(Thread.currentThread());
    assertThat(deletes.kept()).isOne();
  }

  /** Opens each delete file from the table's FileIO, adding its location to {@code opened}. */
  private static Function<DeleteFile, InputFile> counting(
      Queue<String> opened) {
    return file -> {
      opened.add(file.location());
      return table.table().io().newInputFile(file.location());
    };
  }

  /** Iceberg's own estimate of what a delete file's contents weigh, as its loader asks whether to cache them. */
  private static long estimatedSize(DeleteFile file, Schema projection) {
    Queue<Long> sizes = new ConcurrentLinkedQueue<>();
    new BaseDeleteLoader(delete -> table.table().io().newInputFile(delete.location()), null) {

      @Override
      protected boolean canCache(long size) {
        sizes.add(size);
        return false;
      }
    }.loadEqualityDeletes(List.of(file), projection);
    assertThat(sizes).hasSize(1);
    return sizes.peek();
  }

  private static List<Object> ids(List<Record> rows) {
    return rows.stream().map(row -> row.getField("id")).toList();
  }

  private static org.apache.iceberg.catalog.TableIdentifier identifier() {
    return org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, "shared");
  }
}
