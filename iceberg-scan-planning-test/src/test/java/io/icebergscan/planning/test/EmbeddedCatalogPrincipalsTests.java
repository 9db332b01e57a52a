package io.icebergscan.planning.test;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.StorageCredential;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.icebergscan.planning.test.ReadRestrictionsServingTests.GOVERNED;
import static io.icebergscan.planning.test.ReadRestrictionsServingTests.GOVERNED_PATH;
import static io.icebergscan.planning.test.ReadRestrictionsServingTests.POLICY;
import static io.icebergscan.planning.test.ReadRestrictionsServingTests.POLICY_JSON;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The embedded catalog's principals over plain HTTP: who a request is by its bearer token (401 for no principal's),
 * which tables a principal may use (403), and the read restrictions its grants serve it.
 */
class EmbeddedCatalogPrincipalsTests {

  static final TableIdentifier EVENTS = TableIdentifier.of("db", "events");
  static final String EVENTS_PATH = "/v1/namespaces/db/tables/events";
  static final TableIdentifier SECRET = TableIdentifier.of("db", "secret");
  static final String SECRET_PATH = "/v1/namespaces/db/tables/secret";
  static final String[] ALICE = { "Authorization", "Bearer alice-token" };
  static final String[] BOB = { "Authorization", "Bearer bob-token" };

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();
  private RawHttp http;

  @AfterEach
  void close() {
    this.catalog.close();
  }

  /** Starts the catalog with two tables of {@code files} data files each. */
  private void start(int files) {
    this.catalog.start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(files);
    this.catalog.createTable(SECRET, Tables.SCHEMA).appendDataFiles(files);
    this.http = new RawHttp(this.catalog);
  }

  @Test
  void withoutPrincipalsAnyTokenOrNoneIsServedAndOnceOneIsDefinedOnlyItsTokensAre() {
    start(1);
    assertThat(this.http.get("/v1/config").status()).isEqualTo(200);
    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer anything").status()).isEqualTo(200);

    this.catalog.principal("alice", "alice-token");

    assertRefused(this.http.get("/v1/config"), 401, "NotAuthorizedException", "no bearer token");
    RawHttp.Response unknown = this.http.get(EVENTS_PATH, "Authorization", "Bearer anything");
    assertRefused(unknown, 401, "NotAuthorizedException", "not a principal's");
    assertThat(unknown.body()).doesNotContain("anything");
    assertRefused(this.http.post(EVENTS_PATH + "/plan", "{}", "Authorization", "Basic YTpi"), 401,
        "NotAuthorizedException", "no bearer token");
    this.catalog.resetRequestCounts();

    assertThat(this.http.get("/v1/config", ALICE).status()).isEqualTo(200);
    assertThat(this.http.post(EVENTS_PATH + "/plan", "{}", ALICE).status()).isEqualTo(200);
    assertThat(this.http.get("/v1/config", BOB).status()).isEqualTo(401);
    assertThat(this.http.post(EVENTS_PATH + "/plan", "{}", BOB).status()).isEqualTo(401);
    assertThat(this.catalog.requestCounts().config()).as("refused requests are not counted").isEqualTo(1);
    assertThat(this.catalog.requestCounts().plan()).isEqualTo(1);
  }

  @Test
  void aPrincipalGetsMoreTokensAndATokenIsOnlyOnePrincipals() {
    start(1);
    this.catalog.principal("alice", "alice-token").principal("alice", "alice-second-token");
    this.catalog.principal("bob", "bob-token");

    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer alice-second-token").status()).isEqualTo(200);
    assertThatIllegalArgumentException().isThrownBy(() -> this.catalog.principal("bob", "alice-token"))
        .withMessageContaining("alice").withMessageNotContaining("alice-token");
    assertThatIllegalArgumentException().isThrownBy(() -> this.catalog.principal("carol", ""));
    assertThatIllegalArgumentException().isThrownBy(() -> this.catalog.grant("carol", EVENTS))
        .withMessageContaining("carol");
    assertThat(this.http.get(EVENTS_PATH, BOB).status()).isEqualTo(200);
  }

