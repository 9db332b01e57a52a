package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Reading several tasks at once ({@link ScanRows}): rows in task order whatever the timing, or as they are read; at
 * most {@code readConcurrency} files open and a reader that stops taking rows stopping the reading; the earliest
 * failing task in task order ending the read whatever the timing; closes from another thread; reads after a plan's
 * close; the same through {@code Flux}. Timing is forced with {@link CountingFileIO.Scope#hold held} file opens, never
 * with sleeps.
 */
class ParallelReadTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "parallel";
  private static final Duration BOUND = Duration.ofSeconds(30);

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;

  private final CountingFileIO.Scope scope = CountingFileIO.newScope();
  /** The reading executor, the test's own so that it can tell when every read has stopped. */
  private final ThreadPoolExecutor executor = new ThreadPoolExecutor(8, 8, 10, TimeUnit.SECONDS,
      new LinkedBlockingQueue<>());

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    table("small", 6, 5, List.of());
    table("large", 6, 3000, List.of());
    table("broken", 6, 5, List.of(2, 4));
    table("many", 400, 1, List.of());
    catalog.createTable(TableIdentifier.of(NAMESPACE, "empty"), SCHEMA, PartitionSpec.unpartitioned(), 2);
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @AfterEach
  void shutDown() {
    this.executor.shutdownNow();
  }

  @ParameterizedTest
  @ValueSource(ints = { 1, 2, 4 })
  void rowsComeInTaskOrderWhateverTheTiming(int concurrency) throws Exception {
    try (IcebergScanPlan plan = plan("small", concurrency)) {
      List<Long> serial = serialIds(plan);
      int opened = this.scope.streamsOpened();
      // the first task's file opens last: every other task that may be read ahead is read first
      CountingFileIO.Gate first = this.scope.hold(file(plan, 0));
      CompletableFuture<List<Long>> read = CompletableFuture.supplyAsync(() -> ids(TestRows.readAll(plan.rows())));
      assertThat(first.awaitArrival()).isTrue();
      if (concurrency > 1) {
        await().atMost(BOUND).until(() -> this.scope.streamsOpened() - opened >= concurrency);
      }
      first.release();
      assertThat(read.get(BOUND.toSeconds(), TimeUnit.SECONDS)).containsExactlyElementsOf(serial);
    }
  }

  @Test
  void atReadConcurrencyOneAnIteratorsOwnThreadReadsTheTasksAndAFluxIsStillReadOnTheExecutor() {
    try (IcebergScanPlan plan = plan("large", 1)) {
      List<Long> serial = serialIds(plan);
      long jobs = this.executor.getTaskCount();
      assertThat(ids(TestRows.readAll(plan.rows()))).containsExactlyElementsOf(serial);
      assertThat(ids(TestRows.readAll(plan.rows().unordered()))).as("one task at a time: in task order")
          .containsExactlyElementsOf(serial);
      assertThat(this.executor.getTaskCount()).as("no job given to the reading executor").isEqualTo(jobs);
      assertThat(ids(plan.rows().flux().collectList().block(BOUND))).containsExactlyElementsOf(serial);
      assertThat(this.executor.getTaskCount()).as("a Flux may be read from a thread that must not block")
          .isGreaterThan(jobs);
      assertThat(this.scope.openStreams()).isZero();
    }
  }

  @Test
  void unorderedRowsAreHandedOverAsTheyAreRead() throws Exception {
    try (IcebergScanPlan plan = plan("small", 4)) {
      List<Long> serial = serialIds(plan);
      CountingFileIO.Gate first = this.scope.hold(file(plan, 0));
      try (CloseableIterator<Record> rows = plan.rows().unordered().iterator()) {
        // the first task is held: rows of the others come all the same
        assertThat(first.awaitArrival()).isTrue();
        List<Long> read = new ArrayList<>();
        read.add((Long) rows.next().getField("id"));
        assertThat(read.get(0) / 10_000).as("a row of a later task").isPositive();
        first.release();
        rows.forEachRemaining(row -> read.add((Long) row.getField("id")));
        assertThat(read).containsExactlyInAnyOrderElementsOf(serial).isNotEqualTo(serial);
      }
    }
  }

  @Test
  void atMostReadConcurrencyFilesAreOpenAndAReaderThatStopsStopsTheReading() throws Exception {
    // a read buffer of 1,024 rows' weight: with the head's own 1,024 and the first batch taken (1,024 at most), no task
    // of 3,000 rows can end while the reader stops, and make room for a third file
    try (IcebergScanPlan plan = plan("large", 2, bytesOf(RowPipeline.ROWS_PER_TASK))) {
      try (CloseableIterator<Record> rows = plan.rows().iterator()) {
        rows.next();
        // every job gave its thread back: the tasks read hold as many rows as they may, their files open
        awaitIdle();
        assertThat(this.scope.openStreams()).isEqualTo(2);
        assertThat(this.scope.streamsOpened()).as("no file opened beyond the two being read").isEqualTo(2);
        int read = 1;
        while (rows.hasNext()) {
          rows.next();
          read++;
        }
        assertThat(read).isEqualTo(6 * 3000);
      }
      assertThat(this.scope.maxOpenStreams()).isEqualTo(2);
      assertThat(this.scope.openStreams()).isZero();
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = { true, false })
  void theFirstFailingTaskInTaskOrderEndsTheReadWhateverTheTiming(boolean ordered) throws Exception {
    try (IcebergScanPlan plan = plan("broken", 4)) {
      List<Integer> missing = new ArrayList<>();
      for (int task = 0; task < plan.tasks().size(); task++) {
        try {
          table("broken").table().io().newInputFile(file(plan, task));
        }
        catch (org.apache.iceberg.exceptions.NotFoundException deleted) {
          missing.add(task);
        }
      }
      assertThat(missing).hasSize(2);
      String first = file(plan, missing.get(0));
      // the first missing file is held until the second has failed: the first is the failure all the same
      CountingFileIO.Gate held = this.scope.hold(first);
      ScanRows rows = ordered ? plan.rows() : plan.rows().unordered();
      List<Long> read = new java.util.concurrent.CopyOnWriteArrayList<>();
      CompletableFuture<Void> reading = CompletableFuture.runAsync(() -> {
        try (rows) {
          rows.forEach(row -> read.add((Long) row.getField("id")));
        }
      });
      assertThat(held.awaitArrival()).isTrue();
      await().atMost(BOUND).until(() -> this.scope.failedOpens() >= 1);
      held.release();
      assertThatThrownBy(() -> reading.get(BOUND.toSeconds(), TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class).cause()
          .isInstanceOf(TaskReadException.class)
          .satisfies(failure -> assertThat(((TaskReadException) failure).dataFile()).isEqualTo(first));
      List<Long> before = new ArrayList<>();
      for (FileScanTask task : plan.tasks().subList(0, missing.get(0))) {
        before.addAll(ids(TestRows.readAll(plan.rows(task))));
      }
      if (ordered) {
        assertThat(read).as("the rows of the tasks before it, and none after it").containsExactlyElementsOf(before);
      }
      else {
        assertThat(read).as("the rows of the tasks before it, and maybe some read as it was held")
            .containsAll(before);
      }
      awaitIdle();
      assertThat(this.scope.openStreams()).isZero();
    }
    assertThat(this.scope.openFileIOs()).isZero();
  }

  @Test
  void aCloseFromAnotherThreadWakesTheReaderWithATypedCancellation() throws Exception {
    try (IcebergScanPlan plan = plan("small", 2)) {
      CountingFileIO.Gate first = this.scope.hold(file(plan, 0));
      CloseableIterator<Record> rows = plan.rows().iterator();
      CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(rows::hasNext);
      assertThat(first.awaitArrival()).isTrue();
      // closing waits for the held read to stop: from a third thread
      CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> {
        try {
          rows.close();
        }
        catch (java.io.IOException failure) {
          throw new java.io.UncheckedIOException(failure);
        }
      });
      assertThatThrownBy(() -> waiting.get(BOUND.toSeconds(), TimeUnit.SECONDS)).cause()
          .isInstanceOf(ReadCancelledException.class).hasMessageContaining("closed before all were read");
      first.release();
      closing.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertThat(this.scope.openStreams()).as("closed once the held read stopped").isZero();
      assertThatThrownBy(rows::hasNext).isInstanceOf(ReadCancelledException.class);
    }
  }

  @Test
  void aReadAfterThePlanIsClosedFailsAtOnceNamingThePlan() throws Exception {
    IcebergScanPlan plan = plan("small", 2);
    ScanRows before = plan.rows();
    FileScanTask task = plan.tasks().get(0);
    CloseableIterator<Record> going = plan.rows().iterator();
    going.next();
    plan.close();
    int fileIOs = this.scope.fileIOsOpened();
    String named = "plan " + plan.scanPlan().planId();
    assertThatThrownBy(plan::rows).isInstanceOf(IllegalStateException.class).hasMessageContaining(named);
    assertThatThrownBy(before::iterator).isInstanceOf(IllegalStateException.class).hasMessageContaining(named);
    assertThatThrownBy(() -> plan.rows(task)).isInstanceOf(IllegalStateException.class).hasMessageContaining(named);
    assertThatThrownBy(() -> plan.rows(plan.splitTasks().get(0))).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> before.flux().blockFirst(BOUND)).isInstanceOf(IllegalStateException.class);
    // a read under way when the plan closed was cancelled, not left to end as if whole
    assertThatThrownBy(() -> going.forEachRemaining(row -> { })).isInstanceOf(ReadCancelledException.class);
    assertThat(this.scope.fileIOsOpened()).as("no FileIO opened after close").isEqualTo(fileIOs);
    assertThat(this.scope.openFileIOs()).isZero();
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void aTasksRowsTakenBeforeThePlanClosedRefuseAReadAfterItNamingThePlan() {
    IcebergScanPlan plan = plan("small", 2);
    CloseableIterable<Record> task = plan.rows(plan.tasks().get(0));
    plan.close();
    int opened = this.scope.streamsOpened();
    assertThatThrownBy(task::iterator).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("plan " + plan.scanPlan().planId() + " of " + plan.table().identifier());
    assertThat(this.scope.streamsOpened()).as("no file opened after close").isEqualTo(opened);
  }

  @Test
  void theFluxOfAPlanWithoutTasksFailsOnceThePlanIsClosedRatherThanEndingEmpty() {
    IcebergScanPlan plan = plan("empty", 2);
    assertThat(plan.tasks()).isEmpty();
    ScanRows rows = plan.rows();
    assertThat(rows.flux().collectList().block(BOUND)).as("open, the plan's rows are none").isEmpty();
    plan.close();
    assertThatThrownBy(() -> rows.flux().blockFirst(BOUND)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("plan " + plan.scanPlan().planId());
  }

  @Test
  void anIteratorAtTheEndOfTheRowsStaysThere() throws Exception {
    try (IcebergScanPlan plan = plan("small", 2); CloseableIterator<Record> rows = plan.rows().iterator()) {
      int read = 0;
      while (rows.hasNext()) {
        rows.next();
        read++;
      }
      assertThat(read).isEqualTo(6 * 5);
      assertThat(rows.hasNext()).isFalse();
      assertThatThrownBy(rows::next).isInstanceOf(NoSuchElementException.class);
    }
  }

  @Test
  void scanRowsSayWhetherTheyComeInTaskOrder() {
    try (IcebergScanPlan plan = plan("small", 3)) {
      ScanRows rows = plan.rows();
      String what = "plan " + plan.scanPlan().planId() + " of " + plan.table().identifier();
      assertThat(rows.ordered()).isTrue();
      assertThat(rows.unordered().ordered()).isFalse();
      assertThat(rows).hasToString("ScanRows[" + what + ", in task order, read concurrency 3]");
      assertThat(rows.unordered()).hasToString("ScanRows[" + what + ", as read, read concurrency 3]");
    }
  }

  @Test
  void theFluxGivesTheRowsInTaskOrderWithBackpressureThatReachesTheReaders() throws Exception {
    // a read buffer of 1,024 rows' weight: with the head's own 1,024 and the first batch taken (1,024 at most), no task
    // of 3,000 rows can end while the reader stops, and make room for a third file
    try (IcebergScanPlan plan = plan("large", 2, bytesOf(RowPipeline.ROWS_PER_TASK))) {
      List<Long> serial = serialIds(plan);
      int opened = this.scope.streamsOpened();
      List<Long> read = new java.util.concurrent.CopyOnWriteArrayList<>();
      CompletableFuture<Void> done = new CompletableFuture<>();
      BaseSubscriber<Record> subscriber = new BaseSubscriber<>() {
        @Override
        protected void hookOnSubscribe(Subscription subscription) {
          subscription.request(1);
        }

        @Override
        protected void hookOnNext(Record row) {
          read.add((Long) row.getField("id"));
        }

        @Override
        protected void hookOnComplete() {
          done.complete(null);
        }

        @Override
        protected void hookOnError(Throwable failure) {
          done.completeExceptionally(failure);
        }
      };
      plan.rows().flux().subscribe(subscriber);
      await().atMost(BOUND).until(() -> read.size() == 1);
      awaitIdle();
      assertThat(read).hasSize(1);
      assertThat(this.scope.streamsOpened() - opened).as("reading stopped at the bounds, one row asked for")
          .isEqualTo(2);
      subscriber.request(Long.MAX_VALUE);
      done.get(BOUND.toSeconds(), TimeUnit.SECONDS);
      assertThat(read).containsExactlyElementsOf(serial);
      assertThat(this.scope.maxOpenStreams()).isEqualTo(2);
    }
  }

  @Test
  void cancellingTheFluxClosesItsFiles() {
    try (IcebergScanPlan plan = plan("large", 2)) {
      Record first = plan.rows().flux().blockFirst(BOUND);
      assertThat(first).isNotNull();
      await().atMost(BOUND).until(() -> this.scope.openStreams() == 0);
      awaitIdle();
      assertThat(this.scope.openStreams()).isZero();
    }
  }

  @Test
  void anExecutorThatRunsWhatItIsGivenOnTheCallersThreadReadsTaskAfterTask() throws Exception {
    IcebergScanPlanner direct = IcebergScanPlanner.builder(planner).readConcurrency(4).readExecutor(Runnable::run)
        .build();
    try (IcebergScanPlan plan = direct.plan(direct.loadTable(ours("many")), IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(400);
      List<Long> serial = serialIds(plan);
      // on a thread of a small stack: the jobs run on the reader's thread, one after the other, never nested deeper
      // for every task (a task read is handed over before the next is admitted)
      CompletableFuture<List<Long>> read = new CompletableFuture<>();
      Thread reader = new Thread(null, () -> {
        try {
          read.complete(ids(TestRows.readAll(plan.rows())));
        }
        catch (Throwable failure) {
          read.completeExceptionally(failure);
        }
      }, "small-stack", 256 * 1024);
      reader.start();
      assertThat(read.get(BOUND.toSeconds(), TimeUnit.SECONDS)).containsExactlyElementsOf(serial);
    }
  }

  @Test
  void anInterruptedReaderEndsItsReadCancelledAndKeepsItsInterrupt() throws Exception {
    try (IcebergScanPlan plan = plan("small", 2)) {
      CountingFileIO.Gate first = this.scope.hold(file(plan, 0));
      CompletableFuture<Throwable> outcome = new CompletableFuture<>();
      Thread reader = new Thread(() -> {
        try (CloseableIterator<Record> rows = plan.rows().iterator()) {
          rows.hasNext();
          outcome.complete(null);
        }
        catch (Throwable failure) {
          outcome.complete(Thread.currentThread().isInterrupted() ? failure : new AssertionError("interrupt lost",
              failure));
        }
      });
      reader.start();
      assertThat(first.awaitArrival()).isTrue();
      reader.interrupt();
      assertThat(outcome.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isInstanceOf(ReadCancelledException.class)
          .hasMessageContaining("interrupted");
      first.release();
      awaitIdle();
      assertThat(this.scope.openStreams()).isZero();
    }
  }

  @Test
  void aReadTheExecutorRefusesFailsTypedNamingTheTask() {
    IcebergScanPlanner refusing = IcebergScanPlanner.builder(planner).readExecutor(task -> {
      throw new RejectedExecutionException("no more");
    }).build();
    try (IcebergScanPlan plan = refusing.plan(refusing.loadTable(ours("small")), IcebergScan.all())) {
      assertThatThrownBy(() -> TestRows.readAll(plan.rows()))
          .isInstanceOf(ScanPlanningException.class)
          .hasMessageContaining("refused by the reading executor").hasMessageContaining(file(plan, 0));
    }
  }

  @Test
  void thePlannersOwnReadingPoolReadsReadConcurrencyTasksAtOnceOnDaemonThreads() throws Exception {
    try (IcebergScanPlanner owning = IcebergScanPlanner.builder(planner).fileIoProperties(this.scope.fileIoProperties())
        .readConcurrency(3).build();
        IcebergScanPlan plan = owning.plan(owning.loadTable(ours("small")), IcebergScan.all())) {
      assertThat(owning.readConcurrency()).isEqualTo(3);
      CountingFileIO.Gate first = this.scope.hold(file(plan, 0));
      CompletableFuture<List<Record>> read = CompletableFuture.supplyAsync(() -> TestRows.readAll(plan.rows()));
      assertThat(first.awaitArrival()).isTrue();
      Thread reading = first.arrivedOn();
      assertThat(reading.getName()).startsWith("iceberg-scan-planning-read-");
      assertThat(reading.isDaemon()).as("a read under way does not keep the JVM from exiting").isTrue();
      first.release();
      assertThat(read.get(BOUND.toSeconds(), TimeUnit.SECONDS)).hasSize(30);
    }
  }

  @Test
  void closingThePlannerShutsDownTheReadingPoolItMadeAndNoExecutorItWasGiven() {
    IcebergScanPlanner owning = IcebergScanPlanner.builder(planner).readConcurrency(2).build();
    IcebergScanPlanner given = IcebergScanPlanner.builder(planner).readExecutor(this.executor).build();
    try (IcebergScanPlan own = owning.plan(owning.loadTable(ours("small")), IcebergScan.all());
        IcebergScanPlan theirs = given.plan(given.loadTable(ours("small")), IcebergScan.all())) {
      assertThat(TestRows.readAll(own.rows())).hasSize(30);
      owning.close();
      given.close();
      assertThatThrownBy(() -> TestRows.readAll(own.rows())).hasMessageContaining("refused by the reading executor");
      assertThat(TestRows.readAll(theirs.rows())).as("an executor it was given still reads").hasSize(30);
      assertThat(this.executor.isShutdown()).isFalse();
    }
  }

  /** What {@code rows} rows of the large table weigh, as a read's budget estimates them. */
  private static long bytesOf(int rows) {
    org.apache.iceberg.data.GenericRecord row = org.apache.iceberg.data.GenericRecord.create(SCHEMA);
    row.set(0, 50_000L);
    row.set(1, "name-50000");
    return rows * RowWeights.of(row);
  }

  /** Every job of every read has stopped: nothing runs or waits on the reading executor. */
  private void awaitIdle() {
    await().atMost(BOUND).until(() -> this.executor.getActiveCount() == 0 && this.executor.getQueue().isEmpty());
  }

  private IcebergScanPlan plan(String table, int concurrency) {
    return plan(table, concurrency, IcebergScanPlanner.Builder.DEFAULT_READ_BUFFER_BYTES);
  }

  private IcebergScanPlan plan(String table, int concurrency, long bufferBytes) {
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).fileIoProperties(this.scope.fileIoProperties())
        .readConcurrency(concurrency).readBufferBytes(bufferBytes).readExecutor(this.executor).build();
    return iceberg.plan(iceberg.loadTable(ours(table)), IcebergScan.all());
  }

  /** A table of this test's namespace, as this project names it. */
  private static org.apache.iceberg.catalog.TableIdentifier ours(String table) {
    return org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, table);
  }

  /** The ids the plan's tasks hold, each task read on its own, one after the other. */
  private static List<Long> serialIds(IcebergScanPlan plan) {
    List<Long> ids = new ArrayList<>();
    for (FileScanTask task : plan.tasks()) {
      ids.addAll(ids(TestRows.readAll(plan.rows(task))));
    }
    return ids;
  }

  private static List<Long> ids(List<Record> rows) {
    return rows.stream().map(row -> (Long) row.getField("id")).toList();
  }

  private static EmbeddedTable table(String name) {
    return catalog.table(TableIdentifier.of(NAMESPACE, name));
  }

  private static String file(IcebergScanPlan plan, int task) {
    return plan.tasks().get(task).file().location();
  }

  /**
   * A table of {@code files} Avro files of {@code rows} rows each, file {@code f} holding ids {@code f * 10000} on;
   * the files at {@code missing} are deleted after the commit.
   */
  private static void table(String name, int files, int rows, List<Integer> missing) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    List<DataFile> written = new ArrayList<>();
    for (int file = 0; file < files; file++) {
      List<Record> records = new ArrayList<>(rows);
      for (long id = file * 10_000L; id < file * 10_000L + rows; id++) {
        records.add(table.newRecord(id, "name-" + id));
      }
      written.addAll(table.writeRows(FileFormat.AVRO, records));
    }
    table.append(written);
    for (int file : missing) {
      table.table().io().deleteFile(written.get(file).location());
    }
  }
}
