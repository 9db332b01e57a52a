package io.icebergscan.planning;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import mockwebserver3.SocketEffect;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.web.reactive.function.client.ClientRequestObservationContext;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The calls outside plans, {@code loadTable}, {@code loadCredentials} and {@code reportMetrics}, and
 * {@code supports}: what goes over the wire, how answers are read, and that they travel the planner's one
 * HTTP stack (paths, retries, error mapping, refusals, observations) as plans do.
 */
class CatalogCallsTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "events");
  private static final String TABLE_PATH = "/v1/namespaces/db/tables/events";

  /** The three table endpoints and the planning ones, as a catalog that has them all lists them. */
  private static final String TABLE_ENDPOINTS = "{\"defaults\":{},\"overrides\":{},\"endpoints\":["
      + "\"" + Endpoint.LOAD_TABLE + "\",\"" + Endpoint.LOAD_CREDENTIALS + "\","
      + "\"" + Endpoint.REPORT_METRICS + "\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";
  /** Planning only: a catalog that lists its endpoints without the table ones. */
  private static final String PLANNING_ONLY = ScriptedCatalog.ALL_ENDPOINTS;
  private static final String NO_ENDPOINT_LIST = "{\"defaults\":{},\"overrides\":{}}";

  static final String METADATA = """
      {"format-version":2,"table-uuid":"9c12d441-03fe-4693-9a96-a0705ddf69c1","location":"s3://b/db/events",
       "last-sequence-number":1,"last-updated-ms":1602638573590,"last-column-id":1,"current-schema-id":0,
       "schemas":[{"type":"struct","schema-id":0,"fields":[{"id":1,"name":"x","required":true,"type":"double",
         "initial-default":123456789012345678.91}]}],
       "default-spec-id":0,"partition-specs":[{"spec-id":0,"fields":[]}],"last-partition-id":999,
       "properties":{"owner":"ü \\"quoted\\""},"current-snapshot-id":-1,"snapshots":[]}""";
  private static final String CREDENTIAL = "{\"prefix\":\"s3://b/db\",\"config\":{\"s3.access-key-id\":\"AKIA\","
      + "\"s3.secret-access-key\":\"hush\"}}";
  private static final String REPORT = "{\"report-type\":\"scan-report\",\"table-name\":\"db.events\","
      + "\"snapshot-id\":7,\"filter\":true,\"schema-id\":0,\"projected-field-ids\":[1],"
      + "\"projected-field-names\":[\"x\"],\"metrics\":{}}";

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  @RegisterExtension
  private final MockCatalog catalog = new MockCatalog();

  private ScanPlanner planner(ScanPlanner.Builder builder) {
    return this.catalog.planner(builder);
  }

  private ScanPlanner planner() {
    return planner(builder());
  }

  private ScanPlanner.Builder builder() {
    return this.catalog.builder().maxRetries(2)
        .retryInitialDelay(Duration.ofMillis(5)).retryMaxDelay(Duration.ofMillis(50));
  }

  private void enqueueNoContent() {
    this.catalog.server().enqueue(new MockResponse.Builder().code(204).build());
  }

  /** Every request the server got and was not taken yet, as {@code "<METHOD> <path and query>"}. */
  private List<String> requests() throws InterruptedException {
    List<String> lines = new ArrayList<>();
    for (RecordedRequest request : this.catalog.requests()) {
      lines.add(request.getMethod() + " " + request.getTarget());
    }
    return lines;
  }

  private static String loaded(String metadata, String more) {
    return "{\"metadata-location\":\"s3://b/db/events/metadata/00001.metadata.json\",\"metadata\":" + metadata
        + more + "}";
  }

  private static String error(int status, String type) {
    return "{\"error\":{\"message\":\"refused here\",\"type\":\"" + type + "\",\"code\":" + status + "}}";
  }

  @Test
  void eachCallGoesToItsTablesPathWithThePrefixAndEncodedNamespaceAndName() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("\"overrides\":{}", "\"overrides\":{\"prefix\":\"cat/p1\"}"));
    this.catalog.enqueue(200, loaded(METADATA, ""));
    this.catalog.enqueue(200, "{\"storage-credentials\":[]}");
    enqueueNoContent();
    ScanPlanner planner = planner();
    TableIdentifier table = TableIdentifier.of(List.of("a", "b c", "ü"), "t/x?y#z");

    planner.catalog().loadTable(table, false);
    planner.catalog().loadCredentials(table, null);
    planner.catalog().reportMetrics(table, REPORT).block();

    String path = "/v1/cat/p1/namespaces/a%1Fb%20c%1F%C3%BC/tables/t%2Fx%3Fy%23z";
    assertThat(requests()).containsExactly("GET /v1/config", "GET " + path, "GET " + path + "/credentials",
        "POST " + path + "/metrics");
  }

  @Test
  void theCatalogsNamespaceSeparatorIsUsed() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("\"overrides\":{}", "\"overrides\":{\"namespace-separator\":\"%2E\"}"));
    this.catalog.enqueue(200, loaded(METADATA, ""));
    planner().catalog().loadTable(TableIdentifier.parse("a.b.t"), false);
    this.catalog.take();
    assertThat(this.catalog.take().getTarget()).isEqualTo("/v1/namespaces/a%2Eb/tables/t");
  }

  @Test
  void theDelegationHeaderIsSentOnlyWhenCredentialsAreAskedFor() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, loaded(METADATA, ""));
    this.catalog.enqueue(200, loaded(METADATA, ""));
    ScanPlanner planner = planner(builder().header("X-Tenant", "acme"));

    planner.catalog().loadTable(TABLE, true);
    planner.catalog().loadTable(TABLE, false);

    this.catalog.take();
    RecordedRequest asked = this.catalog.take();
    RecordedRequest notAsked = this.catalog.take();
    assertThat(asked.getHeaders().values("X-Iceberg-Access-Delegation")).containsExactly("vended-credentials");
    assertThat(notAsked.getHeaders().get("X-Iceberg-Access-Delegation")).isNull();
    // the planner's own headers go with these calls too
    assertThat(List.of(asked, notAsked)).allSatisfy(request -> {
      assertThat(request.getHeaders().get("X-Tenant")).isEqualTo("acme");
      assertThat(request.getHeaders().get("Idempotency-Key")).isNull();
    });
  }

  @Test
  void theAnswersMetadataIsHandedOnAsTheSameObjectWithItsConfigAndCredentials() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, loaded(METADATA, ",\"config\":{\"token\":\"t0k3n\",\"io-impl\":\"x.S3FileIO\"},"
        + "\"storage-credentials\":[" + CREDENTIAL + ",{\"prefix\":\"s3://b\",\"config\":{}}],"
        + "\"remote-signing-config\":{\"uri\":\"https://signer\"}"));

    LoadedTable table = planner().catalog().loadTable(TABLE, true);

    assertThat(MAPPER.readTree(table.metadataJson())).isEqualTo(MAPPER.readTree(METADATA));
    // numbers exactly as the catalog wrote them, where a double would have rounded this one
    assertThat(table.metadataJson()).contains("123456789012345678.91").contains("ü \\\"quoted\\\"")
        .startsWith("{\"format-version\":2,").endsWith("\"snapshots\":[]}");
    assertThat(table.metadataLocation()).isEqualTo("s3://b/db/events/metadata/00001.metadata.json");
    assertThat(table.config()).containsExactlyInAnyOrderEntriesOf(Map.of("token", "t0k3n", "io-impl", "x.S3FileIO"));
    assertThat(table.storageCredentials()).containsExactly(
        new StorageCredential("s3://b/db", Map.of("s3.access-key-id", "AKIA", "s3.secret-access-key", "hush")),
        new StorageCredential("s3://b", Map.of()));
    assertThat(table.credentialFor("s3://b/db/events/data/a.parquet").prefix()).isEqualTo("s3://b/db");
    assertThat(table.toString()).contains("token").doesNotContain("t0k3n").doesNotContain("hush")
        .doesNotContain("format-version");
  }

  @Test
  void aTableWithoutConfigLocationOrCredentialsHasThemEmpty() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, "{\"metadata-location\":null,\"metadata\":" + METADATA + "}");

    LoadedTable table = planner().catalog().loadTable(TABLE, false);

    assertThat(table.metadataLocation()).isNull();
    assertThat(table.config()).isEmpty();
    assertThat(table.storageCredentials()).isEmpty();
  }

  @Test
  void credentialsAreLoadedForAPlanWithItsIdInTheQuery() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, "{\"storage-credentials\":[" + CREDENTIAL + "]}");
    this.catalog.enqueue(200, "{\"storage-credentials\":[]}");
    ScanPlanner planner = planner();

    assertThat(planner.catalog().loadCredentials(TABLE, "plan 1/ü&x=y")).singleElement()
        .satisfies(credential -> assertThat(credential.prefix()).isEqualTo("s3://b/db"))
        .satisfies(credential -> assertThat(credential.config()).containsEntry("s3.secret-access-key", "hush"));
    assertThat(planner.catalog().loadCredentials(TABLE, null)).isEmpty();

    assertThat(requests()).containsExactly("GET /v1/config",
        "GET " + TABLE_PATH + "/credentials?planId=plan%201%2F%C3%BC%26x%3Dy", "GET " + TABLE_PATH + "/credentials");
  }

  @Test
  void aReportIsPostedAsItIsWithoutAnIdempotencyKey() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    enqueueNoContent();
    // any 2xx is an acceptance, a body or not
    this.catalog.enqueue(200, "{}");
    ScanPlanner planner = planner();

    planner.catalog().reportMetrics(TABLE, REPORT).block();
    planner.catalog().reportMetrics(TABLE, REPORT).block();

    this.catalog.take();
    RecordedRequest report = this.catalog.take();
    assertThat(report.getMethod()).isEqualTo("POST");
    assertThat(report.getBody().utf8()).isEqualTo(REPORT);
    assertThat(report.getHeaders().get("Content-Type")).startsWith("application/json");
    assertThat(report.getHeaders().get("Idempotency-Key")).as("the spec gives reports no key").isNull();
  }

  @Test
  void aReportThatIsNotAJsonObjectIsRefusedBeforeAnythingIsSent() {
    ScanPlanner planner = planner();
    for (String notAReport : List.of("{not json", "[1]", "\"report\"", "{} {}", "")) {
      assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, notAReport)).as(notAReport)
          .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("reportJson");
    }
    assertThat(this.catalog.server().getRequestCount()).isZero();
  }

  @Test
  void malformedAnswersAreTypedAndNameTheirField() {
    String[][] cases = {
        { "{\"metadata-location\":\"s3://m\"}", "metadata" },
        { "{\"metadata\":null}", "metadata" },
        { "{\"metadata\":[" + METADATA + "]}", "metadata" },
        { "{\"metadata\":\"{}\"}", "metadata" },
        { "{\"metadata-location\":42,\"metadata\":{}}", "metadata-location" },
        { "{\"metadata\":{},\"config\":[]}", "config" },
        { "{\"metadata\":{},\"config\":{\"s3.secret-access-key\":98765}}", "config.s3.secret-access-key" },
        { "{\"metadata\":{},\"config\":{\"token\":null}}", "config.token" },
        { "{\"metadata\":{},\"storage-credentials\":{}}", "storage-credentials" },
        { "{\"metadata\":{},\"storage-credentials\":[{\"config\":{}}]}", "storage-credentials[0].prefix" },
        { "{\"metadata\":{},\"storage-credentials\":[" + CREDENTIAL + ",{\"prefix\":\"s3://c\","
            + "\"config\":{\"key\":98765}}]}", "storage-credentials[1].config.key" },
    };
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    for (String[] malformed : cases) {
      this.catalog.enqueue(200, malformed[0]);
    }
    ScanPlanner planner = planner();
    for (String[] malformed : cases) {
      assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).as(malformed[0])
          .isExactlyInstanceOf(MalformedResponseException.class)
          .satisfies(e -> assertThat(((MalformedResponseException) e).field()).isEqualTo(malformed[1]))
          // values of config objects may be secrets: never quoted
          .hasMessageNotContaining("98765");
    }
  }

  @Test
  void aCredentialsAnswerNeedsItsList() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, "{}");
    this.catalog.enqueue(200, "{\"storage-credentials\":[{\"prefix\":\"s3://b\"}]}");
    this.catalog.enqueue(200, "<html>login</html>");
    ScanPlanner planner = planner();

    assertThat(malformed(planner)).isEqualTo("storage-credentials");
    assertThat(malformed(planner)).isEqualTo("storage-credentials[0].config");
    assertThat(malformed(planner)).as("not JSON: no field").isNull();
  }

  /** The field a malformed credentials answer is rejected at. */
  private static String malformed(ScanPlanner planner) {
    Throwable failure = catchThrowable(() -> planner.catalog().loadCredentials(TABLE, null));
    assertThat(failure).isExactlyInstanceOf(MalformedResponseException.class);
    return ((MalformedResponseException) failure).field();
  }

  @Test
  void notFoundIsTheTableUnlessTheCatalogSaysTheNamespace() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(404, "");
    this.catalog.enqueue(404, error(404, "NoSuchNamespaceException"));
    this.catalog.enqueue(404, error(404, "NoSuchTableException"));
    this.catalog.enqueue(404, "<html>not found</html>");
    this.catalog.enqueue(404, error(404, "NoSuchNamespaceException"));
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isExactlyInstanceOf(NoSuchTableException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(404));
    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false))
        .isExactlyInstanceOf(NoSuchNamespaceException.class)
        .hasMessageContaining("refused here");
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null))
        .isExactlyInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, "p"))
        .isExactlyInstanceOf(NoSuchTableException.class);
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(NoSuchNamespaceException.class);
  }

  @Test
  void refusalsOfTheCatalogKeepTheirStatus() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(401, error(401, "NotAuthorizedException"));
    this.catalog.enqueue(403, error(403, "ForbiddenException"));
    this.catalog.enqueue(400, error(400, "BadRequestException"));
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, true)).isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(401))
        .satisfies(e -> assertThat(((RestException) e).errorType()).isEqualTo("NotAuthorizedException"));
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null)).isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(403));
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(400));
  }

  @Test
  void loadsAreSentAgainAfterA503() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(503, error(503, "ServiceUnavailableException"));
    this.catalog.enqueue(200, loaded(METADATA, ""));
    this.catalog.enqueue(502, "<html>bad gateway</html>");
    this.catalog.enqueue(200, "{\"storage-credentials\":[]}");
    ScanPlanner planner = planner();

    assertThat(planner.catalog().loadTable(TABLE, true).metadataJson()).contains("table-uuid");
    assertThat(planner.catalog().loadCredentials(TABLE, "p")).isEmpty();

    List<RecordedRequest> requests = List.of(this.catalog.take(), this.catalog.take(), this.catalog.take(), this.catalog.take(), this.catalog.take());
    assertThat(requests).extracting(request -> request.getMethod() + " " + request.getTarget()).containsExactly(
        "GET /v1/config", "GET " + TABLE_PATH, "GET " + TABLE_PATH, "GET " + TABLE_PATH + "/credentials?planId=p",
        "GET " + TABLE_PATH + "/credentials?planId=p");
    assertThat(requests.get(2).getHeaders().get("X-Iceberg-Access-Delegation")).as("on the retry too")
        .isEqualTo("vended-credentials");
  }

  @Test
  void aReportIsNotSentAgainAfterAFailureThatMayHaveReachedTheCatalog() throws Exception {
    // the catalog honours keys, which does not make a report safe to send twice: the spec gives it none
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("{\"defaults\"", "{\"idempotency-key-lifetime\":\"PT30M\",\"defaults\""));
    this.catalog.enqueue(500, error(500, "ServerError"));
    this.catalog.enqueue(502, "<html>bad gateway</html>");
    this.catalog.enqueue(503, error(503, "ServiceUnavailableException"));
    enqueueNoContent();
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(500));
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(502));
    // a 503 says it was not acted on
    planner.catalog().reportMetrics(TABLE, REPORT).block();

    assertThat(requests()).containsExactly("GET /v1/config", "POST " + TABLE_PATH + "/metrics",
        "POST " + TABLE_PATH + "/metrics", "POST " + TABLE_PATH + "/metrics", "POST " + TABLE_PATH + "/metrics");
  }

  @Test
  void aCallIsRefusedWhenTheCatalogListsItsEndpointsWithoutIt() {
    this.catalog.enqueue(200, PLANNING_ONLY);
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false))
        .isExactlyInstanceOf(UnsupportedEndpointException.class)
        .satisfies(e -> assertThat(((UnsupportedEndpointException) e).endpoint())
            .hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}"));
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null))
        .isExactlyInstanceOf(UnsupportedEndpointException.class)
        .satisfies(e -> assertThat(((UnsupportedEndpointException) e).endpoint())
            .hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials"));
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(UnsupportedEndpointException.class)
        .satisfies(e -> assertThat(((UnsupportedEndpointException) e).endpoint())
            .hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics"));
    assertThat(this.catalog.server().getRequestCount()).as("discovery only").isEqualTo(1);
  }

  /** As Apache Iceberg's client assumes of such a catalog: tables and reports, but neither planning nor credentials. */
  @Test
  void aCatalogThatListsNoEndpointsHasIcebergsDefaults() throws Exception {
    for (String config : List.of(NO_ENDPOINT_LIST, "{\"endpoints\":[]}")) {
      this.catalog.enqueue(200, config);
      this.catalog.enqueue(200, loaded(METADATA, ""));
      enqueueNoContent();
      ScanPlanner planner = planner();

      planner.catalog().loadTable(TABLE, false);
      planner.catalog().reportMetrics(TABLE, REPORT).block();
      assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null)).as(config)
          .isExactlyInstanceOf(UnsupportedEndpointException.class);
      assertThatThrownBy(() -> planner.plan(TABLE)).as(config).isExactlyInstanceOf(UnsupportedEndpointException.class);
      assertThat(requests()).as(config).containsExactly("GET /v1/config", "GET " + TABLE_PATH,
          "POST " + TABLE_PATH + "/metrics");
    }
  }

  @Test
  void tableExistsAsksWithHeadWhenTheCatalogListsIt() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("\"endpoints\":[", "\"endpoints\":[\"" + Endpoint.TABLE_EXISTS + "\","));
    enqueueNoContent();
    // an answer to HEAD has no body to type it: a missing namespace reads as a missing table, as in Iceberg's client
    this.catalog.server().enqueue(new MockResponse.Builder().code(404).build());
    this.catalog.server().enqueue(new MockResponse.Builder().code(404).build());
    this.catalog.server().enqueue(new MockResponse.Builder().code(500).build());
    CatalogCalls catalog = planner().catalog();

    assertThat(catalog.tableExists(TABLE)).isTrue();
    assertThat(catalog.tableExists(TableIdentifier.of("db", "gone ü"))).isFalse();
    assertThat(catalog.tableExists(TableIdentifier.of("nope", "t"))).isFalse();
    assertThatThrownBy(() -> catalog.tableExists(TABLE)).isExactlyInstanceOf(RestException.class)
        .hasMessageContaining("HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table} answered HTTP 500");

    assertThat(requests()).containsExactly("GET /v1/config", "HEAD " + TABLE_PATH,
        "HEAD /v1/namespaces/db/tables/gone%20%C3%BC", "HEAD /v1/namespaces/nope/tables/t", "HEAD " + TABLE_PATH);
  }

  @Test
  void tableExistsLoadsTheTableWhereTheCatalogDoesNotListHead() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, loaded(METADATA, ""));
    this.catalog.enqueue(404, error(404, "NoSuchTableException"));
    CatalogCalls catalog = planner().catalog();

    assertThat(catalog.tableExists(TABLE)).isTrue();
    assertThat(catalog.tableExists(TABLE)).isFalse();

    assertThat(requests()).containsExactly("GET /v1/config", "GET " + TABLE_PATH, "GET " + TABLE_PATH);
  }

  @Test
  void catalogPropertiesAreTheDefaultsWithTheOverridesOverThem() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("{\"defaults\":{},\"overrides\":{}",
        "{\"defaults\":{\"io-impl\":\"a.B\",\"s3.endpoint\":\"http://d\"},"
            + "\"overrides\":{\"s3.endpoint\":\"http://o\",\"prefix\":\"p\"}"));
    ScanPlanner planner = planner();

    assertThat(planner.catalog().properties()).containsExactlyInAnyOrderEntriesOf(
        Map.of("io-impl", "a.B", "s3.endpoint", "http://o", "prefix", "p"));
    assertThat(planner.catalog().properties()).as("from the one discovery").hasSize(3);
    assertThat(requests()).containsExactly("GET /v1/config");
  }

  @Test
  void supportsAnswersFromTheOneDiscovery() throws Exception {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, loaded(METADATA, ""));
    ScanPlanner planner = planner();

    assertThat(planner.catalog().supports(Endpoint.LOAD_CREDENTIALS)).isTrue();
    assertThat(planner.catalog().supports(Endpoint.REPORT_METRICS)).isTrue();
    assertThat(planner.catalog().supports(Endpoint.SUBMIT_PLAN)).isTrue();
    assertThat(planner.catalog().supports(Endpoint.FETCH_PLAN))
        .isFalse();
    assertThat(planner.catalog().supports(new Endpoint("GET", "/v1/{prefix}/namespaces"))).as("not listed").isFalse();
    planner.catalog().loadTable(TABLE, false);

    assertThat(requests()).containsExactly("GET /v1/config", "GET " + TABLE_PATH);
  }

  @Test
  void supportsWithoutAListIsIcebergsDefaults() {
    this.catalog.enqueue(200, NO_ENDPOINT_LIST);
    this.catalog.enqueue(200, "{\"overrides\":{\"view-endpoints-supported\":\"true\"}}");
    ScanPlanner planner = planner();
    ScanPlanner withViews = planner();

    assertThat(planner.catalog().supports(Endpoint.LOAD_TABLE)).isTrue();
    assertThat(planner.catalog().supports(Endpoint.REPORT_METRICS)).isTrue();
    assertThat(planner.catalog().supports(new Endpoint("GET", "/v1/{prefix}/namespaces"))).isTrue();
    assertThat(planner.catalog().supports(new Endpoint("POST", "/v1/{prefix}/transactions/commit"))).isTrue();
    assertThat(planner.catalog().supports(Endpoint.LOAD_CREDENTIALS)).isFalse();
    assertThat(planner.catalog().supports(Endpoint.SUBMIT_PLAN)).isFalse();
    assertThat(planner.catalog().supports(new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}")))
        .isFalse();
    assertThat(withViews.catalog().supports(new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}")))
        .isTrue();
    assertThat(withViews.catalog().supports(Endpoint.LOAD_TABLE)).isTrue();
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(2);
  }

  @Test
  void aFailedDiscoveryIsTheCallsFailureAndIsTriedAgainByTheNext() {
    this.catalog.enqueue(500, error(500, "ServerError"));
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    ScanPlanner planner = planner();

    assertThatThrownBy(() -> planner.catalog().supports(Endpoint.LOAD_TABLE))
        .isExactlyInstanceOf(RestException.class);
    assertThat(planner.catalog().supports(Endpoint.LOAD_TABLE)).isTrue();
  }

  @Test
  void credentialsInTheCatalogUriAreMaskedInTheCallsFailures() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    ScanPlanner unreachable = planner(ScanPlanner.builder().uri("http://alice:s3cr3t@127.0.0.1:" + closed + "/catalog")
        .maxRetries(0));
    assertThatThrownBy(() -> unreachable.catalog().loadTable(TABLE, false))
        .isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("http://******@127.0.0.1:" + closed + "/catalog/v1/config")
        .hasMessageNotContaining("s3cr3t").hasMessageNotContaining("alice");

    // discovery answered, then the table's own request fails on its connection
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    // two: Reactor Netty itself sends a request again, once, when a pooled connection closes before any answer
    for (int i = 0; i < 2; i++) {
      this.catalog.server().enqueue(new MockResponse.Builder().code(200).body(loaded(METADATA, ""))
          .onResponseStart(new SocketEffect.CloseSocket(true, false, false)).build());
    }
    String withUserInfo = this.catalog.server().url("/catalog").toString().replace("http://", "http://alice:s3cr3t@");
    ScanPlanner planner = planner(ScanPlanner.builder().uri(withUserInfo).maxRetries(0));
    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("GET http://******@")
        .hasMessageContaining("/catalog" + TABLE_PATH)
        .hasMessageNotContaining("s3cr3t").hasMessageNotContaining("alice");
  }

  @Test
  void aClosedPlannerRefusesEveryCallWithoutSendingIt() {
    ScanPlanner planner = planner();
    planner.close();

    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null))
        .isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, REPORT).block())
        .isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("closed");
    assertThatThrownBy(() -> planner.catalog().supports(Endpoint.LOAD_TABLE))
        .isExactlyInstanceOf(ScanPlanningException.class).hasMessageContaining("closed");
    assertThat(this.catalog.server().getRequestCount()).isZero();
  }

  @Test
  void aClosedPlannerRefusesACallAfterDiscoveryWasCached() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    ScanPlanner planner = planner();
    assertThat(planner.catalog().supports(Endpoint.LOAD_TABLE)).isTrue();
    planner.close();

    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("closed");
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(1);
  }

  @Test
  void aBlockingCallOnANonBlockingThreadIsRefused() {
    ScanPlanner planner = planner();
    // Reactor's parallel threads are non-blocking, as Reactor Netty's event loops (WebFlux handlers) are
    Throwable refused = Mono.fromCallable(() -> planner.catalog().loadTable(TABLE, false))
        .subscribeOn(Schedulers.parallel())
        .map(table -> (Throwable) null).onErrorResume(Mono::just).block(Duration.ofSeconds(30));
    assertThat(refused).isInstanceOf(IllegalStateException.class).hasMessageContaining("non-blocking thread")
        .hasMessageContaining("loadTable()");
    assertThat(this.catalog.server().getRequestCount()).as("nothing was sent").isZero();
  }

  @Test
  void aBlockingCallOnAPlannerThreadIsRefusedInsteadOfDeadlocking() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"file-scan-tasks\":[" + TestTasks.json("a.parquet")
        + "]}");
    ScanPlanner planner = planner(builder().maxConcurrency(1));
    List<Throwable> refused = new CopyOnWriteArrayList<>();

    planner.planTasks(TABLE, ScanRequest.all()).doOnNext(task -> {
      try {
        planner.catalog().loadCredentials(TABLE, "p");
      }
      catch (IllegalStateException expected) {
        refused.add(expected);
      }
    }).blockLast(Duration.ofSeconds(30));

    assertThat(refused).singleElement().extracting(Throwable::getMessage).asString().contains("planner thread");
    assertThat(this.catalog.server().getRequestCount()).as("config and plan only").isEqualTo(2);
  }

  @Test
  void aCallIsBoundedByTheRequestTimeoutRetriesIncluded() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    // each attempt answers at once, but the catalog asks for a retry later than the bound
    this.catalog.enqueue(503, error(503, "ServiceUnavailableException"), "Retry-After", "5");
    this.catalog.enqueue(200, loaded(METADATA, ""));
    ScanPlanner planner = planner(builder().requestTimeout(Duration.ofMillis(500))
        .retryMaxDelay(Duration.ofSeconds(10)));

    long started = System.nanoTime();
    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("loadTable() of db.events").hasMessageContaining("request timeout of PT0.5S");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(4_000);
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(2);
  }

  @Test
  void aStalledAnswerIsBoundedByTheRequestTimeout() {
    this.catalog.enqueue(200, TABLE_ENDPOINTS);
    this.catalog.server().enqueue(new MockResponse.Builder().code(200).headersDelay(10, TimeUnit.SECONDS).body("{}").build());
    ScanPlanner planner = planner(builder().requestTimeout(Duration.ofMillis(300)));

    long started = System.nanoTime();
    assertThatThrownBy(() -> planner.catalog().loadCredentials(TABLE, null))
        .isExactlyInstanceOf(TransportException.class)
        .hasMessageContaining("request timeout");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);
  }

  /**
   * Each call is observed as plans' requests are, by WebClient's own {@code http.client.requests}, tagged with a
   * URI template that holds no table name, and a child of the caller's current observation.
   */
  @Test
  void eachRequestIsObservedByTheHttpClientUnderTheCallersObservation() {
    List<ClientRequestObservationContext> requests = new CopyOnWriteArrayList<>();
    ObservationRegistry registry = ObservationRegistry.create();
    registry.observationConfig().observationHandler(new ObservationHandler<ClientRequestObservationContext>() {
      @Override
      public void onStop(ClientRequestObservationContext context) {
        requests.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ClientRequestObservationContext;
      }
    });
    this.catalog.enqueue(200, TABLE_ENDPOINTS.replace("\"overrides\":{}", "\"overrides\":{\"prefix\":\"wh\"}"));
    this.catalog.enqueue(200, loaded(METADATA, ""));
    this.catalog.enqueue(200, "{\"storage-credentials\":[]}");
    enqueueNoContent();
    ScanPlanner planner = planner(builder().observationRegistry(registry));
    TableIdentifier table = TableIdentifier.of(List.of("sales"), "secret orders");

    Observation caller = Observation.start("caller", registry);
    caller.scoped(() -> {
      planner.catalog().loadTable(table, true);
      planner.catalog().loadCredentials(table, "plan-42");
      planner.catalog().reportMetrics(table, REPORT).block();
    });
    caller.stop();

    String tableTemplate = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";
    assertThat(requests).extracting(context -> context.getLowCardinalityKeyValue("uri").getValue())
        .containsExactly("/v1/config", tableTemplate, tableTemplate + "/credentials", tableTemplate + "/metrics");
    assertThat(requests).allSatisfy(context -> {
      assertThat(context.getParentObservation()).isSameAs(caller);
      assertThat(context.getLowCardinalityKeyValues().stream().map(keyValue -> keyValue.getValue()))
          .noneMatch(value -> value.contains("secret") || value.contains("sales") || value.contains("plan-42"));
    });
  }
}
