package io.icebergscan.planning.test;

import java.io.IOException;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog.RecordedRequest;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.apache.iceberg.types.Types.NestedField.optional;
import static org.apache.iceberg.types.Types.NestedField.required;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

/**
 * The {@code read-restrictions} the embedded catalog serves with a governed table's loads, creations and
 * registrations, per table and per bearer token; its 403 to {@code stats-fields} on masked columns; and the
 * recording of requests. Over plain HTTP, to see the wire format.
 */
class ReadRestrictionsServingTests {

  static final Schema SCHEMA = new Schema(required(1, "id", Types.LongType.get()),
      optional(2, "country", Types.StringType.get()), optional(3, "email", Types.StringType.get()),
      optional(4, "address", Types.StructType.of(optional(5, "zip", Types.StringType.get()))));

  static final TableIdentifier GOVERNED = TableIdentifier.of("db", "governed");
  static final String GOVERNED_PATH = "/v1/namespaces/db/tables/governed";

  static final RestrictionPolicy POLICY = RestrictionPolicy.builder().rowFilter(Expressions.equal("country", "US"))
      .mask("email", "mask-alphanum").mask("address", "mask-to-fixed-value").build();
  static final String POLICY_JSON = "{\"required-row-filter\":{\"type\":\"eq\",\"left\":{\"type\":\"reference\","
      + "\"id\":2},\"right\":{\"type\":\"literal\",\"value\":\"US\"}},\"required-column-projections\":["
      + "{\"field-id\":3,\"action\":\"mask-alphanum\"},{\"field-id\":4,\"action\":\"mask-to-fixed-value\"}]}";

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();
  private RawHttp http;

  @BeforeEach
  void start() {
    this.catalog.start();
    this.catalog.createTable(GOVERNED, SCHEMA).appendDataFiles(2);
    this.http = new RawHttp(this.catalog);
  }

  @AfterEach
  void close() {
    this.catalog.close();
  }

  @Test
  void aLoadCarriesThePolicyAsATopLevelMemberAndIcebergsAnswerUnchanged() {
    RawHttp.Response unrestricted = this.http.get(GOVERNED_PATH);
    this.catalog.readRestrictions(GOVERNED, POLICY);

    RawHttp.Response restricted = this.http.get(GOVERNED_PATH);

    assertThat(restricted.status()).isEqualTo(200);
    assertThat(restricted.json().get("read-restrictions").toString()).isEqualTo(POLICY_JSON);
    // Iceberg's own text, byte for byte, with the member added last
    String body = unrestricted.body();
    assertThat(restricted.body())
        .isEqualTo(body.substring(0, body.length() - 1) + ",\"read-restrictions\":" + POLICY_JSON + "}");
  }

  @Test
  void aLoadWithVendedCredentialsCarriesBoth() {
    this.catalog.readRestrictions(GOVERNED, POLICY).vendedCredentials(
        request -> List.of(StorageCredential.create("memory://", Map.of("token", "vended"))));

    JsonNode loaded = this.http.get(GOVERNED_PATH, "X-Iceberg-Access-Delegation", "vended-credentials").json();

    assertThat(loaded.path("storage-credentials").get(0).path("config").path("token").asText()).isEqualTo("vended");
    assertThat(loaded.get("read-restrictions").toString()).isEqualTo(POLICY_JSON);
  }