  @Test
  void aPrincipalWithGrantsUsesOnlyItsTablesAndOneWithoutAnyUsesAll() {
    start(1);
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token").grant("alice", EVENTS)
        .vendedCredentials(request -> List.of(StorageCredential.create("memory://", Map.of("token", "vended"))));

    assertThat(this.http.get(EVENTS_PATH, ALICE).status()).isEqualTo(200);
    assertThat(this.http.head(EVENTS_PATH, ALICE).status()).isEqualTo(204);
    assertThat(this.http.post(EVENTS_PATH + "/plan", "{}", ALICE).status()).isEqualTo(200);
    assertThat(this.http.get(EVENTS_PATH + "/credentials", ALICE).status()).isEqualTo(200);
    assertRefused(this.http.get(SECRET_PATH, ALICE), 403, "ForbiddenException", "db.secret");
    assertThat(this.http.head(SECRET_PATH, ALICE).status()).isEqualTo(403);
    assertRefused(this.http.post(SECRET_PATH + "/plan", "{}", ALICE), 403, "ForbiddenException", "db.secret");
    assertRefused(this.http.get(SECRET_PATH + "/credentials", ALICE), 403, "ForbiddenException", "db.secret");
    assertRefused(this.http.get("/v1/namespaces/db/tables/missing", ALICE), 403, "ForbiddenException",
        "db.missing");
    // bob has no grant: every table
    assertThat(this.http.get(SECRET_PATH, BOB).status()).isEqualTo(200);
    assertThat(this.http.post(SECRET_PATH + "/plan", "{}", BOB).status()).isEqualTo(200);
    assertThat(this.catalog.requestCounts().plan()).as("grant refusals are counted as their routes").isEqualTo(3);

    this.catalog.grant("alice", SECRET);
    assertThat(this.http.get(SECRET_PATH, ALICE).status()).isEqualTo(200);
  }

  @Test
  void aGrantsPolicyIsThePrincipalsOwnAfterItsTokensAndBeforeTheTables() {
    this.catalog.start();
    this.catalog.createTable(GOVERNED, ReadRestrictionsServingTests.SCHEMA).appendDataFiles(2);
    this.http = new RawHttp(this.catalog);
    RestrictionPolicy countryMasked = RestrictionPolicy.json(
        "{\"required-column-projections\":[{\"field-id\":2,\"action\":\"mask-alphanum\"}]}");
    this.catalog.readRestrictions(GOVERNED, POLICY).principal("alice", "alice-token", "alice-other-token")
        .principal("bob", "bob-token").principal("carol", "carol-token")
        .grant("alice", GOVERNED, countryMasked).grant("bob", GOVERNED, RestrictionPolicy.json("{}"))
        .grant("carol", GOVERNED);

    assertThat(restrictions(ALICE)).isEqualTo(countryMasked.toJson(ReadRestrictionsServingTests.SCHEMA));
    assertThat(restrictions(BOB)).isEqualTo("{}");
    assertThat(restrictions("Authorization", "Bearer carol-token")).isEqualTo(POLICY_JSON);
    String email = "{\"stats-fields\":[\"email\"]}";
    String country = "{\"stats-fields\":[\"country\"]}";
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email, ALICE).status()).isEqualTo(200);
    assertRefused(this.http.post(GOVERNED_PATH + "/plan", country, ALICE), 403, "ForbiddenException", "country");
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email, BOB).status()).isEqualTo(200);
    assertThat(this.http.post(GOVERNED_PATH + "/plan", email, "Authorization", "Bearer carol-token").status())
        .isEqualTo(403);

    // one token's own policy comes first; the principal's other token keeps the principal's
    this.catalog.readRestrictions(GOVERNED, "alice-token", RestrictionPolicy.json("{}"));
    assertThat(restrictions(ALICE)).isEqualTo("{}");
    assertThat(restrictions("Authorization", "Bearer alice-other-token"))
        .isEqualTo(countryMasked.toJson(ReadRestrictionsServingTests.SCHEMA));
    // a grant without a policy replaces one with
    this.catalog.grant("bob", GOVERNED);
    assertThat(restrictions(BOB)).isEqualTo(POLICY_JSON);
  }

  private static void assertRefused(RawHttp.Response refused, int status, String type, String message) {
    assertThat(refused.status()).isEqualTo(status);
    assertThat(refused.json().path("error").path("type").asText()).isEqualTo(type);
    assertThat(refused.json().path("error").path("code").asInt()).isEqualTo(status);
    assertThat(refused.json().path("error").path("message").asText()).contains(message);
  }

  /** The {@code read-restrictions} of a load of the governed table as text, {@code null} when it has none. */
  private String restrictions(String... headers) {
    RawHttp.Response loaded = this.http.get(GOVERNED_PATH, headers);
    assertThat(loaded.status()).isEqualTo(200);
    JsonNode restrictions = loaded.json().get("read-restrictions");
    return restrictions == null ? null : restrictions.toString();
  }
}
