package io.icebergscan.planning.iceberg;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog.RecordedRequest;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Loads, plans and reads as a caller, through views of one planner ({@link IcebergScanPlanner#as}) and through a
 * planner that plans as its callers: the catalog serves alice a row filter and a mask and bob nothing, each sees
 * what the catalog serves them, every request of a caller's read (the load, the plan, its fetches, the credential
 * refreshes of its files, its scan report) carries that caller's token, and a table loaded as one caller is never
 * read as another.
 */
class CallerReadsTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.required(3, "region", Types.StringType.get()));
  private static final TableIdentifier PEOPLE = TableIdentifier.of("callers", "people");
  private static final CatalogCredentials ALICE = CatalogCredentials.bearer("alice-token");
  private static final CatalogCredentials BOB = CatalogCredentials.bearer("bob-token");
  private static final String EXPIRES_AT = "s3.session-token-expires-at-ms";

  record Person(long id, String email, String region) {
  }

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static String location;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start().recordRequests(true);
    EmbeddedTable table = catalog.createTable(PEOPLE, SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 6; id++) {
      rows.add(table.newRecord(id, "user" + id + "@example.com", id % 2 == 0 ? "US" : "EU"));
    }
    table.append(table.writeRows(FileFormat.PARQUET, rows));
    location = table.table().location();
    catalog.readRestrictions(PEOPLE, RestrictionPolicy.builder().rowFilter(Expressions.equal("region", "US"))
        .mask("email", "mask-alphanum").build());
    catalog.readRestrictions(PEOPLE, "bob-token", RestrictionPolicy.json("{}"));
    // credentials that expire within the refresh margin: each file a plan opens refreshes them, for that plan
    catalog.vendedCredentials(request -> List.of(StorageCredential.create(location, Map.of(
        RecordingFileIO.ACCESS_KEY, "key-of-" + request.planId(),
        EXPIRES_AT, Long.toString(System.currentTimeMillis() + Duration.ofMinutes(1).toMillis())))));
    planner = ScanPlanner.builder().uri(catalog.uri()).header("Authorization", "Bearer service-token")
        .maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).readConcurrency(4)
        .fileIoProperties(Map.of("io-impl", RecordingFileIO.class.getName())).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @BeforeEach
  void forget() {
    catalog.clearRecordedRequests();
  }

  @Test
  void aliceReadsTheFilteredMaskedRowsAndBobTheRawOnesEachRequestTheirOwn() {
    List<Record> alices = TestRows.readAll(iceberg.as(ALICE).readRows(iceberg.as(ALICE).loadTable(PEOPLE),
        IcebergScan.all()));
    assertThat(alices).extracting(row -> row.getField("id")).containsExactlyInAnyOrder(0L, 2L, 4L);
    assertThat(alices).extracting(row -> (String) row.getField("email"))
        .allSatisfy(email -> assertThat(email).doesNotContain("user").doesNotContain("example"));
    assertOnlyAndRefreshed("Bearer alice-token");

    catalog.clearRecordedRequests();
    List<Record> bobs = TestRows.readAll(iceberg.as(BOB).readRows(iceberg.as(BOB).loadTable(PEOPLE),
        IcebergScan.all()));
    assertThat(bobs).extracting(row -> row.getField("email")).contains("user1@example.com").hasSize(6);
    assertOnlyAndRefreshed("Bearer bob-token");
  }

  @Test
  void aWholePlanOfACallersTableReportsAndRefreshesAsThatCallerWhicheverPlannerItGoesThrough() throws Exception {
    IcebergTable alices = iceberg.as(ALICE).loadTable(PEOPLE);
    try (IcebergScanPlan plan = iceberg.plan(alices, IcebergScan.all()); ScanRows rows = plan.rows()) {
      assertThat(TestRows.readAll(rows)).hasSize(3);
    }
    // the scan report goes out in the background
    await().atMost(Duration.ofSeconds(10)).until(() -> catalog.recordedRequests().stream()
        .anyMatch(request -> request.path().endsWith("/metrics")));
    assertOnlyAndRefreshed("Bearer alice-token");
  }

  @Test
  void aCallersRestrictedTableKeepsEveryRawDoorShutThroughTheCallersView() {
    IcebergScanPlanner alice = iceberg.as(ALICE);
    IcebergTable alices = alice.loadTable(PEOPLE);
    catalog.clearRecordedRequests();
    // refused before anything is sent: tasks, splits, files, metadata and credentials describe or open raw rows
    assertThatThrownBy(() -> alice.planTasks(alices, IcebergScan.all()).blockLast(Duration.ofSeconds(10)))
        .isInstanceOf(RestrictedReadException.class);
    assertThatThrownBy(alices::metadata).isInstanceOf(RestrictedReadException.class);
    assertThatThrownBy(alices::storageCredentials).isInstanceOf(RestrictedReadException.class);
    assertThatThrownBy(alices::config).isInstanceOf(RestrictedReadException.class);
    assertThat(catalog.recordedRequests()).isEmpty();
    try (IcebergScanPlan plan = alice.plan(alices, IcebergScan.all())) {
      assertThatThrownBy(plan::tasks).isInstanceOf(RestrictedReadException.class);
      assertThatThrownBy(plan::splitTasks).isInstanceOf(RestrictedReadException.class);
      assertThatThrownBy(plan::io).isInstanceOf(RestrictedReadException.class);
      assertThatThrownBy(plan::scanPlan).isInstanceOf(RestrictedReadException.class);
    }
    // the refusal of another caller names the table and the call, nothing of its rows
    assertThatThrownBy(() -> iceberg.as(BOB).readRows(alices, IcebergScan.all()))
        .isInstanceOf(CallerMismatchException.class).message().doesNotContain("user").doesNotContain("@");
  }

  @Test
  void aTableLoadedAsOneCallerIsNeverPlannedOrReadAsAnother() {
    IcebergTable alices = iceberg.as(ALICE).loadTable(PEOPLE);
    IcebergTable services = iceberg.loadTable(PEOPLE);
    catalog.clearRecordedRequests();

    IcebergScanPlanner bob = iceberg.as(BOB);
    assertThatThrownBy(() -> bob.readRows(alices, IcebergScan.all())).isInstanceOf(CallerMismatchException.class)
        .hasMessageContaining("readRows() of callers.people");
    assertThatThrownBy(() -> bob.plan(alices, IcebergScan.all())).isInstanceOf(CallerMismatchException.class);
    assertThatThrownBy(() -> bob.planTasks(alices, IcebergScan.all())).isInstanceOf(CallerMismatchException.class);
    // the service's table, whose restrictions are the service's, is no caller's either
    assertThatThrownBy(() -> bob.readRows(services, IcebergScan.all())).isInstanceOf(CallerMismatchException.class);
    assertThat(catalog.recordedRequests()).isEmpty();
  }

  @Test
  void aPlannerThatPlansAsItsCallersLoadsAsTheThreadsCallerAndReadsAsTheTablesOnAnyThread() throws Exception {
    ThreadLocal<CatalogCredentials> onThread = new ThreadLocal<>();
    try (ScanPlanner callersPlanner = ScanPlanner.builder().uri(catalog.uri()).callers(threadOrContext(onThread))
        .build(); IcebergScanPlanner callers = IcebergScanPlanner.builder(callersPlanner).readConcurrency(2)
        .fileIoProperties(Map.of("io-impl", RecordingFileIO.class.getName())).build()) {
      IcebergTable alices;
      onThread.set(ALICE);
      try {
        alices = callers.loadTable(PEOPLE);
      }
      finally {
        onThread.remove();
      }
      // read on a thread with no caller: as the table's
      List<Record> rows = CompletableFuture.supplyAsync(() -> TestRows.readAll(callers.readRows(alices,
          IcebergScan.all()))).get(30, TimeUnit.SECONDS);
      assertThat(rows).hasSize(3);
      assertOnlyAndRefreshed("Bearer alice-token");

      onThread.set(BOB);
      try {
        assertThatThrownBy(() -> callers.readRows(alices, IcebergScan.all()))
            .isInstanceOf(CallerMismatchException.class);
      }
      finally {
        onThread.remove();
      }
      catalog.clearRecordedRequests();
      // a reactive read finds its caller in the subscriber's context
      List<Record> bobs = callers.streamRows(PEOPLE, IcebergScan.all())
          .contextWrite(context -> context.put(CatalogCredentials.class, BOB)).collectList()
          .block(Duration.ofSeconds(30));
      assertThat(bobs).hasSize(6);
      assertOnlyAndRefreshed("Bearer bob-token");
      catalog.clearRecordedRequests();
      // and so does a reactive read of the caller's rows as records
      List<Person> bobsPeople = callers.streamRows(PEOPLE, IcebergScan.all(), Person.class)
          .contextWrite(context -> context.put(CatalogCredentials.class, BOB)).collectList()
          .block(Duration.ofSeconds(30));
      assertThat(bobsPeople).extracting(Person::email).contains("user1@example.com").hasSize(6);
      assertOnlyAndRefreshed("Bearer bob-token");

      // a reactive read made on the caller's thread and subscribed on another (Spring MVC's) runs as the caller
      catalog.clearRecordedRequests();
      Flux<Record> alicesStream;
      Flux<Person> alicesPeople;
      onThread.set(ALICE);
      try {
        alicesStream = callers.streamRows(PEOPLE, IcebergScan.all());
        alicesPeople = callers.streamRows(PEOPLE, IcebergScan.all(), Person.class);
      }
      finally {
        onThread.remove();
      }
      assertThat(CompletableFuture.supplyAsync(() -> alicesStream.collectList().block(Duration.ofSeconds(30)))
          .get(30, TimeUnit.SECONDS)).hasSize(3);
      assertOnlyAndRefreshed("Bearer alice-token");
      catalog.clearRecordedRequests();
      assertThat(CompletableFuture.supplyAsync(() -> alicesPeople.collectList().block(Duration.ofSeconds(30)))
          .get(30, TimeUnit.SECONDS)).extracting(Person::region).containsOnly("US").hasSize(3);
      assertOnlyAndRefreshed("Bearer alice-token");

      catalog.clearRecordedRequests();
      assertThatThrownBy(() -> callers.loadTable(PEOPLE)).isInstanceOf(MissingCallerException.class);
      assertThatThrownBy(() -> callers.streamRows(PEOPLE, IcebergScan.all()).blockLast(Duration.ofSeconds(30)))
          .isInstanceOf(MissingCallerException.class);
      assertThatThrownBy(() -> callers.streamRows(PEOPLE, IcebergScan.all(), Person.class)
          .blockLast(Duration.ofSeconds(30))).isInstanceOf(MissingCallerException.class);
      assertThat(catalog.recordedRequests()).isEmpty();
    }
  }

  @Test
  void concurrentReadsOfTwoCallersEachGetTheirOwnRows() throws Exception {
    List<CompletableFuture<List<Record>>> reads = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      CatalogCredentials caller = i % 2 == 0 ? ALICE : BOB;
      reads.add(iceberg.as(caller).streamRows(PEOPLE, IcebergScan.all()).collectList().toFuture());
    }
    for (int i = 0; i < 16; i++) {
      assertThat(reads.get(i).get(30, TimeUnit.SECONDS)).as("read %d", i).hasSize(i % 2 == 0 ? 3 : 6);
    }
    assertThat(catalog.recordedRequests()).extracting(RecordedRequest::authorization)
        .containsOnly("Bearer alice-token", "Bearer bob-token");
  }

  /** Every request recorded carried {@code authorization}, and the plan's files refreshed their credentials. */
  private static void assertOnlyAndRefreshed(String authorization) {
    List<RecordedRequest> requests = catalog.recordedRequests();
    assertThat(requests).extracting(RecordedRequest::authorization).containsOnly(authorization);
    assertThat(requests).extracting(RecordedRequest::path).anyMatch(path -> path.endsWith("/credentials"))
        .anyMatch(path -> path.endsWith("/plan")).anyMatch(path -> path.endsWith("/people"));
  }

  private static Callers threadOrContext(ThreadLocal<CatalogCredentials> onThread) {
    return new Callers() {

      @Override
      public @Nullable CatalogCredentials current() {
        return onThread.get();
      }

      @Override
      public Mono<CatalogCredentials> current(ContextView context) {
        return Mono.justOrEmpty(context.getOrEmpty(CatalogCredentials.class));
      }
    };
  }
}