  @Test
  void aCreationCarriesThePolicyOfTheTableItCreates() {
    TableIdentifier created = TableIdentifier.of("db", "created");
    this.catalog.readRestrictions(created, POLICY);

    RawHttp.Response answer = this.http.post("/v1/namespaces/db/tables",
        "{\"name\":\"created\",\"schema\":" + SchemaParser.toJson(SCHEMA) + "}");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().path("metadata").path("current-schema-id").isInt()).isTrue();
    assertThat(answer.json().get("read-restrictions").toString()).isEqualTo(POLICY_JSON);
    // the other table's creation carries none
    assertThat(this.http.post("/v1/namespaces/db/tables",
        "{\"name\":\"plain\",\"schema\":" + SchemaParser.toJson(SCHEMA) + "}").json().has("read-restrictions"))
        .isFalse();
  }

  @Test
  void aRegistrationCarriesThePolicyOfTheTableItRegisters() {
    TableIdentifier registered = TableIdentifier.of("db", "registered");
    this.catalog.readRestrictions(registered, POLICY);
    String metadata = ((HasTableOperations) this.catalog.table(GOVERNED).table()).operations().current()
        .metadataFileLocation();

    RawHttp.Response answer = this.http.post("/v1/namespaces/db/register",
        "{\"name\":\"registered\",\"metadata-location\":" + RawHttp.quote(metadata) + "}");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().path("metadata-location").asText()).isEqualTo(metadata);
    assertThat(answer.json().get("read-restrictions").toString()).isEqualTo(POLICY_JSON);
  }

  @Test
  void aBearerTokensPolicyOverridesTheTablesAndTheOthersFallBackToIt() {
    RestrictionPolicy alices = RestrictionPolicy.builder().mask("country", "show-first-4").build();
    this.catalog.readRestrictions(GOVERNED, POLICY).readRestrictions(GOVERNED, "alice", alices)
        .readRestrictions(GOVERNED, "bob", RestrictionPolicy.json("{}"));

    assertThat(restrictions("Bearer alice"))
        .isEqualTo("{\"required-column-projections\":[{\"field-id\":2,\"action\":\"show-first-4\"}]}");
    assertThat(restrictions("Bearer bob")).isEqualTo("{}");
    assertThat(restrictions("Bearer carol")).isEqualTo(POLICY_JSON);
    assertThat(restrictions(null)).isEqualTo(POLICY_JSON);

    this.catalog.readRestrictions(GOVERNED, "alice", null);
    assertThat(restrictions("Bearer alice")).isEqualTo(POLICY_JSON);
    this.catalog.readRestrictions(GOVERNED, null);
    assertThat(restrictions("Bearer bob")).as("a token's policy holds without the table's").isEqualTo("{}");
    assertThat(restrictions("Bearer alice")).isNull();
  }

  @Test
  void otherTablesOtherAnswersAndARemovedPolicyCarryNone() {
    this.catalog.createTable(TableIdentifier.of("db", "open"), SCHEMA);
    this.catalog.readRestrictions(GOVERNED, POLICY);

    assertThat(this.http.get("/v1/namespaces/db/tables/open").json().has("read-restrictions")).isFalse();
    assertThat(this.http.get("/v1/config").json().has("read-restrictions")).isFalse();
    assertThat(this.http.get("/v1/namespaces/db/tables").json().has("read-restrictions")).isFalse();
    RawHttp.Response plan = this.http.post(GOVERNED_PATH + "/plan", "{}");
    assertThat(plan.status()).isEqualTo(200);
    assertThat(plan.json().has("read-restrictions")).isFalse();

    // Iceberg's own refusals keep their status and body
    this.catalog.readRestrictions(TableIdentifier.of("db", "missing"), POLICY);
    RawHttp.Response missing = this.http.get("/v1/namespaces/db/tables/missing");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.json().path("error").path("type").asText()).isEqualTo("NoSuchTableException");

    this.catalog.readRestrictions(GOVERNED, null);
    assertThat(this.http.get(GOVERNED_PATH).json().has("read-restrictions")).isFalse();
  }

  @Test
  void fieldIdsAreThoseOfTheCurrentSchemaWhenServed() {
    this.catalog.readRestrictions(GOVERNED, RestrictionPolicy.builder().mask("email", "mask-alphanum").build());
    Table table = this.catalog.table(GOVERNED).table();
    table.updateSchema().deleteColumn("email").commit();
    table.updateSchema().addColumn("email", Types.StringType.get()).commit();

    assertThat(restrictions(null))
        .isEqualTo("{\"required-column-projections\":[{\"field-id\":6,\"action\":\"mask-alphanum\"}]}");

    table.updateSchema().deleteColumn("email").commit();
    RawHttp.Response unservable = this.http.get(GOVERNED_PATH);
    assertThat(unservable.status()).isEqualTo(400);
    assertThat(unservable.json().path("error").path("message").asText()).contains("email");
  }

  @Test
  void jsonPoliciesAreServedVerbatim() {
    String malformed = "{ \"required-column-projections\": [{\"field-id\": 99, \"action\": \"explode\"}],\n"
        + "  \"required-row-filter\": {\"type\": \"apply\", \"function\": \"no_such_function\"} }";
    this.catalog.readRestrictions(GOVERNED, RestrictionPolicy.json(malformed));

    assertThat(this.http.get(GOVERNED_PATH).body()).endsWith(",\"read-restrictions\":" + malformed + "}");

    this.catalog.readRestrictions(GOVERNED, RestrictionPolicy.json("null"));
    JsonNode nulled = this.http.get(GOVERNED_PATH).json();
    assertThat(nulled.has("read-restrictions")).isTrue();
    assertThat(nulled.get("read-restrictions").isNull()).isTrue();
  }

  @Test
  void statsFieldsOnAMaskedColumnOrUnderOneAreForbidden() {
    this.catalog.readRestrictions(GOVERNED, POLICY);

    RawHttp.Response masked = this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"id\",\"email\"]}");
    assertThat(masked.status()).isEqualTo(403);
    assertThat(masked.json().path("error").path("type").asText()).isEqualTo("ForbiddenException");
    assertThat(masked.json().path("error").path("code").asInt()).isEqualTo(403);
    assertThat(masked.json().path("error").path("message").asText()).contains("email");

    RawHttp.Response nested = this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"address.zip\"]}");
    assertThat(nested.status()).isEqualTo(403);
    assertThat(nested.json().path("error").path("message").asText()).contains("address.zip", "address");

    RawHttp.Response caseInsensitive = this.http.post(GOVERNED_PATH + "/plan",
        "{\"stats-fields\":[\"EMAIL\"],\"case-sensitive\":false}");
    assertThat(caseInsensitive.status()).isEqualTo(403);

    RawHttp.Response unmasked = this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"id\",\"country\"]}");
    assertThat(unmasked.status()).isEqualTo(200);
    assertThat(unmasked.json().path("file-scan-tasks")).hasSize(2);
    assertThat(this.catalog.requestCounts().plan()).isEqualTo(4);
  }

  @Test
  void statsFieldsFollowTheCallersOwnPolicy() {
    this.catalog.readRestrictions(GOVERNED, "bob", RestrictionPolicy.json("{}"))
        .readRestrictions(GOVERNED, "carol", RestrictionPolicy.json(
            "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"mask-alphanum\"}]}"));
    String email = "{\"stats-fields\":[\"email\"]}";
    String country = "{\"stats-fields\":[\"country\"]}";

    assertThat(this.http.post(GOVERNED_PATH + "/plan", email).status()).as("no policy").isEqualTo(200);
    this.catalog.readRestrictions(GOVERNED, POLICY);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email).status()).isEqualTo(403);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email, "Authorization", "Bearer bob").status())
        .isEqualTo(200);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email, "Authorization", "Bearer carol").status())
        .isEqualTo(200);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", country, "Authorization", "Bearer carol").status())
        .isEqualTo(403);
  }

  @Test
  void icebergsOwnClientLoadsCreatesAndPlansRestrictedTables() throws IOException {
    TableIdentifier created = TableIdentifier.of("db", "created");
    this.catalog.readRestrictions(GOVERNED, POLICY).readRestrictions(created, POLICY);
    assertThat(restrictions(null)).isEqualTo(POLICY_JSON);

    try (RESTCatalog client = Tables.icebergClient(this.catalog)) {
      Table loaded = client.loadTable(GOVERNED);
      assertThat(loaded.schema().sameSchema(SCHEMA)).isTrue();
      assertThat(Tables.plannedByIcebergClient(this.catalog, GOVERNED, scan -> scan)).hasSize(2);
      assertThat(client.createTable(created, SCHEMA).schema().sameSchema(SCHEMA)).isTrue();
    }
  }

  @Test
  void recordsMethodPathAuthorizationAndBodyInArrivalOrderWhileOn() throws IOException {
    String plan = "{\"stats-fields\":[\"id\"]}";
    this.http.get("/v1/config");
    assertThat(this.catalog.recordedRequests()).as("off by default").isEmpty();

    this.catalog.recordRequests(true);
    this.http.get("/v1/config", "Authorization", "Bearer t1");
    RawHttp.Response planned = this.http.post(GOVERNED_PATH + "/plan", plan, "Authorization", "Bearer t2");
    this.http.get(GOVERNED_PATH + "/plan/no-such-plan");

    assertThat(planned.status()).isEqualTo(200);
    assertThat(this.catalog.recordedRequests()).containsExactly(
        new RecordedRequest("GET", "/v1/config", "Bearer t1", null),
        new RecordedRequest("POST", GOVERNED_PATH + "/plan", "Bearer t2", plan),
        new RecordedRequest("GET", GOVERNED_PATH + "/plan/no-such-plan", null, null));

    this.catalog.clearRecordedRequests();
    // Iceberg's client with client credentials: the token endpoint's form, then the bearer token it issued
    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("client", Map.of("uri", this.catalog.uri(), "credential", "id:secret"));
      assertThat(client.loadTable(GOVERNED).schema().sameSchema(SCHEMA)).isTrue();
    }
    List<RecordedRequest> recorded = this.catalog.recordedRequests();
    assertThat(recorded).extracting(RecordedRequest::method, RecordedRequest::path).containsExactly(
        tuple("POST", "/v1/oauth/tokens"),
        tuple("GET", "/v1/config"),
        tuple("GET", GOVERNED_PATH));
    assertThat(recorded.get(0).body()).contains("grant_type=client_credentials", "client_secret=secret");
    assertThat(recorded.get(2).authorization()).startsWith("Bearer ");

    this.catalog.recordRequests(false);
    this.http.get("/v1/config");
    assertThat(this.catalog.recordedRequests()).as("kept, and nothing more once off").hasSize(3);
    this.catalog.clearRecordedRequests();
    assertThat(this.catalog.recordedRequests()).isEmpty();
  }

  @Test
  void recordingChangesNoAnswer() {
    this.catalog.readRestrictions(GOVERNED, POLICY);
    String create = "{\"name\":\"created\",\"schema\":" + SchemaParser.toJson(SCHEMA) + "}";
    String load = this.http.get(GOVERNED_PATH).body();
    String plan = this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"id\"]}").body();
    String forbidden = this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"email\"]}").body();

    this.catalog.recordRequests(true);

    assertThat(this.http.get(GOVERNED_PATH).body()).isEqualTo(load);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"id\"]}").json().path("file-scan-tasks"))
        .hasSameSizeAs(new RawHttp.Response(200, plan).json().path("file-scan-tasks"));
    assertThat(this.http.post(GOVERNED_PATH + "/plan", "{\"stats-fields\":[\"email\"]}").body()).isEqualTo(forbidden);
    RawHttp.Response created = this.http.post("/v1/namespaces/db/tables", create);
    assertThat(created.status()).isEqualTo(200);
    assertThat(this.catalog.recordedRequests()).hasSize(4).last().extracting(RecordedRequest::body).isEqualTo(create);
  }

  /** The {@code read-restrictions} of a load of the governed table as text, {@code null} when it has none. */
  private String restrictions(String authorization) {
    RawHttp.Response loaded = authorization == null ? this.http.get(GOVERNED_PATH)
        : this.http.get(GOVERNED_PATH, "Authorization", authorization);
    assertThat(loaded.status()).isEqualTo(200);
    JsonNode restrictions = loaded.json().get("read-restrictions");
    return restrictions == null ? null : restrictions.toString();
  }
}
