package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * {@link RowPipeline} driven directly, its decisions made observable one at a time: its jobs run when the test runs
 * them ({@link Jobs}), its source offers what the test offers ({@link RecordingSource}), and a non-blocking reader
 * is told of news through {@code onChange}, as the {@code Flux} reader is. Each test pins a behaviour a mutation run
 * found unchecked: the bounds on what is asked and held, whom a change wakes, what a failure, an interrupt or a
 * cancel ends, closes and rethrows. No test sleeps: a thread that must be waiting is seen waiting by its state.
 */
@Timeout(60)
class RowPipelineMutationTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "pipeline";
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final int SMALL = 5;
  private static final int LARGE = 3000;
  /** {@code RowPipeline.FIRST_ROWS}: the rows a job that opens a task hands over first. */
  private static final int FIRST_ROWS = 64;

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;

  private final CountingFileIO.Scope scope = CountingFileIO.newScope();
  private final Jobs jobs = new Jobs();
  private IcebergScanPlanner iceberg;
  private IcebergScanPlan plan;
  private ResolvedScan scan;
  private TaskReader reader;
  private List<FileScanTask> small;
  private List<FileScanTask> large;
  private final List<RowPipeline> pipelines = new ArrayList<>();

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "rows"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    List<DataFile> written = new ArrayList<>();
    int[] sizes = { SMALL, SMALL, SMALL, SMALL, SMALL, SMALL, LARGE, LARGE };
    for (int file = 0; file < sizes.length; file++) {
      List<Record> records = new ArrayList<>(sizes[file]);
      for (long id = file * 10_000L; id < file * 10_000L + sizes[file]; id++) {
        records.add(table.newRecord(id, "name-" + id));
      }
      written.addAll(table.writeRows(FileFormat.AVRO, records));
    }
    table.append(written);
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  @BeforeEach
  void plan() {
    this.iceberg = IcebergScanPlanner.builder(planner).fileIoProperties(this.scope.fileIoProperties()).build();
    IcebergTable table = this.iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, "rows"));
    this.plan = this.iceberg.plan(table, IcebergScan.all());
    this.scan = ResolvedScan.of(table, IcebergScan.all());
    this.reader = reader(() -> { });
    this.small = this.plan.tasks().stream().filter(task -> task.file().recordCount() == SMALL).toList();
    this.large = this.plan.tasks().stream().filter(task -> task.file().recordCount() == LARGE).toList();
    assertThat(this.small).hasSize(6);
    assertThat(this.large).hasSize(2);
  }

  @AfterEach
  void close() {
    // whatever a failing test left waiting wakes, and nothing stays open for the next
    this.pipelines.forEach(RowPipeline::cancel);
    this.jobs.runAll();
    this.plan.close();
    this.iceberg.close();
  }

  @Test
  void aReadAheadAsLargeAsTheConcurrencyIsAllowedAndReadsEveryRowInTaskOrder() {
    assertThatThrownBy(() -> new RowPipeline("rows", this.jobs, 0, 1, rowsPerTask(1), true, null, false))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new RowPipeline("rows", this.jobs, 2, 1, rowsPerTask(1), true, null, false))
        .isInstanceOf(IllegalArgumentException.class);
    RowPipeline pipeline = pipeline(2, 2, true, null);
    pipeline.start(listed(pipeline, this.small));
    assertThat(drain(pipeline)).containsExactlyElementsOf(serialIds(this.small));
  }

  @Test
  void theSourceIsAskedForNoMoreTasksThanTheReadAheadHasRoomFor() {
    RowPipeline pipeline = pipeline(2, 4, true, null);
    RecordingSource source = new RecordingSource(null);
    pipeline.start(source);
    assertThat(source.requested).hasValue(4);
    pipeline.offer(this.small.get(0), this.reader);
    pipeline.offer(this.small.get(1), this.reader);
    assertThat(source.requested).as("nothing more while the tasks asked for have not all come").hasValue(4);
    this.jobs.runAll();
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThat(source.requested).as("the tasks read are not handed over: no room made").hasValue(4);
    // the first task handed over whole leaves the window: room for one more
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(1, 2)));
    assertThat(source.requested).hasValue(5);
  }

  @Test
  void aTaskWhoseRowsAreNotTakenHoldsAtMostTheBudgetWithItsFileOpenAndNoThread() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(listed(pipeline, this.large.subList(0, 1)));
    this.jobs.runAll();
    assertThat(this.jobs.size()).as("the job gave its thread back").isZero();
    assertThat(this.scope.openStreams()).as("its file stays open").isEqualTo(1);
    ArrayDeque<Record> held = pipeline.take(false);
    assertThat(held).as("the default budget of a read-ahead of 2").hasSize(2 * RowPipeline.ROWS_PER_TASK);
    List<Long> read = new ArrayList<>(ids(held));
    read.addAll(drain(pipeline));
    assertThat(read).containsExactlyElementsOf(serialIds(this.large.subList(0, 1)));
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void theFirstRowsOfATaskReachTheReaderBeforeItsBufferIsFull() {
    AtomicReference<RowPipeline> self = new AtomicReference<>();
    List<Integer> batches = new ArrayList<>();
    // a reader that takes what it is told of at once, as the Flux reader does
    RowPipeline pipeline = pipeline(1, 2, true, () -> {
      ArrayDeque<Record> rows = self.get().take(false);
      if (rows != null && rows != RowPipeline.END) {
        batches.add(rows.size());
      }
    });
    self.set(pipeline);
    pipeline.start(listed(pipeline, this.large.subList(0, 1)));
    this.jobs.runAll();
    assertThat(batches).as("the first rows first, then at most a buffer's worth at a time").first()
        .isEqualTo(FIRST_ROWS);
    assertThat(batches).allSatisfy(size -> assertThat(size).isLessThanOrEqualTo(RowPipeline.ROWS_PER_TASK));
    assertThat(batches.stream().mapToInt(Integer::intValue).sum()).isEqualTo(LARGE);
    assertThat(pipeline.take(false)).isSameAs(RowPipeline.END);
  }

  @Test
  void inTaskOrderTheRowsOfALaterTaskDoNotWakeTheReaderAndThoseOfTheFirstDo() {
    AtomicInteger wakes = new AtomicInteger();
    RowPipeline pipeline = pipeline(2, 4, true, wakes::incrementAndGet);
    pipeline.start(listed(pipeline, this.small.subList(0, 2)));
    assertThat(this.jobs.size()).isEqualTo(2);
    int before = wakes.get();
    this.jobs.run(1);
    assertThat(wakes).as("the reader waits for the first task's rows only").hasValue(before);
    assertThat(pipeline.take(false)).isNull();
    this.jobs.run(0);
    assertThat(wakes.get()).isGreaterThan(before);
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
  }

  @Test
  void asReadTheRowsOfALaterTaskWakeTheReader() {
    AtomicInteger wakes = new AtomicInteger();
    RowPipeline pipeline = pipeline(2, 4, false, wakes::incrementAndGet);
    pipeline.start(listed(pipeline, this.small.subList(0, 2)));
    int before = wakes.get();
    this.jobs.run(1);
    assertThat(wakes.get()).as("the second task's rows may be taken now").isGreaterThan(before);
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(1, 2)));
  }

  @Test
  void asReadEveryTaskIsReadByAReaderThatTakesTheRowsAsFastAsTheyAreRead() throws Exception {
    // the jobs run on the thread that submits them: nothing is read unless the reader's own steps ask for it
    RowPipeline pipeline = new RowPipeline("rows", Runnable::run, 1, 2, rowsPerTask(2), false, null, false);
    this.pipelines.add(pipeline);
    pipeline.start(listed(pipeline, this.small));
    Background<List<Long>> reading = new Background<>(() -> readAll(pipeline));
    assertThat(reading.get()).containsExactlyInAnyOrderElementsOf(serialIds(this.small));
  }

  @Test
  void aReaderThatWaitsForTasksHasAskedTheSourceForThemBeforeItWaits() throws Exception {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = new RecordingSource(null);
    pipeline.start(source);
    pipeline.offer(this.small.get(0), this.reader);
    pipeline.offer(this.small.get(1), this.reader);
    this.jobs.runAll();
    assertThat(pipeline.take(false)).isNotNull();
    assertThat(pipeline.take(false)).isNotNull();
    assertThat(source.requested).hasValue(3);
    Background<ArrayDeque<Record>> waiting = new Background<>(() -> pipeline.take(true));
    waiting.awaitBlocked();
    assertThat(source.requested).as("asked for the tasks it waits for").hasValue(4);
    pipeline.sourceDone();
    assertThat(waiting.get()).isSameAs(RowPipeline.END);
  }

  @Test
  void awaitJobsWaitsForTheJobsOfACancelledReadToStopAndSaysTheyDid() throws Exception {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(listed(pipeline, this.small.subList(0, 1)));
    pipeline.cancel();
    Background<Boolean> waiting = new Background<>(() -> pipeline.awaitJobs(Duration.ofMinutes(1)));
    waiting.awaitBlocked();
    assertThat(waiting.result).as("a job is still to stop").isNotDone();
    this.jobs.runAll();
    assertThat(waiting.get()).isTrue();
    assertThat(this.scope.streamsOpened()).as("the job stopped before it opened its file").isZero();
  }

  @Test
  void awaitJobsSaysAJobHasNotStoppedWhenItsTimeIsUp() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(listed(pipeline, this.small.subList(0, 1)));
    pipeline.cancel();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).isFalse();
    this.jobs.runAll();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).isTrue();
  }

  @Test
  void anInterruptedWaitForTheJobsSaysTheyHaveNotStoppedAndKeepsTheInterrupt() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(listed(pipeline, this.small.subList(0, 1)));
    Thread.currentThread().interrupt();
    boolean stopped = pipeline.awaitJobs(Duration.ofMinutes(1));
    boolean kept = Thread.interrupted();
    assertThat(stopped).isFalse();
    assertThat(kept).isTrue();
  }

  @Test
  void awaitJobsReturnsOnceTheLastJobGivesItsThreadBackWithAFullBuffer() throws Exception {
    // a budget smaller than the second task's rows, which pauses it
    RowPipeline pipeline = pipeline(2, 4, RowPipeline.ROWS_PER_TASK, true, null);
    pipeline.start(listed(pipeline, List.of(this.small.get(0), this.large.get(0))));
    // the first task read to its end, its rows kept: the second task's rows wake nobody
    this.jobs.run(0);
    Background<Boolean> waiting = new Background<>(() -> pipeline.awaitJobs(Duration.ofMinutes(5)));
    waiting.awaitBlocked();
    assertThat(waiting.result).isNotDone();
    this.jobs.runAll();
    assertThat(this.scope.openStreams()).as("the second task paused, its file open").isEqualTo(1);
    assertThat(waiting.get()).isTrue();
  }

  @Test
  void cancellingClosesTheFileOfATaskThatHoldsItsRowsAtOnce() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = listed(pipeline, this.large.subList(0, 1));
    pipeline.start(source);
    this.jobs.runAll();
    assertThat(this.scope.openStreams()).isEqualTo(1);
    pipeline.cancel();
    assertThat(this.scope.openStreams()).as("closed by the cancel, no job needed").isZero();
    assertThat(this.jobs.size()).isZero();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).isTrue();
    assertThat(source.closes).hasValue(1);
    assertThatThrownBy(() -> pipeline.take(false)).isInstanceOf(ReadCancelledException.class);
  }

  @Test
  void aFileThatFailsToCloseWhenItsReadIsCancelledDoesNotFailTheCancel() {
    this.scope.failClosing(this.large.get(0).file().location());
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(listed(pipeline, this.large.subList(0, 1)));
    this.jobs.runAll();
    assertThat(this.scope.openStreams()).isEqualTo(1);
    assertThatCode(pipeline::cancel).doesNotThrowAnyException();
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void aTaskResumedOnceItsRowsWereTakenIsARunningJobUntilItStops() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = listed(pipeline, this.large.subList(0, 1));
    pipeline.start(source);
    this.jobs.runAll();
    assertThat(pipeline.take(false)).as("the test's budget: 1,024 rows a task admitted")
        .hasSize(2 * RowPipeline.ROWS_PER_TASK);
    assertThat(this.jobs.size()).as("the task goes on reading").isEqualTo(1);
    pipeline.cancel();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).as("its job has not stopped").isFalse();
    assertThat(source.closes).as("nothing closed under a job that may still read").hasValue(0);
    this.jobs.runAll();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).isTrue();
    assertThat(source.closes).hasValue(1);
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void asReadAFailedTaskDropsTheRowsOfTheTasksAfterItAndClosesTheirFiles() {
    RuntimeException broken = new IllegalStateException("the second task cannot be read");
    // a budget smaller than the third task's rows, which pauses it
    RowPipeline pipeline = pipeline(3, 6, RowPipeline.ROWS_PER_TASK, false, null);
    pipeline.start(new RecordingSource(null));
    pipeline.offer(this.small.get(0), this.reader);
    pipeline.offer(this.small.get(1), reader(() -> {
      throw broken;
    }));
    pipeline.offer(this.large.get(0), this.reader);
    pipeline.sourceDone();
    assertThat(this.jobs.size()).isEqualTo(3);
    this.jobs.run(2);
    assertThat(this.scope.openStreams()).as("the third task holds its rows, its file open").isEqualTo(1);
    this.jobs.run(1);
    assertThat(this.scope.openStreams()).as("the task after the failure is closed").isZero();
    assertThat(pipeline.take(false)).as("no row of a task after the failure").isNull();
    this.jobs.runAll();
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThatThrownBy(() -> pipeline.take(false)).isSameAs(broken);
  }

  @Test
  void aFailedTaskStopsTheSourceAtOnceSinceNoTaskAfterItIsRead() {
    RuntimeException broken = new IllegalStateException("the first task cannot be read");
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = new RecordingSource(null);
    startWithAFirstTaskThatFails(pipeline, source, broken);
    this.jobs.runAll();
    assertThat(source.cancels).as("before the reader got to the failure").hasValue(1);
    assertThatThrownBy(() -> pipeline.take(false)).isSameAs(broken);
  }

  @Test
  void aFailedReadClosesItsSourceOnceNoJobIsLeftAndRethrowsTheSameFailureOnEveryLaterTake() {
    RuntimeException broken = new IllegalStateException("the first task cannot be read");
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = new RecordingSource(null);
    startWithAFirstTaskThatFails(pipeline, source, broken);
    pipeline.offer(this.small.get(1), this.reader);
    pipeline.sourceDone();
    this.jobs.runAll();
    assertThat(source.closes).hasValue(0);
    assertThatThrownBy(() -> pipeline.take(false)).isSameAs(broken);
    assertThat(source.closes).as("the read is over and no job is left").hasValue(1);
    assertThatThrownBy(() -> pipeline.take(false)).isSameAs(broken);
    assertThatThrownBy(() -> pipeline.take(true)).isSameAs(broken);
    assertThat(this.scope.streamsOpened()).as("the task after the failure was never opened").isZero();
    assertThat(source.closes).hasValue(1);
  }

  @Test
  void aSourceThatEndsAfterTheLastRowsWereTakenWakesTheReaderWithTheEndThenClosesIt() {
    AtomicInteger wakes = new AtomicInteger();
    RowPipeline pipeline = pipeline(1, 2, true, wakes::incrementAndGet);
    RecordingSource source = new RecordingSource(null);
    pipeline.start(source);
    pipeline.offer(this.small.get(0), this.reader);
    this.jobs.runAll();
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThat(pipeline.take(false)).as("the source may offer more").isNull();
    int before = wakes.get();
    pipeline.sourceDone();
    assertThat(wakes.get()).as("the reader is told").isGreaterThan(before);
    assertThat(pipeline.take(false)).isSameAs(RowPipeline.END);
    assertThat(source.closes).as("the read is over and no job is left").hasValue(1);
    assertThat(pipeline.take(false)).as("the end, again").isSameAs(RowPipeline.END);
    assertThat(pipeline.take(true)).isSameAs(RowPipeline.END);
    assertThat(source.closes).hasValue(1);
  }

  @Test
  void aSourceThatFailsAfterItsTasksWakesTheReaderWhichGetsTheirRowsThenTheFailure() {
    AtomicInteger wakes = new AtomicInteger();
    RowPipeline pipeline = pipeline(1, 2, true, wakes::incrementAndGet);
    pipeline.start(new RecordingSource(null));
    pipeline.offer(this.small.get(0), this.reader);
    this.jobs.runAll();
    RuntimeException planning = new IllegalStateException("planning failed");
    int before = wakes.get();
    pipeline.sourceFailed(planning);
    assertThat(wakes.get()).as("the reader is told").isGreaterThan(before);
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThatThrownBy(() -> pipeline.take(false)).isSameAs(planning);
  }

  @Test
  void anInterruptedReaderEndsTheReadCancelledStopsItsJobsAndSourceAndKeepsItsInterrupt() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = new RecordingSource(null);
    pipeline.start(source);
    pipeline.offer(this.small.get(0), this.reader);
    Thread.currentThread().interrupt();
    Throwable interrupted = catchThrowable(() -> pipeline.take(true));
    boolean kept = Thread.interrupted();
    assertThat(kept).isTrue();
    assertThat(interrupted).isInstanceOf(ReadCancelledException.class).hasMessageContaining("interrupted");
    assertThat(source.cancels).hasValue(1);
    assertThatThrownBy(() -> pipeline.take(false)).as("the same ending, again").isSameAs(interrupted);
    this.jobs.runAll();
    assertThat(this.scope.streamsOpened()).as("the job stopped before it opened its file").isZero();
    assertThat(source.closes).hasValue(1);
  }

  @Test
  void anInterruptedReaderWithNoJobLeftClosesTheSource() {
    RowPipeline pipeline = pipeline(1, 2, true, null);
    RecordingSource source = new RecordingSource(null);
    pipeline.start(source);
    Thread.currentThread().interrupt();
    Throwable interrupted = catchThrowable(() -> pipeline.take(true));
    boolean kept = Thread.interrupted();
    assertThat(kept).isTrue();
    assertThat(interrupted).isInstanceOf(ReadCancelledException.class);
    assertThat(source.closes).hasValue(1);
  }

  @Test
  void aJobThatFailsWithAnErrorEndsTheReadWithATaskReadExceptionAndLetsTheExecutorSeeTheError() {
    Error fatal = new LinkageError("the test's fatal error");
    RowPipeline pipeline = pipeline(1, 2, true, null);
    pipeline.start(new RecordingSource(null));
    pipeline.offer(this.small.get(0), reader(() -> {
      throw fatal;
    }));
    pipeline.sourceDone();
    assertThatThrownBy(() -> this.jobs.run(0)).isSameAs(fatal);
    assertThatThrownBy(() -> pipeline.take(false)).isInstanceOf(TaskReadException.class)
        .satisfies(failure -> {
          assertThat(failure.getCause()).isSameAs(fatal);
          assertThat(((TaskReadException) failure).dataFile()).isEqualTo(this.small.get(0).file().location());
        });
    assertThat(pipeline.awaitJobs(Duration.ZERO)).isTrue();
  }

  // ---- the budget of rows, shared by the tasks read ahead

  @Test
  void aBudgetBelowOneRowIsRefused() {
    assertThatThrownBy(() -> RowPipeline.Budget.rows(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("budget 0");
    assertThatThrownBy(() -> RowPipeline.Budget.bytes(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("budget 0");
  }

  @Test
  void aTaskAheadOfTheHeadReadsPastRowsPerTaskWhileTheBudgetAllowsAndStopsAtTheBudget() {
    int budget = 2500;
    RowPipeline pipeline = pipeline(2, 4, budget, true, null);
    pipeline.start(listed(pipeline, this.large));
    assertThat(this.jobs.size()).isEqualTo(2);
    // the second task alone is read, while the reader waits for the first
    this.jobs.run(1);
    assertThat(this.jobs.size()).as("it stopped at the budget and gave its thread back").isEqualTo(1);
    assertThat(this.scope.openStreams()).as("its file stays open (the head's job has not run)").isEqualTo(1);
    List<Long> read = new ArrayList<>();
    List<Long> head = serialIds(this.large.subList(0, 1));
    while (read.size() < head.size()) {
      this.jobs.runAll();
      ArrayDeque<Record> rows = pipeline.take(false);
      assertThat(rows).as("the head is read whatever the budget").isNotNull();
      read.addAll(ids(rows));
    }
    assertThat(read).containsExactlyElementsOf(head);
    ArrayDeque<Record> ahead = pipeline.take(false);
    assertThat(ahead).as("read ahead past %d rows, up to the budget and no further", RowPipeline.ROWS_PER_TASK)
        .hasSize(budget);
    read.addAll(ids(ahead));
    read.addAll(drain(pipeline));
    assertThat(read).containsExactlyElementsOf(serialIds(this.large));
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void theHeadIsNeverBlockedByASpentBudgetEvenOneSmallerThanATasksRows() {
    RowPipeline pipeline = pipeline(2, 4, 10, true, null);
    pipeline.start(listed(pipeline, this.large));
    // the task ahead of the head spends the whole budget first
    this.jobs.run(1);
    assertThat(this.jobs.size()).isEqualTo(1);
    this.jobs.runAll();
    assertThat(pipeline.take(false)).as("the head holds its own rows beyond the spent budget")
        .hasSize(RowPipeline.ROWS_PER_TASK);
    List<Long> read = new ArrayList<>(serialIds(this.large.subList(0, 1)).subList(0, RowPipeline.ROWS_PER_TASK));
    read.addAll(drain(pipeline));
    assertThat(read).containsExactlyElementsOf(serialIds(this.large));
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void aReaderThatStopsTakingRowsStopsEveryJobOnceTheBudgetIsSpent() {
    int budget = 1500;
    RowPipeline pipeline = pipeline(3, 6, budget, false, null);
    pipeline.start(listed(pipeline, this.large));
    this.jobs.runAll();
    assertThat(this.jobs.size()).as("every job gave its thread back").isZero();
    assertThat(this.scope.openStreams()).as("both files stay open").isEqualTo(2);
    int held = 0;
    for (ArrayDeque<Record> rows = pipeline.take(false); rows != null; rows = pipeline.take(false)) {
      held += rows.size();
    }
    assertThat(held).as("the rows read are the budget's").isEqualTo(budget);
  }

  @Test
  void aTaskPausedByTheBudgetGoesOnOnceTheReaderTakesRowsNotOnlyOnceItIsTheHead() {
    RowPipeline pipeline = pipeline(3, 6, 1100, true, null);
    pipeline.start(listed(pipeline, List.of(this.small.get(0), this.large.get(0), this.large.get(1))));
    this.jobs.run(1);
    this.jobs.run(1);
    assertThat(this.jobs.size()).as("both large tasks paused by the budget").isEqualTo(1);
    this.jobs.runAll();
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThat(this.jobs.size()).as("the budget is still spent by the second task").isZero();
    assertThat(pipeline.take(false)).hasSize(1100);
    assertThat(this.jobs.size()).as("the head goes on, and the task after it too: the budget is free")
        .isEqualTo(2);
    List<Long> read = new ArrayList<>(serialIds(this.small.subList(0, 1)));
    read.addAll(serialIds(this.large.subList(0, 1)).subList(0, 1100));
    read.addAll(drain(pipeline));
    assertThat(read).containsExactlyElementsOf(serialIds(List.of(this.small.get(0), this.large.get(0),
        this.large.get(1))));
  }

  @Test
  void theRowsOfATaskCancelledByAFailureGiveTheirBudgetBackToTheTasksBeforeIt() {
    RuntimeException broken = new IllegalStateException("the third task cannot be read");
    RowPipeline pipeline = pipeline(4, 8, 1100, true, null);
    pipeline.start(new RecordingSource(null));
    pipeline.offer(this.small.get(0), this.reader);
    pipeline.offer(this.large.get(1), this.reader);
    pipeline.offer(this.small.get(1), reader(() -> {
      throw broken;
    }));
    pipeline.offer(this.large.get(0), this.reader);
    pipeline.sourceDone();
    assertThat(this.jobs.size()).isEqualTo(4);
    // the last task spends the budget, then the failure before it cancels it and drops its rows
    this.jobs.run(3);
    this.jobs.run(2);
    // the second task, before the failure, reads into the budget the dropped rows gave back
    this.jobs.run(1);
    this.jobs.runAll();
    assertThat(ids(pipeline.take(false))).containsExactlyElementsOf(serialIds(this.small.subList(0, 1)));
    assertThat(pipeline.take(false)).hasSize(1100);
    assertThatThrownBy(() -> drain(pipeline)).as("the rest of the second task, then the failure").isSameAs(broken);
  }

  @Test
  void thePlannersReadBufferIsEachReadsBudgetInBytesAndATinyOneReadsEveryRowInTaskOrder() throws Exception {
    assertThat(this.iceberg.readBufferBytes()).isEqualTo(IcebergScanPlanner.Builder.DEFAULT_READ_BUFFER_BYTES)
        .isEqualTo(64L * 1024 * 1024);
    assertThatThrownBy(() -> IcebergScanPlanner.builder(planner).readBufferBytes(0))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("readBufferBytes must be at least 1");
    try (IcebergScanPlanner tiny = IcebergScanPlanner.builder(planner).readConcurrency(4).readBufferBytes(1)
        .fileIoProperties(this.scope.fileIoProperties()).build()) {
      assertThat(tiny.readBufferBytes()).isEqualTo(1);
      IcebergTable table = tiny.loadTable(TableIdentifier.of(NAMESPACE, "rows"));
      try (IcebergScanPlan tinyPlan = tiny.plan(table, IcebergScan.all())) {
        List<Long> serial = new ArrayList<>();
        tinyPlan.tasks().forEach(task -> serial.addAll(ids(TestRows.readAll(tinyPlan.rows(task)))));
        assertThat(ids(TestRows.readAll(tinyPlan.rows()))).containsExactlyElementsOf(serial);
        assertThat(ids(TestRows.readAll(tinyPlan.rows().unordered()))).containsExactlyInAnyOrderElementsOf(serial);
      }
    }
    assertThat(this.scope.openStreams()).isZero();
  }

  // ---- at concurrency 1, the reader reads

  @Test
  void anInlinePipelineIsOneTaskAtATimeForAReaderThatWaits() {
    assertThatThrownBy(() -> new RowPipeline("rows", this.jobs, 2, 4, RowPipeline.Budget.rows(10), true, null, true))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one task at a time");
    assertThatThrownBy(() -> new RowPipeline("rows", this.jobs, 1, 2, RowPipeline.Budget.rows(10), true, () -> { },
        true)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a reader that waits");
  }

  @Test
  void anInlineReaderReadsEveryTaskOnItsOwnThreadInTaskOrderAndSubmitsNoJob() {
    List<Thread> readers = new ArrayList<>();
    TaskReader recording = reader(() -> readers.add(Thread.currentThread()));
    RowPipeline pipeline = inline(RowPipeline.Budget.rows(2 * RowPipeline.ROWS_PER_TASK), false);
    List<FileScanTask> tasks = List.of(this.large.get(0), this.small.get(0), this.large.get(1), this.small.get(1));
    pipeline.start(new RecordingSource(TaskSources.of(pipeline, tasks, recording)));
    List<Long> read = new ArrayList<>();
    for (ArrayDeque<Record> rows = pipeline.take(true); rows != RowPipeline.END; rows = pipeline.take(true)) {
      assertThat(rows.size()).as("a budget's worth at a time at most, and the head's own")
          .isLessThanOrEqualTo(2 * RowPipeline.ROWS_PER_TASK);
      assertThat(this.scope.openStreams()).as("one file open at a time").isLessThanOrEqualTo(1);
      read.addAll(ids(rows));
    }
    assertThat(read).as("in task order, though made unordered").containsExactlyElementsOf(serialIds(tasks));
    assertThat(readers).as("each task opened on the reader's thread").hasSize(tasks.size())
        .containsOnly(Thread.currentThread());
    assertThat(this.jobs.size()).as("no job given to the executor").isZero();
    assertThat(this.scope.openStreams()).isZero();
  }

  @Test
  void anInlineReaderWaitingForTheSourceWakesOnceItOffersATask() throws Exception {
    RowPipeline pipeline = inline(RowPipeline.Budget.rows(2 * RowPipeline.ROWS_PER_TASK), true);
    pipeline.start(new RecordingSource(null));
    Background<ArrayDeque<Record>> waiting = new Background<>(() -> pipeline.take(true));
    waiting.awaitBlocked();
    assertThat(waiting.result).as("no task yet").isNotDone();
    pipeline.offer(this.large.get(0), this.reader);
    // woken by the task alone: the source has not said it is done
    List<Long> read = new ArrayList<>(ids(waiting.get()));
    pipeline.sourceDone();
    read.addAll(readAll(pipeline));
    assertThat(read).containsExactlyElementsOf(serialIds(this.large.subList(0, 1)));
  }

  @Test
  void anInlineReadCancelledFromAnotherThreadStopsWhereItReadsAndClosesItsFile() throws Exception {
    java.util.concurrent.CountDownLatch opening = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CountDownLatch cancelled = new java.util.concurrent.CountDownLatch(1);
    TaskReader blocking = reader(() -> {
      opening.countDown();
      try {
        cancelled.await();
      }
      catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    });
    RowPipeline pipeline = inline(RowPipeline.Budget.rows(2 * RowPipeline.ROWS_PER_TASK), true);
    pipeline.start(new RecordingSource(TaskSources.of(pipeline, this.large, blocking)));
    Background<List<Long>> reading = new Background<>(() -> readAll(pipeline));
    assertThat(opening.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
    pipeline.cancel();
    assertThat(pipeline.awaitJobs(Duration.ZERO)).as("the reader is still in its read").isFalse();
    cancelled.countDown();
    assertThat(catchThrowable(reading::get)).hasCauseInstanceOf(ReadCancelledException.class);
    assertThat(pipeline.awaitJobs(BOUND)).isTrue();
    assertThat(this.scope.streamsOpened()).as("it opened the file, then stopped at its first row").isEqualTo(1);
    assertThat(this.scope.openStreams()).isZero();
    assertThat(this.jobs.size()).isZero();
  }

  // ---- a budget of bytes, as rows weigh

  @Test
  void theBudgetCountsWhatRowsWeighSoATaskAheadStopsOnceItsRowsWeighTheBudget() {
    int weight = 10;
    int rows = 2500;
    RowPipeline pipeline = pipeline(2, 4, new RowPipeline.Budget((long) rows * weight, row -> weight, weight),
        true, null);
    pipeline.start(listed(pipeline, this.large));
    this.jobs.run(1);
    assertThat(this.jobs.size()).as("it stopped at the budget and gave its thread back").isEqualTo(1);
    List<Long> read = new ArrayList<>();
    List<Long> head = serialIds(this.large.subList(0, 1));
    while (read.size() < head.size()) {
      this.jobs.runAll();
      read.addAll(ids(pipeline.take(false)));
    }
    assertThat(pipeline.take(false)).as("as many rows as weigh the budget").hasSize(rows);
  }

  @Test
  void aRowWeighedHeavierThanFirstTakenStopsTheTaskSooner() {
    // taken to weigh 1 at first, each row weighs 100: the first chunk is read on the guess, the rest as weighed
    RowPipeline pipeline = pipeline(2, 4, new RowPipeline.Budget(100_000, row -> 100, 1), true, null);
    pipeline.start(listed(pipeline, this.large));
    this.jobs.run(1);
    List<Long> head = serialIds(this.large.subList(0, 1));
    List<Long> read = new ArrayList<>();
    while (read.size() < head.size()) {
      this.jobs.runAll();
      read.addAll(ids(pipeline.take(false)));
    }
    assertThat(pipeline.take(false)).as("the first chunk, then what the rest of the budget holds at 100 a row")
        .hasSize(FIRST_ROWS + (100_000 - FIRST_ROWS * 100) / 100);
  }

  @Test
  void aJobWeighsASampleOfTheRowsItReadsNotEachOne() {
    AtomicInteger weighed = new AtomicInteger();
    RowPipeline pipeline = pipeline(2, 4, new RowPipeline.Budget(Long.MAX_VALUE, row -> {
      weighed.incrementAndGet();
      return 1;
    }, 1), true, null);
    pipeline.start(listed(pipeline, this.large));
    assertThat(drain(pipeline)).containsExactlyElementsOf(serialIds(this.large));
    assertThat(weighed.get()).as("rows weighed of %d read", 2 * LARGE).isBetween(2 * LARGE / 128, 2 * LARGE / 64);
  }

  // ---- fixtures

  /** Starts the read from {@code source} and offers it a first task whose reader fails with {@code broken}. */
  private void startWithAFirstTaskThatFails(RowPipeline pipeline, RecordingSource source, RuntimeException broken) {
    pipeline.start(source);
    pipeline.offer(this.small.get(0), reader(() -> {
      throw broken;
    }));
  }

  private RowPipeline pipeline(int concurrency, int readAhead, boolean ordered, @Nullable Runnable onChange) {
    return pipeline(concurrency, readAhead, rowsPerTask(readAhead), ordered, onChange);
  }

  /** The budget a test gives unless it says: {@code ROWS_PER_TASK} rows for each task admitted. */
  private static RowPipeline.Budget rowsPerTask(int readAhead) {
    return RowPipeline.Budget.rows((long) readAhead * RowPipeline.ROWS_PER_TASK);
  }

  private RowPipeline pipeline(int concurrency, int readAhead, int budget, boolean ordered,
      @Nullable Runnable onChange) {
    return pipeline(concurrency, readAhead, RowPipeline.Budget.rows(budget), ordered, onChange);
  }

  private RowPipeline pipeline(int concurrency, int readAhead, RowPipeline.Budget budget, boolean ordered,
      @Nullable Runnable onChange) {
    RowPipeline pipeline = new RowPipeline("the test's rows", this.jobs, concurrency, readAhead, budget, ordered,
        onChange, false);
    this.pipelines.add(pipeline);
    return pipeline;
  }

  /** A pipeline whose reader reads the tasks itself, one at a time. */
  private RowPipeline inline(RowPipeline.Budget budget, boolean ordered) {
    RowPipeline pipeline = new RowPipeline("the test's rows", this.jobs, 1, 2, budget, ordered, null, true);
    this.pipelines.add(pipeline);
    return pipeline;
  }

  /** The plan's tasks as a whole plan's source offers them, all read by the plan's reader. */
  private RecordingSource listed(RowPipeline pipeline, List<FileScanTask> tasks) {
    return new RecordingSource(TaskSources.of(pipeline, tasks, this.reader));
  }

  /** A reader of the plan's files that runs {@code checkOpen} first at every open: a failure there is the read's. */
  private TaskReader reader(Runnable checkOpen) {
    return TaskReader.forPlan(this.plan.io(), this.scan, checkOpen);
  }

  /** Every row, read without blocking: the jobs run until the end; a read that could only wait for good fails. */
  private List<Long> drain(RowPipeline pipeline) {
    List<Long> read = new ArrayList<>();
    while (true) {
      this.jobs.runAll();
      ArrayDeque<Record> rows = pipeline.take(false);
      if (rows == RowPipeline.END) {
        return read;
      }
      if (rows != null) {
        read.addAll(ids(rows));
      }
      else if (this.jobs.size() == 0) {
        throw new AssertionError("no rows, no end and no job to bring them: a waiting reader would wait for good");
      }
    }
  }

  /** Every row, as a blocking reader takes them. */
  private static List<Long> readAll(RowPipeline pipeline) {
    List<Long> read = new ArrayList<>();
    for (ArrayDeque<Record> rows = pipeline.take(true); rows != RowPipeline.END; rows = pipeline.take(true)) {
      read.addAll(ids(rows));
    }
    return read;
  }

  /** The ids the tasks hold, each task read on its own, one after the other. */
  private List<Long> serialIds(List<FileScanTask> tasks) {
    List<Long> ids = new ArrayList<>();
    for (FileScanTask task : tasks) {
      ids.addAll(ids(TestRows.readAll(this.plan.rows(task))));
    }
    return ids;
  }

  private static List<Long> ids(@Nullable Iterable<Record> rows) {
    assertThat(rows).isNotNull().isNotSameAs(RowPipeline.END);
    List<Long> ids = new ArrayList<>();
    rows.forEach(row -> ids.add((Long) row.getField("id")));
    return ids;
  }

  /** The reading executor: holds the jobs it is given until the test runs them, on the test's thread. */
  private static final class Jobs implements Executor {

    private final List<Runnable> queued = new ArrayList<>();

    @Override
    public synchronized void execute(Runnable job) {
      this.queued.add(job);
    }

    synchronized int size() {
      return this.queued.size();
    }

    /** Runs the job at {@code position} of those held, in the order they were given. */
    void run(int position) {
      Runnable job;
      synchronized (this) {
        job = this.queued.remove(position);
      }
      job.run();
    }

    /** Runs every job held, and those they give, until none is left. */
    void runAll() {
      while (size() > 0) {
        run(0);
      }
    }
  }

  /** A source that counts what it is asked, and offers what {@code tasks} offers, or nothing: then the test does. */
  private static final class RecordingSource implements RowPipeline.Source {

    private final RowPipeline.@Nullable Source tasks;
    final AtomicInteger requested = new AtomicInteger();
    final AtomicInteger cancels = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();

    RecordingSource(RowPipeline.@Nullable Source tasks) {
      this.tasks = tasks;
    }

    @Override
    public void request(int count) {
      this.requested.addAndGet(count);
      if (this.tasks != null) {
        this.tasks.request(count);
      }
    }

    @Override
    public void cancel() {
      this.cancels.incrementAndGet();
      if (this.tasks != null) {
        this.tasks.cancel();
      }
    }

    @Override
    public void close() {
      this.closes.incrementAndGet();
      if (this.tasks != null) {
        this.tasks.close();
      }
    }
  }

  /** Work on a thread of its own, which the test can see waiting. */
  private static final class Background<T> {

    final CompletableFuture<T> result = new CompletableFuture<>();
    private final Thread thread;

    Background(Supplier<T> work) {
      this.thread = new Thread(() -> {
        try {
          this.result.complete(work.get());
        }
        catch (Throwable failure) {
          this.result.completeExceptionally(failure);
        }
      }, "row-pipeline-test");
      this.thread.setDaemon(true);
      this.thread.start();
    }

    /** Until the work waits (or is done: then what it did tells). */
    void awaitBlocked() {
      await().atMost(BOUND).until(() -> this.result.isDone() || this.thread.getState() == Thread.State.WAITING
          || this.thread.getState() == Thread.State.TIMED_WAITING);
    }

    T get() throws Exception {
      return this.result.get(BOUND.toSeconds(), TimeUnit.SECONDS);
    }
  }
}
