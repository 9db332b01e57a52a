package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.StructLikeSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

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
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(identifier()), ScanRequest.all())) {
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

  private static List<Object> ids(List<Record> rows) {
    return rows.stream().map(row -> row.getField("id")).toList();
  }

  private static io.icebergscan.planning.model.TableIdentifier identifier() {
    return io.icebergscan.planning.model.TableIdentifier.of(NAMESPACE, "shared");
  }
}
