package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.encryption.EncryptedOutputFile;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.formats.FormatModel;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ModelWriteBuilder;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.mapping.NameMapping;
import org.apache.iceberg.types.Types;
import org.awaitility.core.ConditionFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What reading leaves open, counted by {@link CountingFileIO}: no input stream and no FileIO, for Avro and for
 * Parquet, through every way rows are read (a plan's {@code rows()} in task order, as read and as a {@code Flux}, one
 * task's, one split's, a streamed plan's {@code readRows()}, as an iterator and as a {@code Flux}, and
 * {@code streamRows()}, as Iceberg's records and as the application's), whether the rows are read to the end, closed
 * after the first row (a {@code Flux} taken to one row), closed from another thread, or end in a failure.
 * Each read is of a table without deletes and of one with a deletion vector and an equality delete file, whose
 * streams count too, and each but a task's and a split's (refused on a restricted table) is made again by a caller
 * the catalog restricts (a row filter and a mask). A task's own rows ({@link IcebergScanPlan#rows(FileScanTask)})
 * close their file themselves, once read to the end or failed part way, before they are closed.
 */
class ReadResourcesTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "resources";
  private static final int FILES = 4;
  private static final int ROWS_PER_FILE = 5;
  private static final Duration BOUND = Duration.ofSeconds(30);
  /** An Avro table of one file whose header reads and whose block does not. */
  private static final String CORRUPT_BLOCK = "avro_corrupt_block";
  /** A table of one ORC file, read by {@link OpensThenFails}. */
  private static final String OPENS_THEN_FAILS = "orc_opens_then_fails";

  /** The token of a caller the catalog serves read restrictions: a row filter and a mask. */
  private static final String GOVERNED = "governed-token";

  /** A row as the application's own record. */
  record Row(long id, @Nullable String name) {
  }

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static ScanPlanner governedPlanner;

  /** How rows are read. */
  enum Entry {
    PLAN_ROWS, PLAN_ROWS_AS_READ, PLAN_ROWS_FLUX, TASK_ROWS, SPLIT_ROWS, READ_ROWS, READ_ROWS_FLUX, STREAM_ROWS,
    STREAM_ROWS_TYPED
  }

  /** How a read ends. */
  enum Ending {
    /** Every row read, then the rows closed. */
    FULL,
    /** The rows closed after the first row. */
    EARLY_CLOSE,
    /** The rows closed after the first row, by another thread. */
    CLOSE_FROM_ANOTHER_THREAD,
    /** A data file is missing: the read fails, then the rows are closed. */
    FAILURE
  }

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    for (FileFormat format : List.of(FileFormat.AVRO, FileFormat.PARQUET)) {
      for (boolean broken : new boolean[] { false, true }) {
        table(format, broken, false);
        table(format, broken, true);
      }
    }
    corruptBlockTable();
    opensThenFailsTable();
    governedPlanner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4)
        .header("Authorization", "Bearer " + GOVERNED).build();
  }

  @AfterAll
  static void stop() {
    planner.close();
    governedPlanner.close();
    catalog.close();
  }

  static Stream<Arguments> reads() {
    List<Arguments> reads = new ArrayList<>();
    for (FileFormat format : List.of(FileFormat.AVRO, FileFormat.PARQUET)) {
      for (Entry entry : Entry.values()) {
        for (Ending ending : Ending.values()) {
          for (boolean restricted : new boolean[] { false, true }) {
            if (restricted && (entry == Entry.TASK_ROWS || entry == Entry.SPLIT_ROWS)) {
              continue;
            }
            for (int concurrency : readConcurrencies(entry)) {
              reads.add(arguments(format, entry, ending, true, restricted, concurrency));
              reads.add(arguments(format, entry, ending, false, restricted, concurrency));
            }
          }
        }
      }
    }
    return reads.stream();
  }

  /**
   * The default read concurrency, and for the iterators of a read of several tasks also 1, where the iterator's own
   * thread reads them.
   */
  private static int[] readConcurrencies(Entry entry) {
    int otherwise = IcebergScanPlanner.Builder.DEFAULT_READ_CONCURRENCY;
    return entry == Entry.PLAN_ROWS || entry == Entry.PLAN_ROWS_AS_READ || entry == Entry.READ_ROWS
        ? new int[] { otherwise, 1 } : new int[] { otherwise };
  }

  @ParameterizedTest(name = "{0} {1} {2}, deletes: {3}, restricted: {4}, read concurrency {5}")
  @MethodSource("reads")
  void nothingIsLeftOpen(FileFormat format, Entry entry, Ending ending, boolean deletes, boolean restricted,
      int readConcurrency) {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(restricted ? governedPlanner : planner)
        .fileIoProperties(scope.fileIoProperties()).readConcurrency(readConcurrency).build();
    IcebergTable table = iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE,
        name(format, ending == Ending.FAILURE, deletes)));
    assertThat(table.readRestrictions().isEmpty()).isEqualTo(!restricted);
    int failures = 0;
    if (entry == Entry.READ_ROWS) {
      failures += read(ending, iceberg.readRows(table, IcebergScan.all()));
    }
    else if (entry == Entry.READ_ROWS_FLUX) {
      failures += read(ending, iceberg.readRows(table, IcebergScan.all()).flux());
    }
    else if (entry == Entry.STREAM_ROWS) {
      failures += read(ending, iceberg.streamRows(table.identifier(), IcebergScan.all()));
    }
    else if (entry == Entry.STREAM_ROWS_TYPED) {
      failures += read(ending, iceberg.streamRows(table.identifier(), IcebergScan.all(), Row.class));
    }
    else {
      try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all())) {
        if (entry == Entry.PLAN_ROWS_FLUX) {
          failures += read(ending, plan.rows().flux());
        }
        else {
          for (CloseableIterable<Record> rows : rows(plan, entry)) {
            failures += read(ending, rows);
          }
        }
        // a Flux's jobs close their files as they notice the cancel, after it returned
        settled().untilAsserted(() -> assertThat(scope.openStreams())
            .as("streams open once the rows are closed: %s", scope).isZero());
      }
    }
    assertThat(failures).as("reads that failed").isEqualTo(ending == Ending.FAILURE ? 1 : 0);
    assertThat(scope.streamsOpened()).as("the read opened files").isPositive();
    settled().untilAsserted(() -> {
      assertThat(scope.openStreams()).as("%s", scope).isZero();
      assertThat(scope.openFileIOs()).as("%s", scope).isZero();
    });
    iceberg.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void aTasksRowsCloseTheirFileOnceTheLastRowIsReadBeforeTheyAreClosed(FileFormat format) throws IOException {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = counting(scope);
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(ours(name(format, false, false))), IcebergScan.all())) {
      CloseableIterable<Record> rows = plan.rows(plan.tasks().get(0));
      CloseableIterator<Record> iterator = rows.iterator();
      int read = 0;
      while (iterator.hasNext()) {
        iterator.next();
        read++;
      }
      assertThat(read).isEqualTo(ROWS_PER_FILE);
      assertThat(scope.streamsOpened()).as("the read opened its file").isPositive();
      assertThat(scope.openStreams()).as("open once the last row was read: %s", scope).isZero();
      assertThat(iterator.hasNext()).as("still at its end").isFalse();
      rows.close();
    }
  }

  @Test
  void aTasksRowsClosedBeforeTheirEndCloseTheirFileAndHaveNoMoreRows() throws IOException {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = counting(scope);
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(ours(name(FileFormat.AVRO, false, false))),
            IcebergScan.all())) {
      CloseableIterator<Record> iterator = plan.rows(plan.tasks().get(0)).iterator();
      assertThat(iterator.hasNext()).isTrue();
      iterator.next();
      iterator.close();
      assertThat(scope.openStreams()).as("%s", scope).isZero();
      assertThat(iterator.hasNext()).isFalse();
    }
  }

  @Test
  void aTaskWhoseFileFailsPartWayClosesItBeforeTheFailureReachesTheReader() {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = counting(scope);
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(ours(CORRUPT_BLOCK)), IcebergScan.all())) {
      String location = plan.tasks().get(0).file().location();
      CloseableIterator<Record> iterator = plan.rows(plan.tasks().get(0)).iterator();
      assertThat(scope.openStreams()).as("the file is open once its header was read").isOne();
      // the rows are not closed: the failure closed the file
      assertThatThrownBy(iterator::hasNext).isInstanceOf(TaskReadException.class).hasMessageContaining(location);
      assertThat(scope.openStreams()).as("%s", scope).isZero();
    }
  }

  @Test
  void aFailureToCloseTheFileOfATaskThatFailedPartWayIsSuppressedInTheTasksFailure() {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = counting(scope);
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(ours(CORRUPT_BLOCK)), IcebergScan.all())) {
      String location = plan.tasks().get(0).file().location();
      scope.failClosing(location);
      CloseableIterator<Record> iterator = plan.rows(plan.tasks().get(0)).iterator();
      Throwable failure = catchThrowable(iterator::hasNext);
      assertThat(failure).isInstanceOf(TaskReadException.class).hasMessageContaining(location);
      assertThat(failure.getSuppressed()).as("the failure to close, not lost").anySatisfy(closing -> assertThat(
          closing).isInstanceOf(IOException.class).hasMessageContaining("closing " + location));
      assertThat(scope.openStreams()).as("%s", scope).isZero();
    }
  }

  @Test
  void aReaderThatFailsToStartAfterOpeningItsFileHasTheFileClosedByTheFailure() {
    OpensThenFails.register();
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner iceberg = counting(scope);
        IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(ours(OPENS_THEN_FAILS)), IcebergScan.all())) {
      String location = plan.tasks().get(0).file().location();
      CloseableIterable<Record> rows = plan.rows(plan.tasks().get(0));
      assertThatThrownBy(rows::iterator).isInstanceOf(TaskReadException.class).hasMessageContaining(location)
          .rootCause().hasMessage(OpensThenFails.FAILURE);
      assertThat(scope.streamsOpened()).as("the reader opened the file").isOne();
      assertThat(scope.openStreams()).as("closed without the rows being closed: %s", scope).isZero();
    }
  }

  private static IcebergScanPlanner counting(CountingFileIO.Scope scope) {
    return IcebergScanPlanner.builder(planner).fileIoProperties(scope.fileIoProperties()).build();
  }

  private static org.apache.iceberg.catalog.TableIdentifier ours(String name) {
    return org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, name);
  }

  /** A wait for what a {@code Flux}'s jobs close after its cancel has returned: at once for the others. */
  private static ConditionFactory settled() {
    return await().atMost(BOUND).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5));
  }

  /** The rows of {@code plan} by {@code entry}. */
  private static List<CloseableIterable<Record>> rows(IcebergScanPlan plan, Entry entry) {
    return switch (entry) {
      case PLAN_ROWS -> List.of(plan.rows());
      case PLAN_ROWS_AS_READ -> List.of(plan.rows().unordered());
      case TASK_ROWS -> plan.tasks().stream().map(plan::rows).toList();
      case SPLIT_ROWS -> {
        // no file split, several files a group (a task weighs the open-file cost once more per delete file): a
        // split's rows are several tasks' one after the other
        long size = 1L << 40;
        List<CombinedScanTask> splits = plan.splitTasks(new SplitSettings(size, 1, size / 8));
        assertThat(splits).anySatisfy(split -> assertThat(split.files()).hasSizeGreaterThan(1));
        assertThat(splits.stream().mapToInt(split -> split.files().size()).sum()).isEqualTo(FILES);
        yield splits.stream().map(plan::rows).toList();
      }
      case PLAN_ROWS_FLUX, READ_ROWS, READ_ROWS_FLUX, STREAM_ROWS, STREAM_ROWS_TYPED -> throw new IllegalArgumentException(entry + " is not a plan's");
    };
  }

  /**
   * Reads as {@code ending} says (all of the rows for a failure too), and closes the rows; returns 1 if the read
   * failed, 0 if not.
   */
  private static int read(Ending ending, CloseableIterable<Record> rows) {
    try (rows) {
      if (ending == Ending.EARLY_CLOSE || ending == Ending.CLOSE_FROM_ANOTHER_THREAD) {
        CloseableIterator<Record> iterator = rows.iterator();
        assertThat(iterator.hasNext()).isTrue();
        iterator.next();
        if (ending == Ending.CLOSE_FROM_ANOTHER_THREAD) {
          CompletableFuture.runAsync(() -> {
            try {
              iterator.close();
            }
            catch (IOException closing) {
              throw new UncheckedIOException(closing);
            }
          }).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        return 0;
      }
      int read = 0;
      for (Record ignored : rows) {
        read++;
      }
      assertThat(read).isPositive();
      return 0;
    }
    catch (TaskReadException failed) {
      assertThat(ending).isEqualTo(Ending.FAILURE);
      return 1;
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    catch (InterruptedException | ExecutionException | TimeoutException closing) {
      throw new IllegalStateException(closing);
    }
  }

  /** As {@link #read(Ending, CloseableIterable)}, for rows as a {@code Flux}: a close is a cancel. */
  private static <T> int read(Ending ending, Flux<T> rows) {
    try {
      switch (ending) {
        case FULL -> assertThat(rows.collectList().block(BOUND)).isNotEmpty();
        case EARLY_CLOSE -> assertThat(rows.take(1).blockLast(BOUND)).isNotNull();
        case CLOSE_FROM_ANOTHER_THREAD -> {
          CompletableFuture<T> first = new CompletableFuture<>();
          Disposable subscription = rows.limitRate(1).subscribe(first::complete);
          assertThat(first.get(BOUND.toSeconds(), TimeUnit.SECONDS)).isNotNull();
          CompletableFuture.runAsync(subscription::dispose).get(BOUND.toSeconds(), TimeUnit.SECONDS);
        }
        case FAILURE -> rows.blockLast(BOUND);
      }
      return 0;
    }
    catch (TaskReadException failed) {
      assertThat(ending).isEqualTo(Ending.FAILURE);
      return 1;
    }
    catch (InterruptedException | ExecutionException | TimeoutException waiting) {
      throw new IllegalStateException(waiting);
    }
  }

  /**
   * A v3 table of {@link #FILES} data files, with {@code deletes} a deletion vector on the first and an equality
   * delete file; with {@code broken}, the last data file is missing, so reading all of it fails there.
   */
  private static void table(FileFormat format, boolean broken, boolean deletes) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name(format, broken, deletes)), SCHEMA,
        PartitionSpec.unpartitioned(), 3);
    catalog.readRestrictions(table.identifier(), GOVERNED, RestrictionPolicy.builder()
        .rowFilter(Expressions.notEqual("id", 2L)).mask("name", "mask-alphanum").build());
    List<DataFile> files = new ArrayList<>();
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (long id = file * ROWS_PER_FILE; id < (file + 1) * ROWS_PER_FILE; id++) {
        rows.add(table.newRecord(id, "name-" + id));
      }
      files.addAll(table.writeRows(format, rows));
    }
    table.append(files);
    if (deletes) {
      Record key = table.newRecord();
      key.setField("id", 7L);
      table.addDeletes(table.writeDeletionVector(files.get(0), 1),
          table.writeEqualityDeletes(format, List.of(key), 1));
    }
    if (broken) {
      table.table().io().deleteFile(files.get(FILES - 1).location());
    }
  }

  /**
   * {@link #CORRUPT_BLOCK}: an Avro file of one block whose last byte, of the sync marker after the block, is
   * changed: the header reads, so the rows open; the first {@code hasNext()} reads the block and fails.
   */
  private static void corruptBlockTable() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, CORRUPT_BLOCK), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < ROWS_PER_FILE; id++) {
      rows.add(table.newRecord(id, "name-" + id));
    }
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows);
    table.append(files);
    FileIO io = table.table().io();
    String location = files.get(0).location();
    try {
      byte[] bytes;
      try (InputStream in = io.newInputFile(location).newStream()) {
        bytes = in.readAllBytes();
      }
      bytes[bytes.length - 1] ^= 1;
      try (OutputStream out = io.newOutputFile(location).createOrOverwrite()) {
        out.write(bytes);
      }
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  /** {@link #OPENS_THEN_FAILS}: one ORC data file of five rows, whose bytes {@link OpensThenFails} never reads. */
  private static void opensThenFailsTable() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, OPENS_THEN_FAILS), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    String location = table.table().location() + "/data/rows.orc";
    byte[] bytes = "not read".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    try (OutputStream out = table.table().io().newOutputFile(location).createOrOverwrite()) {
      out.write(bytes);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    table.append(table.dataFile(location, ROWS_PER_FILE).withFormat(FileFormat.ORC).withFileSizeInBytes(bytes.length)
        .build());
  }

  /**
   * A reader of ORC files, which this module's tests have no reader for: its rows open the file and register the
   * stream with their iterable, then fail, as Iceberg's ORC reader registers its file reader before it opens the
   * rows (Iceberg's Avro and Parquet readers register what they opened only once their rows are open). Registered
   * JVM-wide, once: no other test reads ORC.
   */
  private static final class OpensThenFails implements FormatModel<Record, Void>, ReadBuilder<Record, Void> {

    static final String FAILURE = "the rows cannot be opened, as the test wants";
    private static boolean registered;

    private final @Nullable InputFile file;

    private OpensThenFails(@Nullable InputFile file) {
      this.file = file;
    }

    static synchronized void register() {
      if (!registered) {
        // fails if Iceberg has an ORC reader of records here already (iceberg-orc on the test classpath)
        FormatModelRegistry.register(new OpensThenFails(null));
        registered = true;
      }
    }

    @Override
    public FileFormat format() {
      return FileFormat.ORC;
    }

    @Override
    public Class<Record> type() {
      return Record.class;
    }

    @Override
    public Class<Void> schemaType() {
      return Void.class;
    }

    @Override
    public ModelWriteBuilder<Record, Void> writeBuilder(EncryptedOutputFile outputFile) {
      throw new UnsupportedOperationException("a reader only");
    }

    @Override
    public ReadBuilder<Record, Void> readBuilder(InputFile inputFile) {
      return new OpensThenFails(inputFile);
    }

    @Override
    public ReadBuilder<Record, Void> split(long start, long length) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> project(Schema schema) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> engineProjection(Void schema) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> caseSensitive(boolean caseSensitive) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> filter(Expression filter) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> set(String key, String value) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> reuseContainers() {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> recordsPerBatch(int rows) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> idToConstant(java.util.Map<Integer, ?> constants) {
      return this;
    }

    @Override
    public ReadBuilder<Record, Void> withNameMapping(NameMapping mapping) {
      return this;
    }

    @Override
    public CloseableIterable<Record> build() {
      InputFile input = java.util.Objects.requireNonNull(this.file);
      return new Rows(input);
    }

    private static final class Rows extends CloseableGroup implements CloseableIterable<Record> {

      private final InputFile file;

      Rows(InputFile file) {
        this.file = file;
      }

      @Override
      public CloseableIterator<Record> iterator() {
        addCloseable(this.file.newStream());
        throw new IllegalStateException(FAILURE);
      }
    }
  }

  private static String name(FileFormat format, boolean broken, boolean deletes) {
    return format.name().toLowerCase(Locale.ROOT) + (broken ? "_broken" : "") + (deletes ? "_deletes" : "");
  }
}
