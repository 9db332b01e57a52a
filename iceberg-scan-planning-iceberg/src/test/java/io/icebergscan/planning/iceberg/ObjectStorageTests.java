package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedS3.S3Credentials;
import io.icebergscan.planning.test.EmbeddedS3;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * Reading from object storage for real: the embedded catalog keeps its warehouse in an S3 API server in the JVM
 * ({@link EmbeddedS3}: S3Proxy, which checks every request's signature), and this module reads what it plans there
 * with Apache Iceberg's {@code S3FileIO}, opening files with the credentials the catalog vends and with none of its
 * own: the client is given the catalog's URI and nothing else but, where a test says so, its HTTP pool's size. The
 * store and the catalog start once for the class; each test makes tables of its own and sets the catalog's vending.
 *
 * <p>What is shown: rows read through the plan's vended credentials equal Iceberg's own reads and the same rows in
 * the in-memory catalog; a wrong or expired credential fails the task it opens with a {@link TaskReadException}
 * naming the data file, S3's 403 as the cause; credentials that stop being accepted part-way through a read are
 * loaded again through {@code GET …/credentials} and the read completes; and many files read at once by many threads
 * leave no S3 object body open and no connection leased.
 */
class ObjectStorageTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "category", Types.StringType.get()));
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  private static final String NAMESPACE = "stored";
  /** How long the credentials the catalog vends hold, on the store's (and the planner's) clock. */
  private static final Duration VALIDITY = Duration.ofMinutes(30);

  private static final PlanFileIOTest.TestClock CLOCK =
      new PlanFileIOTest.TestClock(Instant.parse("2026-06-01T08:00:00Z").toEpochMilli());
  private static EmbeddedS3 s3;
  private static EmbeddedIcebergCatalog catalog;
  private static EmbeddedIcebergCatalog inMemory;
  private static ScanPlanner inMemoryPlanner;

  /** This test's planner, made after the test sets the catalog's knobs: it reads {@code /v1/config} once. */
  private ScanPlanner planner;

  /** Every credential the catalog vended, with the endpoint it answered, in order. */
  private final Queue<Vended> vended = new ConcurrentLinkedQueue<>();

  private record Vended(Endpoint endpoint, S3Credentials credentials) {
  }

  @BeforeAll
  static void start() {
    s3 = EmbeddedS3.create().clock(CLOCK).start();
    catalog = EmbeddedIcebergCatalog.create(s3).start();
    inMemory = EmbeddedIcebergCatalog.create().start();
    inMemoryPlanner = ScanPlanner.builder().uri(inMemory.uri()).build();
  }

  @AfterAll
  static void stop() {
    inMemoryPlanner.close();
    inMemory.close();
    catalog.close();
    s3.close();
  }

  @AfterEach
  void vendNothing() {
    if (this.planner != null) {
      this.planner.close();
    }
    catalog.vendedCredentials(null).credentialsEndpoint(true);
  }

  /** Table shapes: data files of both formats, position and equality deletes, deletion vectors, partitions. */
  static Stream<Arguments> shapes() {
    return Stream.of(
        arguments("v2_avro_position_and_equality_deletes", (Consumer<EmbeddedTable>) table -> {
          List<DataFile> files = new ArrayList<>();
          for (int i = 0; i < 3; i++) {
            files.addAll(table.writeRows(FileFormat.AVRO, rows(table, i * 10L, 10)));
          }
          table.append(files);
          table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, files.get(0), 0, 4),
              table.writePositionDeletes(FileFormat.AVRO, files.get(2), 3),
              table.writeEqualityDeletes(FileFormat.AVRO, List.of(key(table, 13), key(table, 17)), 1));
        }),
        arguments("v2_parquet_partitioned_position_and_equality_deletes", (Consumer<EmbeddedTable>) table -> {
          List<DataFile> files = table.writeRows(FileFormat.PARQUET, rows(table, 0, 40));
          table.append(files);
          // rows named name-6 in partition b; the partition's column is set as the file belongs to it
          Record named = table.newRecord(0L, "name-6", "b");
          table.addDeletes(table.writePositionDeletes(FileFormat.PARQUET, files.get(0), 1, 2),
              table.writeEqualityDeletes(FileFormat.PARQUET, List.of(named), 2, 3));
          table.appendRows(FileFormat.PARQUET, rows(table, 40, 10));
        }),
        arguments("v3_deletion_vectors_avro_and_parquet", (Consumer<EmbeddedTable>) table -> {
          List<DataFile> avro = table.writeRows(FileFormat.AVRO, rows(table, 0, 20));
          List<DataFile> parquet = table.writeRows(FileFormat.PARQUET, rows(table, 20, 20));
          List<DataFile> all = new ArrayList<>(avro);
          all.addAll(parquet);
          table.append(all);
          List<DeleteFile> deletes = new ArrayList<>();
          deletes.add(table.writeDeletionVector(avro.get(0), 0, 3));
          deletes.add(table.writeDeletionVector(parquet.get(1), 2));
          deletes.add(table.writeEqualityDeletes(FileFormat.AVRO, List.of(key(table, 25)), 1));
          table.rowDelta(List.of(), deletes);
        }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("shapes")
  void rowsReadThroughThePlansVendedCredentialsEqualIcebergsReadAndTheInMemoryCatalogs(String name,
      Consumer<EmbeddedTable> shape) {
    int formatVersion = name.startsWith("v3") ? 3 : 2;
    EmbeddedTable stored = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA, BY_CATEGORY, formatVersion);
    EmbeddedTable same = inMemory.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA, BY_CATEGORY, formatVersion);
    shape.accept(stored);
    shape.accept(same);
    vendFromTheStore();

    IcebergScanPlanner iceberg = iceberg();
    List<List<Object>> read;
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, stored), IcebergScan.all())) {
      assertThat(plan.io().properties()).as("the client's own FileIO settings: the catalog's, no key")
          .containsEntry("io-impl", "org.apache.iceberg.aws.s3.S3FileIO").containsEntry("s3.endpoint", s3.endpoint())
          .doesNotContainKeys("s3.access-key-id", "s3.secret-access-key", "s3.session-token");
      read = values(TestRows.readAll(plan.rows()));
    }
    assertThat(vended(Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN)).as("the plan's credentials, which opened its files")
        .singleElement().satisfies(credentials -> assertThat(s3.requests(credentials)).isPositive());

    List<List<Object>> icebergRead = icebergRead(stored);
    IcebergScanPlanner inMemoryIceberg = IcebergScanPlanner.builder(inMemoryPlanner).build();
    List<List<Object>> inMemoryRead;
    try (IcebergScanPlan plan = inMemoryIceberg.plan(load(inMemoryIceberg, same), IcebergScan.all())) {
      inMemoryRead = values(TestRows.readAll(plan.rows()));
    }
    assertThat(read).as("as Iceberg reads the stored table").isNotEmpty()
        .containsExactlyInAnyOrderElementsOf(icebergRead)
        .as("as this module reads the same rows in memory").containsExactlyInAnyOrderElementsOf(inMemoryRead);
  }

  @Test
  void aWrongSecretFailsTheTaskNamingItsDataFileWithS3sRefusalAsTheCause() {
    EmbeddedTable table = dataFiles("wrong_secret", 2);
    catalog.vendedCredentials(request -> List.of(
        s3.storageCredential(s3.issueCredentials(VALIDITY).withSecretAccessKey("not-the-secret"))));
    IcebergScanPlanner iceberg = iceberg();
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all())) {
      assertRefusedByS3(plan, "SignatureDoesNotMatch");
    }
  }

  @Test
  void anExpiredCredentialFailsTheTaskNamingItsDataFileWithS3sRefusalAsTheCause() {
    EmbeddedTable table = dataFiles("expired", 2);
    // no refresh: the credentials the plan carries are all the reader has
    catalog.credentialsEndpoint(false);
    vendFromTheStore();
    IcebergScanPlanner iceberg = iceberg();
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all())) {
      CLOCK.advance(VALIDITY.plusSeconds(1));
      assertRefusedByS3(plan, "InvalidAccessKeyId");
    }
  }

  @Test
  void withoutVendedCredentialsTheClientHasNoneOfItsOwnAndFailsNamingTheFile() {
    assertThat(System.getProperty("aws.disableEc2Metadata")).as("the build keeps the SDK off the network: "
        + "-Daws.disableEc2Metadata=true").isEqualTo("true");
    EmbeddedTable table = dataFiles("unvended", 1);
    IcebergScanPlanner iceberg = iceberg();
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all())) {
      assertThat(plan.scanPlan().storageCredentials()).isEmpty();
      String dataFile = plan.tasks().get(0).file().location();
      assertThatThrownBy(() -> TestRows.readAll(plan.rows())).isInstanceOf(TaskReadException.class)
          .hasMessageContaining(dataFile).hasMessageContaining("Unable to load credentials");
    }
  }

  @Test
  void credentialsThatStopBeingAcceptedPartWayAreLoadedAgainAndTheReadCompletes() throws IOException {
    EmbeddedTable table = oneRowDeletedFromEachFile("refreshed");
    vendFromTheStore();
    IcebergScanPlanner iceberg = iceberg();
    List<Record> read = new ArrayList<>();
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all());
        CloseableIterable<Record> rows = fileAfterFile(plan); CloseableIterator<Record> iterator = rows.iterator()) {
      assertThat(plan.tasks()).hasSize(6);
      catalog.resetRequestCounts();
      readTasksOf(iterator, 3, read);
      assertThat(vended(Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN)).singleElement()
          .satisfies(planned -> assertThat(s3.requests(planned)).isPositive());
      assertThat(vended(Endpoint.V1_TABLE_CREDENTIALS)).isEmpty();

      // Three files in, the store stops accepting the plan's credentials, as S3 does once a session expires; the
      // planner's clock says so too, so the next file opened loads them again through the catalog.
      CLOCK.advance(VALIDITY.plusSeconds(1));
      iterator.forEachRemaining(read::add);

      assertThat(catalog.requestCounts().credentials()).as("one refresh, for the first file after the expiry")
          .isEqualTo(1);
      assertThat(vended(Endpoint.V1_TABLE_CREDENTIALS)).singleElement()
          .satisfies(refreshed -> assertThat(s3.requests(refreshed)).isPositive());
    }
    assertThat(values(read)).hasSize(54).containsExactlyInAnyOrderElementsOf(icebergRead(table));
  }

  @Test
  void withoutTheCredentialsEndpointTheSameReadFailsOnceTheCredentialsStopBeingAccepted() throws IOException {
    EmbeddedTable table = oneRowDeletedFromEachFile("not_refreshed");
    catalog.credentialsEndpoint(false);
    vendFromTheStore();
    IcebergScanPlanner iceberg = iceberg();
    List<Record> read = new ArrayList<>();
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all());
        CloseableIterable<Record> rows = fileAfterFile(plan); CloseableIterator<Record> iterator = rows.iterator()) {
      readTasksOf(iterator, 3, read);
      List<String> unread = plan.tasks().subList(3, 6).stream().map(task -> task.file().location()).toList();

      CLOCK.advance(VALIDITY.plusSeconds(1));
      assertThatThrownBy(() -> iterator.forEachRemaining(read::add)).isInstanceOf(TaskReadException.class)
          .satisfies(failure -> assertThat(((TaskReadException) failure).dataFile()).isEqualTo(unread.get(0)))
          .satisfies(failure -> assertThat(s3Refusal(failure).statusCode()).isEqualTo(403));
    }
    assertThat(read).hasSize(27);
  }

  /**
   * Sixteen threads at once read 64 files of one format through one plan, each taking whole tasks with
   * {@code plan.rows(task)}: three tasks in four read to the end, every fourth closed after its first row; then the
   * plan's own reader, at its read concurrency of 16, is closed after one row three times. The S3
   * client's pool is capped below the number of threads, so they contend for its connections. Afterwards no object
   * body is left open, all the pool's connections can be leased at once, and the whole plan reads again in bounded
   * time.
   */
  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void readingManyFilesAtOnceLeavesNoObjectOpenAndNoConnectionLeased(FileFormat format) throws Exception {
    int files = 64;
    int rowsPerFile = 100;
    int threads = 16;
    int connections = 8;
    // one file a partition: one write of all the rows makes them all
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "many_" + format), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).truncate("id", rowsPerFile).build(), 2);
    List<DataFile> written = table.writeRows(format, wideRows(table, 0, files * rowsPerFile));
    assertThat(written).hasSize(files);
    table.append(written);
    vendFromTheStore();
    // the pool's size and how long a request waits for a connection from it: HTTP client settings, not credentials
    IcebergScanPlanner iceberg = iceberg(Map.of(
        "http-client.apache.max-connections", Integer.toString(connections),
        "http-client.apache.connection-acquisition-timeout-ms", "5000"));
    String location = table.table().location();

    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all())) {
      assertThat(plan.tasks()).hasSize(files);
      // every fourth task is closed after its first row
      Queue<Read> pending = new ConcurrentLinkedQueue<>();
      for (int i = 0; i < files; i++) {
        pending.add(new Read(plan.tasks().get(i), i % 4 == 3));
      }
      AtomicLong rowsRead = new AtomicLong();
      CyclicBarrier together = new CyclicBarrier(threads);
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      try {
        List<Future<?>> readers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          readers.add(pool.submit(() -> {
            together.await(10, TimeUnit.SECONDS);
            for (Read read = pending.poll(); read != null; read = pending.poll()) {
              rowsRead.addAndGet(read.closeEarly() ? readFirstRowAndClose(plan, read.task())
                  : TestRows.readAll(plan.rows(read.task())).size());
            }
            return null;
          }));
        }
        for (Future<?> reader : readers) {
          try {
            reader.get(60, TimeUnit.SECONDS);
          }
          catch (ExecutionException failed) {
            throw new AssertionError(threads + " threads reading " + files + " " + format + " files over "
                + connections + " connections: " + failed.getCause().getMessage(), failed.getCause());
          }
        }
      }
      finally {
        pool.shutdownNow();
      }
      assertThat(rowsRead.get()).isEqualTo(files / 4 * 3 * rowsPerFile + files / 4);
      // and the plan's own reader, 16 tasks at a time over the 8 connections, closed after its first row: the
      // files its jobs had open are closed, whether their rows were taken or not
      for (int read = 0; read < 3; read++) {
        try (CloseableIterator<Record> rows = plan.rows().iterator()) {
          assertThat(rows.next()).isNotNull();
        }
      }

      List<String> leftOpen = S3ResponseBodies.openUnder(location);

      assertTimeoutPreemptively(Duration.ofSeconds(30), () -> leaseEveryConnection(plan, connections),
          "every connection of the pool leased at once: none is held by a read that returned");
      assertThat(assertTimeoutPreemptively(Duration.ofSeconds(60), () -> TestRows.readAll(plan.rows()).size(),
          "the whole plan read again")).isEqualTo(files * rowsPerFile);
      // A body read to its end gives its connection back even when left open, so the pool alone does not see
      // every stream a read forgets to close: the bodies do.
      assertThat(leftOpen).as("S3 object bodies the reads left open").isEmpty();
    }
  }

  /**
   * What the test above measures with: the pool's cap is the client's, so with every connection leased the next
   * request waits for one and fails after the acquisition timeout, rather than the pool growing.
   */
  @Test
  void withEveryConnectionOfTheCappedPoolLeasedTheNextRequestFailsAfterTheAcquisitionTimeout() throws IOException {
    EmbeddedTable table = dataFiles("full_pool", 3);
    vendFromTheStore();
    IcebergScanPlanner iceberg = iceberg(Map.of("http-client.apache.max-connections", "2",
        "http-client.apache.connection-acquisition-timeout-ms", "200", "s3.retry.num-retries", "0"));
    try (IcebergScanPlan plan = iceberg.plan(load(iceberg, table), IcebergScan.all())) {
      assertThatThrownBy(() -> leaseEveryConnection(plan, 3)).isInstanceOf(SdkClientException.class)
          .hasMessageContaining("Timeout");
      leaseEveryConnection(plan, 2);
    }
  }

  private record Read(FileScanTask task, boolean closeEarly) {
  }

  /**
   * Reads the first row of a task and closes its rows, as a reader that stops early does: it closes the iterable it
   * opened, which closes the iterators it handed out (as Iceberg's {@code CloseableGroup} does).
   */
  private static int readFirstRowAndClose(IcebergScanPlan plan, FileScanTask task) throws IOException {
    try (CloseableIterable<Record> rows = plan.rows(task)) {
      assertThat(rows.iterator().next()).isNotNull();
    }
    return 1;
  }

  /**
   * Opens an object for each of the pool's connections and reads a byte from each, holding them all: a request
   * waits for a free connection, and fails after the acquisition timeout, so this returns only when none is leased
   * by anything else.
   */
  private static void leaseEveryConnection(IcebergScanPlan plan, int connections) throws IOException {
    List<InputStream> held = new ArrayList<>();
    try {
      for (FileScanTask task : plan.tasks().subList(0, connections)) {
        InputStream stream = plan.io().newInputFile(task.file().location()).newStream();
        held.add(stream);
        assertThat(stream.read()).isNotNegative();
      }
    }
    finally {
      for (InputStream stream : held) {
        stream.close();
      }
    }
  }

  private static void assertRefusedByS3(IcebergScanPlan plan, String errorCode) {
    List<String> dataFiles = plan.tasks().stream().map(task -> task.file().location()).toList();
    List<Record> read = new ArrayList<>();
    assertThatThrownBy(() -> plan.rows().forEach(read::add)).isInstanceOf(TaskReadException.class)
        .satisfies(failure -> assertThat(((TaskReadException) failure).dataFile()).isIn(dataFiles))
        .satisfies(failure -> assertThat(failure).hasMessageContaining(((TaskReadException) failure).dataFile()))
        .satisfies(failure -> {
          S3Exception refusal = s3Refusal(failure);
          assertThat(refusal.statusCode()).isEqualTo(403);
          assertThat(refusal.awsErrorDetails().errorCode()).isEqualTo(errorCode);
        });
    assertThat(read).as("no row of a task that could not be read").isEmpty();
  }

  private static S3Exception s3Refusal(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof S3Exception refusal) {
        return refusal;
      }
    }
    throw new AssertionError("no S3Exception among the causes of " + failure, failure);
  }

  /**
   * One read of all the plan's tasks that opens each file only when the one before is done: the tasks as one
   * combined task, read on the calling thread. A test that changes the credentials between two files needs the
   * later ones unopened, whatever number of tasks {@code plan.rows()} reads ahead.
   */
  private static CloseableIterable<Record> fileAfterFile(IcebergScanPlan plan) {
    return plan.rows(new BaseCombinedScanTask(plan.tasks()));
  }

  /** Reads the rows of the first {@code tasks} tasks (9 rows each), and not one more. */
  private static void readTasksOf(CloseableIterator<Record> iterator, int tasks, List<Record> read) {
    for (int i = 0; i < 9 * tasks; i++) {
      read.add(iterator.next());
    }
  }

  /** The module's planner over the catalog, with the settable clock and no FileIO properties of its own. */
  private IcebergScanPlanner iceberg() {
    return iceberg(Map.of());
  }

  private IcebergScanPlanner iceberg(Map<String, String> fileIoProperties) {
    this.planner = ScanPlanner.builder().uri(catalog.uri()).build();
    return IcebergScanPlanner.builder(this.planner).clock(CLOCK).fileIoProperties(fileIoProperties).build();
  }

  /** Vends fresh credentials of the store with every table load, plan and refresh, and keeps them to look at. */
  private void vendFromTheStore() {
    catalog.vendedCredentials(request -> {
      S3Credentials credentials = s3.issueCredentials(VALIDITY);
      this.vended.add(new Vended(request.endpoint(), credentials));
      return List.of(s3.storageCredential(credentials));
    });
  }

  private List<S3Credentials> vended(Endpoint endpoint) {
    return this.vended.stream().filter(vended -> vended.endpoint().equals(endpoint)).map(Vended::credentials).toList();
  }

  /** An unpartitioned table of Avro files of 5 rows each. */
  private static EmbeddedTable dataFiles(String name, int count) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA);
    for (int i = 0; i < count; i++) {
      table.appendRows(FileFormat.AVRO, rows(table, i * 5L, 5));
    }
    return table;
  }

  /** Three Avro and three Parquet files of 10 rows, each with its own position delete file deleting one row. */
  private static EmbeddedTable oneRowDeletedFromEachFile(String name) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA);
    List<DataFile> files = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      files.addAll(table.writeRows(i < 3 ? FileFormat.AVRO : FileFormat.PARQUET, rows(table, i * 10L, 10)));
    }
    table.append(files);
    List<DeleteFile> deletes = new ArrayList<>();
    for (DataFile file : files) {
      deletes.add(table.writePositionDeletes(file.format(), file, 7));
    }
    table.rowDelta(List.of(), deletes);
    return table;
  }

  /** The rows as Iceberg reads them itself, on the catalog's own table (and its own credentials). */
  private static List<List<Object>> icebergRead(EmbeddedTable table) {
    return values(TestRows.readAll(IcebergGenerics.read(table.table()).build()));
  }

  private static IcebergTable load(IcebergScanPlanner iceberg, EmbeddedTable table) {
    return iceberg.loadTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, table.identifier().name()));
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    // one template: EmbeddedTable.newRecord loads the table, which here reads its metadata from the store, each time
    Record template = table.newRecord();
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      rows.add(template.copy(Map.of("id", id, "name", "name-" + (id % 7), "category", id % 2 == 0 ? "a" : "b")));
    }
    return rows;
  }

  /**
   * Rows of about a kilobyte, which do not compress: a file of a hundred is larger than a reader takes in at its
   * first read, so a file closed after one row still has most of its body to come over its connection.
   */
  private static List<Record> wideRows(EmbeddedTable table, long from, int count) {
    List<Record> rows = rows(table, from, count);
    SplittableRandom random = new SplittableRandom(from);
    for (Record row : rows) {
      StringBuilder name = new StringBuilder();
      while (name.length() < 1024) {
        name.append(Long.toHexString(random.nextLong()));
      }
      row.setField("name", name.toString());
    }
    return rows;
  }

  private static Record key(EmbeddedTable table, long id) {
    Record key = table.newRecord();
    key.setField("id", id);
    return key;
  }

  /**
   * Rows as lists of the table's column values, to compare as multisets whatever record class holds them and
   * whatever else they carry ({@code IcebergGenerics} adds {@code _pos} to rows of files with position deletes).
   */
  private static List<List<Object>> values(List<Record> rows) {
    List<List<Object>> values = new ArrayList<>(rows.size());
    for (Record row : rows) {
      List<Object> fields = new ArrayList<>();
      SCHEMA.columns().forEach(column -> fields.add(row.getField(column.name())));
      values.add(Collections.unmodifiableList(fields));
    }
    return values;
  }
}
