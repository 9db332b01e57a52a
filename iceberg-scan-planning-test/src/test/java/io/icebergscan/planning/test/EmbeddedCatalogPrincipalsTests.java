package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog.RecordedRequest;
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
 * which tables a principal may use (403), the read restrictions its grants serve it, and the plans that are its own
 * (403 to every other principal, counted).
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
    // the token endpoint stays open: it answers as an OAuth2 endpoint, not with the catalog's 401
    RawHttp.Response tokens = this.http.postForm("/v1/oauth/tokens", "grant_type=password");
    assertThat(tokens.status()).isEqualTo(400);
    assertThat(tokens.json().path("error").asText()).isEqualTo("unsupported_grant_type");
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

  @Test
  void aFanOutPlanIsItsSubmittersAlonePollsFetchesCredentialsAndCancelsOfOthersAreRefusedAndCounted() {
    this.catalog.fanOut(FanOut.levels(2, 2)).planAsync(true)
        .vendedCredentials(request -> List.of(StorageCredential.create("memory://", Map.of("token", "vended"))));
    start(8);
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token");
    String planId = this.http.post(EVENTS_PATH + "/plan", "{}", ALICE).json().path("plan-id").asText();
    String planPath = EVENTS_PATH + "/plan/" + planId;

    assertCrossPrincipal(this.http.get(planPath, BOB), planId, 1);
    JsonNode polled = this.http.get(planPath, ALICE).json();
    assertThat(polled.path("status").asText()).isEqualTo("completed");
    String handle = polled.path("plan-tasks").get(0).asText();
    assertCrossPrincipal(this.http.tasks(EVENTS_PATH, handle, BOB), planId, 2);
    RawHttp.Response fetched = this.http.tasks(EVENTS_PATH, handle, ALICE);
    assertThat(fetched.status()).isEqualTo(200);
    String child = fetched.json().path("plan-tasks").get(0).asText();
    assertCrossPrincipal(this.http.tasks(EVENTS_PATH, child, BOB), planId, 3);
    assertThat(this.http.tasks(EVENTS_PATH, child, ALICE).status()).isEqualTo(200);
    assertCrossPrincipal(this.http.get(EVENTS_PATH + "/credentials?planId=" + planId, BOB), planId, 4);
    assertThat(this.http.get(EVENTS_PATH + "/credentials?planId=" + planId, ALICE).status()).isEqualTo(200);
    assertThat(this.http.get(EVENTS_PATH + "/credentials", BOB).status()).as("no plan named").isEqualTo(200);
    assertCrossPrincipal(this.http.delete(planPath, BOB), planId, 5);
    assertThat(this.http.tasks(EVENTS_PATH, child, ALICE).status()).as("bob's cancel did nothing").isEqualTo(200);

    assertThat(this.http.delete(planPath, ALICE).status()).isEqualTo(204);
    // a cancelled plan is forgotten: bob is told what anyone would be
    assertThat(this.http.get(planPath, BOB).status()).isEqualTo(404);
    assertThat(this.catalog.crossPrincipalRequests()).isEqualTo(5);
    this.catalog.resetRequestCounts();
    assertThat(this.catalog.crossPrincipalRequests()).isZero();
  }

  @Test
  void icebergsOwnChainOfPlanTasksIsItsSubmittersToo() {
    this.catalog.tasksPerPlanTask(1);
    start(3);
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token");
    JsonNode planned = this.http.post(EVENTS_PATH + "/plan", "{}", ALICE).json();
    assertThat(planned.path("status").asText()).isEqualTo("completed");
    String first = planned.path("plan-tasks").get(0).asText();

    assertThat(this.http.tasks(EVENTS_PATH, first, BOB).status()).isEqualTo(403);
    RawHttp.Response fetched = this.http.tasks(EVENTS_PATH, first, ALICE);
    assertThat(fetched.status()).isEqualTo(200);
    String second = fetched.json().path("plan-tasks").get(0).asText();
    RawHttp.Response refused = this.http.tasks(EVENTS_PATH, second, BOB);
    assertRefused(refused, 403, "ForbiddenException", "belongs to another principal");
    assertThat(this.http.tasks(EVENTS_PATH, second, ALICE).status()).isEqualTo(200);
    assertThat(this.catalog.crossPrincipalRequests()).isEqualTo(2);
  }

  @Test
  void aPlanSubmittedBeforeThereWerePrincipalsIsNoOnesAndPollingItDoesNotMakeItOnes() {
    this.catalog.fanOut(FanOut.levels(2, 2)).planAsync(true);
    start(8);
    String planId = this.http.post(EVENTS_PATH + "/plan", "{}").json().path("plan-id").asText();
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token");

    JsonNode polled = this.http.get(EVENTS_PATH + "/plan/" + planId, ALICE).json();
    String handle = polled.path("plan-tasks").get(0).asText();
    RawHttp.Response fetched = this.http.tasks(EVENTS_PATH, handle, BOB);
    assertThat(fetched.status()).isEqualTo(200);
    assertThat(this.http.tasks(EVENTS_PATH, fetched.json().path("plan-tasks").get(0).asText(), ALICE).status())
        .isEqualTo(200);
    assertThat(this.http.delete(EVENTS_PATH + "/plan/" + planId, BOB).status()).isEqualTo(204);
    assertThat(this.catalog.crossPrincipalRequests()).isZero();
  }

  @Test
  void sixtyFourConcurrentPlansOfTwoPrincipalsEachCarryTheirOwnIdentity() throws Exception {
    this.catalog.fanOut(FanOut.uniform(2, 2)).planAsync(true).recordRequests(true);
    start(12);
    this.catalog.principal("alice", "alice-token").principal("bob", "bob-token");
    ExecutorService callers = Executors.newFixedThreadPool(16);
    try (ScanPlanner alice = ScanPlanner.builder().uri(this.catalog.uri()).header(ALICE[0], ALICE[1]).build();
        ScanPlanner bob = ScanPlanner.builder().uri(this.catalog.uri()).header(BOB[0], BOB[1]).build()) {
      List<Callable<ScanPlan>> plans = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        ScanPlanner planner = i % 2 == 0 ? alice : bob;
        plans.add(() -> planner.plan(io.icebergscan.planning.model.TableIdentifier.of("db", "events")));
      }
      for (Future<ScanPlan> plan : callers.invokeAll(plans, 2, TimeUnit.MINUTES)) {
        assertThat(plan.get().tasks()).hasSize(12);
      }
    }
    finally {
      callers.shutdownNow();
    }

    assertThat(this.catalog.requestCounts().plan()).isEqualTo(64);
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(64 * (2 + 4));
    assertThat(this.catalog.crossPrincipalRequests()).isZero();
    // and the plans were told apart: one of alice's plan-tasks, fetched by bob, is refused
    String alicesFetch = this.catalog.recordedRequests().stream()
        .filter(request -> request.path().endsWith("/tasks") && ALICE[1].equals(request.authorization()))
        .map(RecordedRequest::body).findFirst().orElseThrow();
    assertThat(this.http.post(EVENTS_PATH + "/tasks", alicesFetch, BOB).status()).isEqualTo(403);
    assertThat(this.catalog.crossPrincipalRequests()).isEqualTo(1);
  }

  /** A refusal of a request for another principal's plan, the {@code soFar}-th counted. */
  private void assertCrossPrincipal(RawHttp.Response refused, String planId, int soFar) {
    assertRefused(refused, 403, "ForbiddenException", "plan " + planId + " belongs to another principal");
    assertThat(this.catalog.crossPrincipalRequests()).isEqualTo(soFar);
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
