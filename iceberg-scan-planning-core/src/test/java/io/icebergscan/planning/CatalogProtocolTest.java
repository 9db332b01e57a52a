package io.icebergscan.planning;

import java.net.ServerSocket;
import java.util.List;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.web.reactive.function.client.WebClient;
import tools.jackson.databind.json.JsonMapper;

import static io.icebergscan.planning.ScriptedCatalog.ALL_ENDPOINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** What goes over the wire and how answers are read: discovery, paths, bodies, errors, payloads. */
class CatalogProtocolTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");
  private static final String NOTHING_TO_DO = "{\"status\":\"completed\",\"plan-id\":\"p\"}";

  @RegisterExtension
  private final MockCatalog catalog = new MockCatalog();

  private ScanPlanner planner(ScanPlanner.Builder builder) {
    return this.catalog.planner(builder);
  }

  private ScanPlanner planner() {
    return planner(this.catalog.builder().maxConcurrency(2));
  }

  private static String config(String defaults, String overrides) {
    return ALL_ENDPOINTS.replace("\"defaults\":{},\"overrides\":{}",
        "\"defaults\":" + defaults + ",\"overrides\":" + overrides);
  }

  @Test
  void discoverySendsTheWarehouseAndOverridesWinOverTheClientsPrefix() throws Exception {
    this.catalog.enqueue(200, config("{\"prefix\":\"from-defaults\"}", "{\"prefix\":\"cat/p1\"}"));
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner(ScanPlanner.builder().uri(this.catalog.server().url("/api/catalog/").toString()).warehouse("my wh/1")
        .prefix("from-client")).plan(TABLE);

    assertThat(this.catalog.take().getTarget()).isEqualTo("/api/catalog/v1/config?warehouse=my%20wh%2F1");
    assertThat(this.catalog.take().getTarget()).isEqualTo("/api/catalog/v1/cat/p1/namespaces/db/tables/events/plan");
  }

  @ParameterizedTest
  @ValueSource(strings = { "", " " })
  void anEmptyWarehouseAndPrefixAreUnsetAsAnEmptyTokenIs(String empty) throws Exception {
    // what warehouse: ${ICEBERG_WAREHOUSE:} gives when the variable is not set
    this.catalog.enqueue(200, config("{}", "{}"));
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner(this.catalog.builder().warehouse(empty).prefix(empty)).plan(TABLE);

    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/config");
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/namespaces/db/tables/events/plan");
  }

  @Test
  void theClientsPrefixWinsOverDefaults() throws Exception {
    this.catalog.enqueue(200, config("{\"prefix\":\"from-defaults\"}", "{}"));
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner(this.catalog.builder().prefix("from-client")).plan(TABLE);

    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/config");
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/from-client/namespaces/db/tables/events/plan");
  }

  @Test
  void aDefaultsPrefixIsUsedAndNoPrefixMeansNoSegment() throws Exception {
    this.catalog.enqueue(200, config("{\"prefix\":\"wh\"}", "{}"));
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner().plan(TABLE);
    this.catalog.take();
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/wh/namespaces/db/tables/events/plan");
  }

  @Test
  void discoveryHappensOncePerPlanner() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    ScanPlanner planner = planner();
    planner.plan(TABLE);
    planner.plan(TABLE);
    assertThat(List.of(this.catalog.take().getTarget(), this.catalog.take().getTarget(), this.catalog.take().getTarget())).containsExactly("/v1/config",
        "/v1/namespaces/db/tables/events/plan", "/v1/namespaces/db/tables/events/plan");
  }

  @Test
  void multiLevelNamespacesAndNamesArePercentEncodedWithTheDefaultSeparator() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner().plan(TableIdentifier.of(List.of("a", "b c", "ü"), "t/x?y#z"));
    this.catalog.take();
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/namespaces/a%1Fb%20c%1F%C3%BC/tables/t%2Fx%3Fy%23z/plan");
  }

  @Test
  void theCatalogsNamespaceSeparatorIsUsed() throws Exception {
    this.catalog.enqueue(200, config("{}", "{\"namespace-separator\":\"%2E\"}"));
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner().plan(TableIdentifier.parse("a.b.t"));
    this.catalog.take();
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/namespaces/a%2Eb/tables/t/plan");
  }

  @Test
  void aPrefixOrSeparatorFromTheCatalogThatNoPathCanHoldIsAMalformedConfig() {
    // found by HttpFuzzTest: URI.create threw an IllegalArgumentException out of plan()
    for (String[] bad : new String[][] { {"prefix", "a b"}, {"prefix", "p%zz"}, {"prefix", "p?x=1"},
        {"prefix", "../admin"}, {"prefix", "ws/%2E%2E"}, {"prefix", "."},
        {"namespace-separator", "\\u0000"}, {"namespace-separator", "/"}, {"namespace-separator", "#"} }) {
      this.catalog.enqueue(200, config("{}", "{\"" + bad[0] + "\":\"" + bad[1] + "\"}"));
      ScanPlanner planner = this.catalog.builder().build();
      try {
        assertThatThrownBy(() -> planner.plan(TableIdentifier.of(List.of("a", "b"), "t"))).as(bad[1])
            .isInstanceOfSatisfying(MalformedResponseException.class,
                malformed -> assertThat(malformed.field()).isEqualTo("overrides." + bad[0]))
            .hasMessageContaining("cannot be used in a request path");
      }
      finally {
        planner.close();
      }
    }
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(9);
  }

  @Test
  void aPrefixTheClientSetIsCheckedWhenThePlannerIsBuilt() {
    assertThatThrownBy(() -> ScanPlanner.builder().uri("http://localhost:1").prefix("my prefix").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("my prefix");
    ScanPlanner.builder().uri("http://localhost:1").prefix("cat/p%201").build().close();
  }

  @Test
  void anAnswerIsReadWhateverItsContentTypeSays() throws Exception {
    // found by HttpFuzzTest: an unparseable Content-Type failed the answer as a transport failure (retryable)
    this.catalog.server().enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "???").body(ALL_ENDPOINTS)
        .build());
    this.catalog.server().enqueue(new MockResponse.Builder().code(200).setHeader("Content-Type", "text/html; charset=nonsense")
        .body(NOTHING_TO_DO).build());
    this.catalog.server().enqueue(new MockResponse.Builder().code(404).setHeader("Content-Type", "???")
        .body("{\"error\":{\"message\":\"gone\",\"type\":\"NoSuchTableException\",\"code\":404}}").build());
    ScanPlanner planner = planner(this.catalog.builder().maxRetries(0));

    assertThat(planner.plan(TABLE).planId()).isEqualTo("p");
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(NoSuchTableException.class).hasMessageContaining("gone");
  }

  @Test
  void thePlanRequestCarriesEveryFieldSetAndNothingElse() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    ScanPlanner planner = planner();
    planner.plan(TABLE, ScanRequest.builder().select("id", "data.x").filter(RowFilter.greaterThan("id", 5))
        .caseSensitive(false).useSnapshotSchema(true).incremental(10, 20).statsFields(List.of("id"))
        .minRowsRequested(1000).build());
    planner.plan(TABLE, ScanRequest.builder().snapshotId(42).build());
    this.catalog.take();
    RecordedRequest full = this.catalog.take();
    RecordedRequest minimal = this.catalog.take();

    JsonMapper mapper = JsonMapper.builder().build();
    assertThat(full.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(mapper.readTree(full.getBody().utf8())).isEqualTo(mapper.readTree("""
        {"select":["id","data.x"],"filter":{"type":"gt","term":"id","value":5},"case-sensitive":false,
         "use-snapshot-schema":true,"start-snapshot-id":10,"end-snapshot-id":20,"stats-fields":["id"],
         "min-rows-requested":1000}"""));
    assertThat(mapper.readTree(minimal.getBody().utf8())).isEqualTo(mapper.readTree("{\"snapshot-id\":42}"));
  }

  @Test
  void badRequestsAreRejectedBeforeAnyRequestIsMade() {
    ScanPlanner planner = planner();
    assertThatThrownBy(() -> ScanRequest.builder().snapshotId(1).incremental(1, 2).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("snapshotId");
    assertThatThrownBy(() -> ScanRequest.builder().startSnapshotId(1).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("endSnapshotId");
    assertThatThrownBy(() -> ScanRequest.builder().endSnapshotId(2).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("startSnapshotId");
    assertThatThrownBy(() -> planner.plan(TABLE, ScanRequest.builder().maxConcurrency(3).build()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency 3")
        .hasMessageContaining("maxConcurrency 2");
    assertThatThrownBy(() -> planner.planTasks(TABLE, ScanRequest.builder().maxConcurrency(3).build()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(this.catalog.server().getRequestCount()).isZero();
  }

  @Test
  void theBuilderRejectsWhatCannotWork() {
    assertThatThrownBy(() -> ScanPlanner.builder().build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> ScanPlanner.builder().uri("file:///etc/passwd").build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http(s)");
    assertThatThrownBy(() -> ScanPlanner.builder().uri("http://localhost").maxConcurrency(0).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxConcurrency");
    assertThatThrownBy(() -> ScanPlanner.builder().header("X-Evil", "a\r\nInjected: yes"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("X-Evil");
  }

  @Test
  void configuredHeadersAreSentWithEveryRequest() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    planner(this.catalog.builder().header("X-Tenant", "acme")).plan(TABLE);
    assertThat(this.catalog.take().getHeaders().get("X-Tenant")).isEqualTo("acme");
    assertThat(this.catalog.take().getHeaders().get("X-Tenant")).isEqualTo("acme");
  }

  @Test
  void httpClientCustomizersAdjustThePlannersOwnClientInOrder() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, NOTHING_TO_DO);
    // the kind of thing a proxy or wiretap setting is: applied to the connection, below WebClient
    planner(this.catalog.builder()
        .httpClient(client -> client.headers(headers -> headers.set("X-Hop", "first")))
        .httpClient(client -> client.headers(headers -> headers.add("X-Hop", "second")))).plan(TABLE);

    assertThat(this.catalog.take().getHeaders().values("X-Hop")).containsExactly("first", "second");
    assertThat(this.catalog.take().getHeaders().values("X-Hop")).containsExactly("first", "second");
    assertThatThrownBy(() -> ScanPlanner.builder().uri("http://catalog").webClient(WebClient.create())
        .httpClient(client -> client).build()).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("WebClient's connector");
  }

  @Test
  void untyped404sAreMappedByTheCallAndTypedOnesByTheirType() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(404, "{\"error\":{\"message\":\"Table does not exist: db.events\",\"type\":\"NoSuchTableException\",\"code\":404}}");
    this.catalog.enqueue(404, "{\"error\":{\"message\":\"Namespace does not exist: db\",\"type\":\"NoSuchNamespaceException\",\"code\":404}}");
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"gone\"]}");
    this.catalog.enqueue(404, "");
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(NoSuchTableException.class)
        .hasMessageContaining("Table does not exist: db.events")
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(404));
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(NoSuchNamespaceException.class);
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(NoSuchPlanTaskException.class)
        .hasMessageContaining("gone")
        .satisfies(e -> assertThat(((ScanPlanningException) e).planTask()).isEqualTo("gone"));
  }

  @Test
  void anHtmlErrorPageIsARestExceptionWithItsStatus() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.server().enqueue(new MockResponse.Builder().code(500).setHeader("Content-Type", "text/html")
        .body("<html><body><h2>HTTP ERROR 500 java.lang.NullPointerException</h2></body></html>").build());
    assertThatThrownBy(() -> planner().plan(TABLE)).isExactlyInstanceOf(RestException.class)
        .hasMessageContaining("500")
        .satisfies(e -> assertThat(((RestException) e).errorType()).isNull());
  }

  @Test
  void aNonJsonTasksAnswerIsMalformedAndNamesTheHandle() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"handle-1\"]}");
    this.catalog.enqueue(200, "<html>proxy says hi</html>");
    assertThatThrownBy(() -> planner().plan(TABLE)).isExactlyInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("handle-1")
        .satisfies(e -> assertThat(((ScanPlanningException) e).planTask()).isEqualTo("handle-1"));
  }

  @ParameterizedTest(name = "restricted: {0}")
  @ValueSource(booleans = { false, true })
  void aMalformedTasksAnswerIsQuotedUnlessThePlanIsForARestrictedRead(boolean restricted) {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"handle-1\"]}");
    // a partition value of a masked column, where the JSON breaks: Jackson's message quotes the token
    this.catalog.enqueue(200, "{\"plan-tasks\": [\"handle-2\", person0@corp.example]}");
    ScanRequest request = ScanRequest.builder().restricted(restricted).build();
    assertThatThrownBy(() -> planner().plan(TABLE, request)).isExactlyInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("handle-1")
        .satisfies(e -> assertThat(e.getMessage().contains("person0")).isEqualTo(!restricted));
  }

  @Test
  void anEmptyPlanAnswerIsMalformed() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "");
    assertThatThrownBy(() -> planner().plan(TABLE)).isExactlyInstanceOf(MalformedResponseException.class);
  }

  @Test
  void aRefusedConnectionIsATransportException() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    ScanPlanner planner = planner(ScanPlanner.builder().uri("http://127.0.0.1:" + port));
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("/v1/config");
  }

  @Test
  void credentialsInTheCatalogUriNeverReachExceptionMessagesOrToString() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    ScanPlanner planner = planner(ScanPlanner.builder().uri("http://alice:s3cr3t@127.0.0.1:" + port + "/catalog"));
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("http://******@127.0.0.1:" + port + "/catalog/v1/config")
        .hasMessageNotContaining("s3cr3t").hasMessageNotContaining("alice");
    assertThat(planner.toString()).contains("http://127.0.0.1:" + port + "/catalog").doesNotContain("s3cr3t")
        .doesNotContain("alice");
  }

  @Test
  void aCatalogUriRefusedByTheBuilderIsQuotedWithoutItsCredentials() {
    for (String refused : List.of("http://alice:s3cr3t@catalog example.com/api", "ftp://alice:s3cr3t@catalog.example.com")) {
      assertThatThrownBy(() -> ScanPlanner.builder().uri(refused)).isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("catalog").hasMessageNotContaining("s3cr3t").hasMessageNotContaining("alice")
          .satisfies(e -> assertThat(e.getCause()).isNull());
    }
  }

  @Test
  void aConnectionDroppedMidAnswerIsRetriedAndThenATransportExceptionNamingTheHandle() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"handle-1\"]}");
    for (int attempt = 0; attempt < 3; attempt++) {
      this.catalog.server().enqueue(new MockResponse.Builder().code(200).body("{\"file-scan-tasks\":[" + "{}".repeat(1000))
          .onResponseBody(new SocketEffect.CloseSocket(true, false, false)).build());
    }
    ScanPlanner planner = planner(this.catalog.builder().maxRetries(2)
        .retryInitialDelay(java.time.Duration.ofMillis(1)));
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(TransportException.class)
        .satisfies(e -> assertThat(((ScanPlanningException) e).planTask()).isEqualTo("handle-1"));
    // config, plan, then the fetch and its two retries (the plan's DELETE may follow)
    List<String> requests = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      requests.add(this.catalog.take().getRequestLine());
    }
    assertThat(requests.subList(2, 5)).allMatch(line -> line.startsWith("POST /v1/namespaces/db/tables/events/tasks"));
  }

  @Test
  void anOversizedAnswerFailsClearlyInsteadOfFillingTheHeap() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"big\"]}");
    this.catalog.enqueue(200, "{\"file-scan-tasks\":[],\"padding\":\"" + "x".repeat(10_000) + "\"}");
    ScanPlanner planner = planner(this.catalog.builder().maxResponseBytes(4096));
    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("4096 bytes")
        .satisfies(e -> assertThat(((ScanPlanningException) e).planTask()).isEqualTo("big"));
  }

  /** Without a Content-Length the body is gathered as its chunks come, into one array that grows to fit. */
  @Test
  void aChunkedAnswerWithoutALengthIsReadWhole() {
    String tasks = "{\"file-scan-tasks\":[" + TestTasks.json("s3://b/a.parquet") + "," + TestTasks.json("s3://b/b.parquet")
        + "]}";
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"chunked\"]}");
    this.catalog.server().enqueue(new MockResponse.Builder().setHeader("Content-Type", "application/json")
        .chunkedBody(tasks, 7).build());

    assertThat(planner().plan(TABLE).tasks()).extracting(task -> task.dataFile().filePath())
        .containsExactly("s3://b/a.parquet", "s3://b/b.parquet");
  }

  @Test
  void aChunkedAnswerWithoutALengthIsStillBoundedByTheLimit() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"big\"]}");
    this.catalog.server().enqueue(new MockResponse.Builder().setHeader("Content-Type", "application/json")
        .chunkedBody("{\"file-scan-tasks\":[],\"padding\":\"" + "x".repeat(10_000) + "\"}", 1000).build());
    ScanPlanner planner = planner(this.catalog.builder().maxResponseBytes(4096));

    assertThatThrownBy(() -> planner.plan(TABLE)).isExactlyInstanceOf(MalformedResponseException.class)
        .hasMessageContaining("larger than the limit of 4096 bytes")
        .satisfies(e -> assertThat(((ScanPlanningException) e).planTask()).isEqualTo("big"));
  }

  @Test
  void deleteReferencesResolveWithinTheirOwnResponse() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, """
        {"status":"completed","plan-id":"p","plan-tasks":["more"],
         "delete-files":[%s],
         "file-scan-tasks":[{"data-file":%s,"delete-file-references":[0]}]}"""
        .formatted(positionDelete("s3://b/root-delete.parquet"), dataFile("s3://b/a.parquet")));
    this.catalog.enqueue(200, """
        {"delete-files":[%s,%s],
         "file-scan-tasks":[{"data-file":%s,"delete-file-references":[1]},
                            {"data-file":%s,"delete-file-references":[0,1]},
                            {"data-file":%s}]}"""
        .formatted(positionDelete("s3://b/d0.parquet"), equalityDelete("s3://b/d1.parquet"),
            dataFile("s3://b/b.parquet"), dataFile("s3://b/c.parquet"), dataFile("s3://b/d.parquet")));

    List<FileScanTask> tasks = planner().plan(TABLE).tasks();

    assertThat(TestTasks.paths(tasks)).containsExactly("s3://b/a.parquet", "s3://b/b.parquet", "s3://b/c.parquet",
        "s3://b/d.parquet");
    assertThat(deletePaths(tasks.get(0))).containsExactly("s3://b/root-delete.parquet");
    assertThat(deletePaths(tasks.get(1))).containsExactly("s3://b/d1.parquet");
    assertThat(deletePaths(tasks.get(2))).containsExactly("s3://b/d0.parquet", "s3://b/d1.parquet");
    assertThat(tasks.get(3).deleteFiles()).isEmpty();
    assertThat(tasks.get(1).deleteFiles().get(0).content()).isEqualTo(FileContent.EQUALITY_DELETES);
    assertThat(tasks.get(1).deleteFiles().get(0).equalityIds()).containsExactly(1, 2);
  }

  @Test
  void deletionVectorsSharingOnePuffinFileStayDistinct() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, """
        {"status":"completed","plan-id":"p",
         "delete-files":[%s,%s],
         "file-scan-tasks":[{"data-file":%s,"delete-file-references":[1]},
                            {"data-file":%s,"delete-file-references":[0]}]}"""
        .formatted(deletionVector("s3://b/a.parquet", 4, 40), deletionVector("s3://b/b.parquet", 44, 52),
            dataFile("s3://b/b.parquet"), dataFile("s3://b/a.parquet")));

    List<FileScanTask> tasks = planner().plan(TABLE).tasks();

    DeleteFile forB = tasks.get(0).deleteFiles().get(0);
    DeleteFile forA = tasks.get(1).deleteFiles().get(0);
    assertThat(forB.filePath()).isEqualTo(forA.filePath()).isEqualTo("s3://b/dv.puffin");
    assertThat(forB).isNotEqualTo(forA);
    assertThat(forB.isDeletionVector()).isTrue();
    assertThat(forB.referencedDataFile()).isEqualTo("s3://b/b.parquet");
    assertThat(forB.contentOffset()).isEqualTo(44);
    assertThat(forB.contentSizeInBytes()).isEqualTo(52);
    assertThat(forA.referencedDataFile()).isEqualTo("s3://b/a.parquet");
    assertThat(forA.contentOffset()).isEqualTo(4);
  }

  @Test
  void aResidualIsTheCatalogsOrElseTheRequestsFilter() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, """
        {"status":"completed","plan-id":"p","file-scan-tasks":[
          {"data-file":%s,"residual-filter":{"type":"lt","term":"x","value":3}},
          {"data-file":%s},
          {"data-file":%s,"residual-filter":true}]}"""
        .formatted(dataFile("s3://b/a.parquet"), dataFile("s3://b/b.parquet"), dataFile("s3://b/c.parquet")));

    List<FileScanTask> tasks = planner().plan(TABLE,
        ScanRequest.builder().filter(RowFilter.ofJson("{ \"type\" : \"gt\", \"term\" : \"id\", \"value\" : 5 }"))
            .build()).tasks();

    assertThat(tasks).extracting(FileScanTask::residualFilter).containsExactly(
        "{\"type\":\"lt\",\"term\":\"x\",\"value\":3}", "{\"type\":\"gt\",\"term\":\"id\",\"value\":5}", "true");
  }

  @Test
  void aTaskFetchedForAPlanTaskWithoutAResidualHasTheRequestsFilterInAStreamedPlanToo() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"handle-1\"]}");
    this.catalog.enqueue(200, """
        {"file-scan-tasks":[{"data-file":%s},{"data-file":%s,"residual-filter":false}]}"""
        .formatted(dataFile("s3://b/a.parquet"), dataFile("s3://b/b.parquet")));
    RowFilter filter = RowFilter.and(RowFilter.greaterThan("id", 5), RowFilter.isNull("note"));

    List<FileScanTask> tasks = planner().planTasks(TABLE, ScanRequest.builder().filter(filter).build())
        .collectList().block(java.time.Duration.ofSeconds(30));

    assertThat(tasks).extracting(FileScanTask::residualFilter).containsExactly(filter.toJson(), "false");
  }

  @Test
  void aFiltersNumbersReachTheCatalogAndTheResidualsExactlyAsWritten() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"file-scan-tasks\":[{\"data-file\":"
        + dataFile("s3://b/a.parquet") + "}]}");
    String filter = "{\"type\":\"gt\",\"term\":\"amount\",\"value\":123456789012345678.91}";

    List<FileScanTask> tasks = planner().plan(TABLE, ScanRequest.builder().filter(RowFilter.ofJson(filter)).build()).tasks();

    this.catalog.take();
    assertThat(this.catalog.take().getBody().utf8()).contains("123456789012345678.91");
    assertThat(tasks).extracting(FileScanTask::residualFilter).containsExactly(filter);
  }

  private static List<String> deletePaths(FileScanTask task) {
    return task.deleteFiles().stream().map(DeleteFile::filePath).toList();
  }

  private static String dataFile(String path) {
    return "{\"spec-id\":0,\"partition\":[],\"content\":\"data\",\"file-path\":\"" + path
        + "\",\"file-format\":\"PARQUET\",\"file-size-in-bytes\":1000,\"record-count\":100}";
  }

  private static String positionDelete(String path) {
    return "{\"spec-id\":0,\"partition\":[],\"content\":\"position-deletes\",\"file-path\":\"" + path
        + "\",\"file-format\":\"parquet\",\"file-size-in-bytes\":100,\"record-count\":3}";
  }

  private static String equalityDelete(String path) {
    return "{\"spec-id\":0,\"partition\":[],\"content\":\"EQUALITY_DELETES\",\"file-path\":\"" + path
        + "\",\"file-format\":\"parquet\",\"file-size-in-bytes\":100,\"record-count\":3,\"equality-ids\":[1,2]}";
  }

  private static String deletionVector(String dataFile, long offset, long size) {
    return "{\"spec-id\":0,\"partition\":[],\"content\":\"position-deletes\",\"file-path\":\"s3://b/dv.puffin\","
        + "\"file-format\":\"puffin\",\"file-size-in-bytes\":200,\"record-count\":2,\"referenced-data-file\":\""
        + dataFile + "\",\"content-offset\":" + offset + ",\"content-size-in-bytes\":" + size + "}";
  }
}
