package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog.CredentialsRequest;
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
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Credentials the catalog vends, end to end: the embedded catalog vends fakes with table loads, completed plans
 * and {@code GET …/credentials}; the plan's FileIO opens each file with the credential of the longest matching
 * prefix over the catalog's and the application's properties (seen through {@link RecordingFileIO}); the plan's
 * credentials win over the table's; and credentials about to expire are loaded again, once, for the plan.
 */
class VendedCredentialsTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "category", Types.StringType.get()));
  private static final PartitionSpec BY_CATEGORY = PartitionSpec.builderFor(SCHEMA).identity("category").build();
  private static final String NAMESPACE = "vending";
  private static final String EXPIRES_AT = "s3.session-token-expires-at-ms";
  private static final long EXPIRY = Instant.parse("2026-09-01T12:00:00Z").toEpochMilli();

  private EmbeddedIcebergCatalog catalog;
  private ScanPlanner planner;
  /** Every answer the catalog vended credentials for, in order. */
  private final Queue<CredentialsRequest> vended = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() {
    this.catalog = EmbeddedIcebergCatalog.create().start();
    this.planner = ScanPlanner.builder().uri(this.catalog.uri()).build();
  }

  @AfterEach
  void stop() {
    this.planner.close();
    this.catalog.close();
  }

  @Test
  void byDefaultTheCatalogVendsNothing() throws Exception {
    EmbeddedTable table = table("none");
    assertThat(this.planner.catalog().supports(io.icebergscan.planning.model.Endpoint.LOAD_CREDENTIALS)).isFalse();
    assertThat(this.planner.catalog().loadTable(identifier(table), true).storageCredentials()).isEmpty();
    assertThat(this.planner.plan(identifier(table), ScanRequest.all()).storageCredentials()).isEmpty();
    assertThatThrownBy(() -> this.planner.catalog().loadCredentials(identifier(table), null))
        .isInstanceOf(UnsupportedEndpointException.class);
    assertThat(this.catalog.requestCounts().credentials()).isZero();
    // as Iceberg's servlet answers a route it does not know
    HttpResponse<String> asked = get("/v1/namespaces/" + NAMESPACE + "/tables/none/credentials?planId=p");
    assertThat(asked.statusCode()).isEqualTo(400);
    assertThat(asked.body()).contains("No route for request: GET v1/namespaces/vending/tables/none/credentials");
  }

  @Test
  void tableLoadsVendWhenAskedAndTheCredentialsEndpointAnswersWithOrWithoutAPlan() {
    EmbeddedTable table = table("loads");
    vend(request -> List.of(credential(location(table) + "/", "key")));
    assertThat(this.planner.catalog().supports(io.icebergscan.planning.model.Endpoint.LOAD_CREDENTIALS)).isTrue();

    assertThat(this.planner.catalog().loadTable(identifier(table), false).storageCredentials()).isEmpty();
    assertThat(this.vended).as("a load that does not ask gets none").isEmpty();
    assertThat(this.planner.catalog().loadTable(identifier(table), true).storageCredentials())
        .singleElement().satisfies(credential -> assertThat(credential.prefix()).isEqualTo(location(table) + "/"));

    assertThat(this.planner.catalog().loadCredentials(identifier(table), null)).hasSize(1);
    assertThat(this.planner.catalog().loadCredentials(identifier(table), "plan-7")).hasSize(1);
    assertThat(this.vended).containsExactly(
        new CredentialsRequest(Endpoint.V1_LOAD_TABLE, table.identifier(), null),
        new CredentialsRequest(Endpoint.V1_TABLE_CREDENTIALS, table.identifier(), null),
        new CredentialsRequest(Endpoint.V1_TABLE_CREDENTIALS, table.identifier(), "plan-7"));
    assertThat(this.catalog.requestCounts().credentials()).isEqualTo(2);

    assertThatThrownBy(() -> this.planner.catalog().loadCredentials(
        io.icebergscan.planning.model.TableIdentifier.of(NAMESPACE, "missing"), null)).isInstanceOf(NoSuchTableException.class);
    assertThat(this.catalog.requestCounts().credentials()).isEqualTo(3);
  }

  @Test
  void completedPlansVendFromTheSubmissionOrFromThePollThatCompletesThem() {
    EmbeddedTable table = table("plans");
    vend(request -> List.of(credential(location(table) + "/", "plan")));

    ScanPlan sync = this.planner.plan(identifier(table), ScanRequest.all());
    assertThat(sync.storageCredentials()).hasSize(1);
    assertThat(this.vended).containsExactly(
        new CredentialsRequest(Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN, table.identifier(), sync.planId()));

    this.vended.clear();
    this.catalog.fanOut(FanOut.uniform(2, 1)).planAsync(true).submittedPolls(1);
    ScanPlan async = this.planner.plan(identifier(table), ScanRequest.all());
    assertThat(async.storageCredentials()).hasSize(1);
    assertThat(this.catalog.requestCounts().poll()).isEqualTo(2);
    assertThat(this.vended).as("neither the submission nor the poll that answers 'submitted' carries any")
        .containsExactly(new CredentialsRequest(Endpoint.V1_FETCH_TABLE_SCAN_PLAN, table.identifier(),
            async.planId()));
  }

  @Test
  void eachFileOpensWithTheCredentialOfTheLongestMatchingPrefix() {
    EmbeddedTable table = table("longest");
    // the broad one first: the longest prefix wins, not the first that matches
    vend(request -> List.of(credential(location(table) + "/", "broad"),
        credential(location(table) + "/data/category=b/", "narrow")));
    try (IcebergScanPlan plan = icebergPlanner().build().plan(load(table), IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
      assertThat(RecordingFileIO.openWith(RecordingFileIO.ACCESS_KEY, "narrow")).isOne();
    }
    assertThat(List.of("broad", "narrow")).as("closing the plan closes the FileIO of each credential")
        .allSatisfy(key -> assertThat(RecordingFileIO.openWith(RecordingFileIO.ACCESS_KEY, key)).as(key).isZero());
    List<RecordingFileIO.Opened> opened = RecordingFileIO.openedUnder(location(table));
    assertThat(opened).extracting(RecordingFileIO.Opened::path).anyMatch(path -> path.contains("/category=a/"))
        .anyMatch(path -> path.contains("/category=b/"));
    assertThat(opened).allSatisfy(file -> {
      String expected = file.path().contains("/category=b/") ? "narrow" : "broad";
      assertThat(file.accessKey()).as(file.path()).isEqualTo(expected);
      assertThat(file.credentials()).as("the credential, as the FileIO's storage credential").singleElement()
          .satisfies(credential -> assertThat(credential.config()).containsEntry(RecordingFileIO.ACCESS_KEY,
              expected));
    });
  }

  @Test
  void aFileUnderNoPrefixOpensWithTheCatalogsAndApplicationsPropertiesAloneWhichAreUnderEveryCredential() {
    EmbeddedTable table = table("uncovered");
    vend(request -> List.of(credential(location(table) + "/data/category=b/", "narrow")));
    try (IcebergScanPlan plan = icebergPlanner().build().plan(load(table), IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
    }
    Map<String, String> catalogProperties = new HashMap<>(this.planner.catalog().properties());
    // the catalog's default FileIO, which the application's io-impl overrides
    assertThat(catalogProperties.remove("io-impl")).isNotNull();
    assertThat(catalogProperties).as("the catalog's overrides").containsKey("namespace-separator");
    List<RecordingFileIO.Opened> opened = RecordingFileIO.openedUnder(location(table));
    assertThat(opened).extracting(RecordingFileIO.Opened::path).anyMatch(path -> path.contains("/category=a/"));
    assertThat(opened).allSatisfy(file -> {
      boolean covered = file.path().contains("/category=b/");
      assertThat(file.accessKey()).as(file.path()).isEqualTo(covered ? "narrow" : "application");
      assertThat(file.credentials()).hasSize(covered ? 1 : 0);
      assertThat(file.properties()).containsAllEntriesOf(catalogProperties)
          .containsEntry("io-impl", RecordingFileIO.class.getName()).containsEntry("test.application", "yes");
    });
  }

  @Test
  void theTablesConfigIsOverTheApplicationsFileIOPropertiesForEveryFile() {
    EmbeddedTable table = table("table_config");
    IcebergTable loaded = load(table);
    IcebergTable configured = new IcebergTable(loaded.identifier(), loaded.metadata(), Map.of(
        RecordingFileIO.ACCESS_KEY, "table", "test.table-config", "yes"), loaded.storageCredentials(), null, ReadRestrictions.NONE);
    try (IcebergScanPlan plan = icebergPlanner().build().plan(configured, IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(RecordingFileIO.openedUnder(location(table))).hasSizeGreaterThanOrEqualTo(2).allSatisfy(file -> {
      assertThat(file.accessKey()).as(file.path()).isEqualTo("table");
      assertThat(file.properties()).containsEntry("test.table-config", "yes").containsEntry("test.application", "yes");
    });
  }

  @Test
  void aFileOpenedThroughAClosedPlanIsRefusedNamingThePlanAndItsTable() {
    EmbeddedTable table = table("closed_plan");
    IcebergScanPlan plan = icebergPlanner().build().plan(load(table), IcebergScan.all());
    String location = plan.tasks().get(0).file().location();
    String planId = plan.scanPlan().planId();
    assertThat(planId).as("the embedded catalog names its plans").isNotNull();
    plan.close();
    assertThatThrownBy(() -> plan.io().newInputFile(location)).isInstanceOf(IllegalStateException.class)
        .hasMessage("the files of plan " + planId + " of vending.closed_plan cannot be read: it is closed");
  }

  @Test
  void thePlansCredentialsWinOverTheTables() {
    EmbeddedTable table = table("plan_wins");
    vend(request -> List.of(credential(location(table) + "/",
        request.endpoint().equals(Endpoint.V1_LOAD_TABLE) ? "table" : "plan")));
    IcebergTable loaded = load(table);
    assertThat(loaded.storageCredentials())
        .extracting(credential -> credential.config().get(RecordingFileIO.ACCESS_KEY)).containsExactly("table");
    try (IcebergScanPlan plan = icebergPlanner().build().plan(loaded, IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("plan");
  }

  @Test
  void aPlanWithoutCredentialsReadsWithTheTables() {
    EmbeddedTable table = table("table_fallback");
    vend(request -> request.endpoint().equals(Endpoint.V1_LOAD_TABLE)
        ? List.of(credential(location(table) + "/", "table")) : List.of());
    try (IcebergScanPlan plan = icebergPlanner().build().plan(load(table), IcebergScan.all())) {
      assertThat(plan.scanPlan().storageCredentials()).isEmpty();
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("table");
  }

  @Test
  void credentialsAboutToExpireAreLoadedAgainOnceForThePlan() {
    EmbeddedTable table = table("refresh");
    AtomicInteger refreshes = new AtomicInteger();
    vend(request -> request.endpoint().equals(Endpoint.V1_TABLE_CREDENTIALS)
        ? List.of(expiring(location(table) + "/", "refreshed-" + refreshes.incrementAndGet(),
            EXPIRY + Duration.ofHours(1).toMillis()))
        : List.of(expiring(location(table) + "/", "vended", EXPIRY)));
    PlanFileIOTest.TestClock clock = new PlanFileIOTest.TestClock(EXPIRY - Duration.ofMinutes(10).toMillis());
    IcebergTable loaded = load(table);
    try (IcebergScanPlan plan = icebergPlanner().clock(clock).build().plan(loaded, IcebergScan.all())) {
      FileScanTask a = task(plan, "/category=a/");
      FileScanTask b = task(plan, "/category=b/");
      this.catalog.resetRequestCounts();
      assertThat(read(plan.rows(a))).hasSize(3);
      assertThat(this.catalog.requestCounts().credentials()).as("ten minutes before the expiry").isZero();

      clock.set(EXPIRY - PlanFileIO.REFRESH_MARGIN.toMillis());
      assertThat(read(plan.rows(b))).hasSize(3);
      assertThat(read(plan.rows())).hasSize(6);
      assertThat(this.catalog.requestCounts().credentials()).isEqualTo(1);
      assertThat(this.vended).last().isEqualTo(new CredentialsRequest(Endpoint.V1_TABLE_CREDENTIALS,
          table.identifier(), plan.scanPlan().planId()));
      assertThat(plan.scanPlan().planId()).isNotNull();
    }
    List<RecordingFileIO.Opened> opened = RecordingFileIO.openedUnder(location(table));
    assertThat(opened).extracting(RecordingFileIO.Opened::accessKey)
        .containsExactly("vended", "refreshed-1", "refreshed-1", "refreshed-1");
    assertThat(opened.get(0).path()).contains("/category=a/");
    assertThat(opened.get(1).path()).contains("/category=b/");
  }

  @Test
  void streamedRowsReadWithThePlansCredentialsAndLoadThemAgainForThatPlan() {
    EmbeddedTable table = table("streamed");
    vend(request -> switch (request.endpoint().path().endsWith("/credentials") ? "refresh"
        : request.endpoint().equals(Endpoint.V1_LOAD_TABLE) ? "load" : "plan") {
      case "refresh" -> List.of(credential(location(table) + "/", "refreshed"));
      case "load" -> List.of(credential(location(table) + "/", "table"));
      default -> List.of(expiring(location(table) + "/", "plan", EXPIRY));
    });
    // at the plan's credentials' expiry: the first file opened loads them again
    IcebergScanPlanner iceberg = icebergPlanner().clock(new PlanFileIOTest.TestClock(EXPIRY)).build();
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    this.catalog.resetRequestCounts();
    this.vended.clear();
    assertThat(read(iceberg.readRows(loaded, IcebergScan.all()))).hasSize(6);
    assertThat(this.catalog.requestCounts().credentials()).isEqualTo(1);
    CredentialsRequest planned = this.vended.peek();
    assertThat(planned.endpoint()).isEqualTo(Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN);
    assertThat(planned.planId()).isNotNull();
    assertThat(this.vended).last().as("loaded again for the plan the stream read")
        .isEqualTo(new CredentialsRequest(Endpoint.V1_TABLE_CREDENTIALS, table.identifier(), planned.planId()));
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("refreshed");
  }

  @Test
  void streamedRowsReadWithThePlansCredentialsOverTheTables() {
    EmbeddedTable table = table("streamed_plan_wins");
    vend(request -> List.of(credential(location(table) + "/",
        request.endpoint().equals(Endpoint.V1_LOAD_TABLE) ? "table" : "plan")));
    IcebergScanPlanner iceberg = icebergPlanner().build();
    assertThat(read(iceberg.readRows(iceberg.loadTable(table.identifier()), IcebergScan.all()))).hasSize(6);
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("plan");
  }

  @Test
  void credentialsAreNotLoadedAgainWhenTheCatalogHasNoCredentialsEndpoint() throws Exception {
    EmbeddedTable table = table("no_endpoint");
    this.catalog.credentialsEndpoint(false);
    vend(request -> List.of(expiring(location(table) + "/", "vended", EXPIRY)));
    assertThat(this.planner.catalog().supports(io.icebergscan.planning.model.Endpoint.LOAD_CREDENTIALS)).isFalse();
    IcebergScanPlanner iceberg = icebergPlanner().clock(new PlanFileIOTest.TestClock(EXPIRY)).build();
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThat(plan.scanPlan().storageCredentials()).hasSize(1);
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(this.catalog.requestCounts().credentials()).isZero();
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("vended");

    assertThat(get("/v1/namespaces/" + NAMESPACE + "/tables/no_endpoint/credentials").statusCode()).isEqualTo(400);
    assertThat(this.catalog.requestCounts().credentials()).as("refused, and counted").isEqualTo(1);
  }

  @Test
  void credentialsWithoutAnExpiryAreNotLoadedAgain() {
    EmbeddedTable table = table("no_expiry");
    vend(request -> List.of(credential(location(table) + "/", "vended")));
    IcebergScanPlanner iceberg = icebergPlanner().clock(new PlanFileIOTest.TestClock(Long.MAX_VALUE / 2)).build();
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(this.catalog.requestCounts().credentials()).isZero();
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("vended");
  }

  @Test
  void aCatalogThatRefusesToRefreshLeavesTheReadToTheCredentialsWhileTheyHold() {
    EmbeddedTable table = table("refused");
    vend(request -> {
      if (request.endpoint().equals(Endpoint.V1_TABLE_CREDENTIALS)) {
        throw new ForbiddenException("no more credentials for %s", request.table());
      }
      return List.of(expiring(location(table) + "/", "vended", EXPIRY));
    });
    IcebergScanPlanner iceberg = icebergPlanner()
        .clock(new PlanFileIOTest.TestClock(EXPIRY - Duration.ofMinutes(1).toMillis())).build();
    try (IcebergScanPlan plan = iceberg.plan(load(table), IcebergScan.all())) {
      assertThat(read(plan.rows())).hasSize(6);
    }
    assertThat(this.catalog.requestCounts().credentials()).isPositive();
    assertThat(accessKeys(table)).hasSizeGreaterThanOrEqualTo(2).containsOnly("vended");
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    HttpClient client = HttpClient.newHttpClient();
    return client.send(HttpRequest.newBuilder(URI.create(this.catalog.uri() + path)).timeout(Duration.ofSeconds(10))
        .build(), HttpResponse.BodyHandlers.ofString());
  }

  private void vend(Function<CredentialsRequest, List<StorageCredential>> credentials) {
    this.catalog.vendedCredentials(request -> {
      this.vended.add(request);
      return credentials.apply(request);
    });
  }

  /** The application's FileIO properties: the recording FileIO, and two settings every FileIO should get. */
  private IcebergScanPlanner.Builder icebergPlanner() {
    return IcebergScanPlanner.builder(this.planner).fileIoProperties(Map.of("io-impl", RecordingFileIO.class.getName(),
        RecordingFileIO.ACCESS_KEY, "application", "test.application", "yes"));
  }

  /** A partitioned table with real files in two directories: {@code data/category=a/} and {@code data/category=b/}. */
  private EmbeddedTable table(String name) {
    EmbeddedTable table = this.catalog.createTable(TableIdentifier.of(NAMESPACE, name), SCHEMA, BY_CATEGORY, 2);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 6; id++) {
      rows.add(table.newRecord(id, id < 3 ? "a" : "b"));
    }
    List<DataFile> files = table.writeRows(FileFormat.AVRO, rows);
    assertThat(files).as("a file per partition").hasSize(2);
    table.append(files);
    return table;
  }

  private IcebergTable load(EmbeddedTable table) {
    return icebergPlanner().build().loadTable(table.identifier());
  }

  private static io.icebergscan.planning.model.TableIdentifier identifier(EmbeddedTable table) {
    return io.icebergscan.planning.model.TableIdentifier.of(NAMESPACE, table.identifier().name());
  }

  private static String location(EmbeddedTable table) {
    return table.table().location();
  }

  private static List<String> accessKeys(EmbeddedTable table) {
    return RecordingFileIO.openedUnder(location(table)).stream().map(RecordingFileIO.Opened::accessKey).toList();
  }

  private static FileScanTask task(IcebergScanPlan plan, String directory) {
    return plan.tasks().stream().filter(task -> task.file().location().contains(directory)).findFirst().orElseThrow();
  }

  private static StorageCredential credential(String prefix, String accessKey) {
    return StorageCredential.create(prefix, Map.of(RecordingFileIO.ACCESS_KEY, accessKey));
  }

  private static StorageCredential expiring(String prefix, String accessKey, long expiresAtMillis) {
    return StorageCredential.create(prefix, Map.of(RecordingFileIO.ACCESS_KEY, accessKey, EXPIRES_AT,
        Long.toString(expiresAtMillis)));
  }

  private static List<Record> read(CloseableIterable<Record> rows) {
    return TestRows.readAll(rows);
  }
}
