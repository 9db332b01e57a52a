package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.TaskBatch;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import org.apache.iceberg.catalog.TableIdentifier;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Rows of a plan read as it is planned ({@link IcebergScanPlanner#readRows}): the first rows come before the plan has
 * ended, a close from another thread wakes a reader waiting for the plan, and what the read opened is closed.
 */
class StreamedReadTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "streamed";
  private static final Duration BOUND = Duration.ofSeconds(30);

  private EmbeddedIcebergCatalog catalog;
  private ScanPlanner planner;
  private final CountingFileIO.Scope scope = CountingFileIO.newScope();

  @BeforeEach
  void start() {
    this.catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).build();
  }

  @AfterEach
  void stop() {
    this.planner.close();
    this.catalog.close();
  }

  @Test
  void theFirstRowsComeBeforeThePlanHasEnded() throws Exception {
    EmbeddedTable table = table("early", 14);
    try (IcebergScanPlanner iceberg = iceberg()) {
      IcebergTable loaded = iceberg.loadTable(identifier(table));
      // every fetch of a plan-task takes longer than the test may wait: rows before then are the plan answer's own
      this.catalog.tasksLatency(Duration.ofMinutes(1));
      try (CloseableIterator<Record> rows = iceberg.readRows(loaded, IcebergScan.all()).iterator()) {
        CompletableFuture<Record> first = CompletableFuture.supplyAsync(rows::next);
        assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isNotNull();
      }
      this.catalog.tasksLatency(Duration.ZERO);
    }
    await().atMost(BOUND).until(() -> this.scope.openStreams() == 0 && this.scope.openFileIOs() == 0);
  }

  @Test
  void aCloseFromAnotherThreadWakesAReaderThatWaitsForThePlan() throws Exception {
    EmbeddedTable table = table("waiting", 4);
    try (IcebergScanPlanner iceberg = iceberg()) {
      IcebergTable loaded = iceberg.loadTable(identifier(table));
      // the plan is still being planned for as long as the test runs
      this.catalog.planAsync(true).submittedPolls(Integer.MAX_VALUE);
      CloseableIterator<Record> rows = iceberg.readRows(loaded, IcebergScan.all()).iterator();
      CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(rows::hasNext);
      await().atMost(BOUND).until(() -> this.catalog.requestCounts().poll() >= 1);
      rows.close();
      assertThatThrownBy(() -> waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS)).cause()
          .isInstanceOf(ReadCancelledException.class).hasMessageContaining(table.identifier().toString());
      // the plan was abandoned: the catalog is told, and nothing is left running
      await().atMost(BOUND).until(() -> this.catalog.requestCounts().cancel() == 1);
      assertThat(this.planner.requestsInFlight()).isZero();
    }
    assertThat(this.scope.openFileIOs()).isZero();
  }

  @Test
  void everyReadOfTheRowsIsAPlanOfItsOwnWhoseFileIOItCloses() {
    EmbeddedTable table = table("each", 6);
    try (IcebergScanPlanner iceberg = iceberg()) {
      ScanRows rows = iceberg.readRows(iceberg.loadTable(identifier(table)), IcebergScan.all());
      this.catalog.resetRequestCounts();
      assertThat(TestRows.readAll(rows)).hasSize(6 * 3);
      assertThat(rows.flux().collectList().block(BOUND)).hasSize(6 * 3);
      assertThat(this.catalog.requestCounts().plan()).isEqualTo(2);
      await().atMost(BOUND).until(() -> this.scope.openFileIOs() == 0);
      assertThat(this.scope.fileIOsOpened()).as("a FileIO per plan").isEqualTo(2);
      assertThat(this.scope.openStreams()).isZero();
    }
  }

  @Test
  void aPlanThatFailsAfterItsTasksEndsTheReadWithItsFailureOnceTheirRowsWereHandedOver() {
    EmbeddedTable table = table("failing", 6);
    PlanTimeoutException failure = new PlanTimeoutException("planning streamed.failing did not finish in time");
    // the real plan's batches, then the failure the planner would end the stream with
    ScanPlanner failing = new StubPlanner(this.planner) {
      @Override
      public Flux<TaskBatch> planBatches(io.icebergscan.planning.model.TableIdentifier id, ScanRequest request) {
        return super.planBatches(id, request).concatWith(Mono.error(failure));
      }
    };
    try (IcebergScanPlanner iceberg = IcebergScanPlanner.builder(failing).fileIoProperties(
        this.scope.fileIoProperties()).readConcurrency(4).build()) {
      IcebergTable loaded = iceberg.loadTable(identifier(table));
      for (ScanRows rows : List.of(iceberg.readRows(loaded, IcebergScan.all()),
          iceberg.readRows(loaded, IcebergScan.all()).unordered())) {
        List<Record> read = new ArrayList<>();
        assertThatThrownBy(() -> {
          try (rows) {
            rows.forEach(read::add);
          }
        }).isSameAs(failure);
        assertThat(read).as("every task's rows came first").hasSize(6 * 3);
      }
    }
    await().atMost(BOUND).until(() -> this.scope.openStreams() == 0 && this.scope.openFileIOs() == 0);
  }

  @Test
  void tasksTheReadAsksForBeforeThePlansStreamIsSubscribedAreAskedForOnceItIs() throws Exception {
    EmbeddedTable table = table("late", 6);
    CompletableFuture<Void> subscribing = new CompletableFuture<>();
    // the stream's subscription arrives once the test lets it: after the read has asked for its first tasks
    ScanPlanner late = new StubPlanner(this.planner) {
      @Override
      public Flux<TaskBatch> planBatches(io.icebergscan.planning.model.TableIdentifier id, ScanRequest request) {
        Flux<TaskBatch> batches = super.planBatches(id, request);
        return Flux.from(subscriber -> subscribing.thenRun(() -> batches.subscribe(subscriber)));
      }
    };
    try (IcebergScanPlanner iceberg = IcebergScanPlanner.builder(late).fileIoProperties(
        this.scope.fileIoProperties()).readConcurrency(4).build()) {
      IcebergTable loaded = iceberg.loadTable(identifier(table));
      CloseableIterator<Record> rows = iceberg.readRows(loaded, IcebergScan.all()).iterator();
      subscribing.complete(null);
      CompletableFuture<List<Record>> read = CompletableFuture.supplyAsync(() -> {
        List<Record> all = new ArrayList<>();
        rows.forEachRemaining(all::add);
        return all;
      });
      try {
        assertThat(read).as("the read, once the stream is subscribed").succeedsWithin(BOUND)
            .satisfies(all -> assertThat(all).hasSize(6 * 3));
      }
      finally {
        rows.close();
      }
    }
    await().atMost(BOUND).until(() -> this.scope.openStreams() == 0 && this.scope.openFileIOs() == 0);
  }

  private IcebergScanPlanner iceberg() {
    return IcebergScanPlanner.builder(this.planner).fileIoProperties(this.scope.fileIoProperties()).readConcurrency(4)
        .build();
  }

  /** An unpartitioned table of {@code files} Avro files of three rows each. */
  private EmbeddedTable table(String name, int files) {
    EmbeddedTable table = this.catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, name),
        SCHEMA, PartitionSpec.unpartitioned(), 2);
    for (int file = 0; file < files; file++) {
      List<Record> rows = new ArrayList<>();
      for (long id = file * 3L; id < file * 3L + 3; id++) {
        rows.add(table.newRecord(id, "name-" + id));
      }
      table.appendRows(FileFormat.AVRO, rows);
    }
    return table;
  }

  private static TableIdentifier identifier(EmbeddedTable table) {
    return TableIdentifier.of(NAMESPACE, table.identifier().name());
  }
}
