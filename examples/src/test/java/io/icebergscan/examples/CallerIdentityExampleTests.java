package io.icebergscan.examples;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.stream.LongStream;

import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example with the {@code callers} profile, on its embedded demo catalog: the rows endpoint plans and reads as the
 * caller whose bearer token authenticated the request, and the catalog serves each demo caller {@code demo.customers}
 * as it was told to: alice its restrictions (the US rows, masked), bob none. A request without a token reaches the
 * planner, which refuses it with a 401 problem; a token the application does not know is refused by Spring Security.
 * Nothing of either reaches the catalog.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = { "example.demo.files=16", "example.demo.latency-ms=1", "example.warm-up-plans=0" })
@ActiveProfiles("callers")
@ExtendWith(OutputCaptureExtension.class)
class CallerIdentityExampleTests {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  @Value("${local.server.port}")
  private int port;

  @Autowired
  private DemoCatalog.Started demo;

  @Autowired
  private PlanSummary summary;

  /** An exchange with the example: status, headers, body. */
  record Answer(int status, HttpHeaders headers, String body) {

    JsonNode json() {
      return JSON.readTree(this.body);
    }
  }

  static Answer get(int port, String path, @Nullable String token) {
    return WebClient.create("http://localhost:" + port).get().uri(path).accept(MediaType.APPLICATION_JSON)
        .headers(headers -> {
          if (token != null) {
            headers.setBearerAuth(token);
          }
        })
        .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> new Answer(response.statusCode().value(), response.headers().asHttpHeaders(), body)))
        .block(Duration.ofSeconds(30));
  }

  private Answer customers(@Nullable String token) {
    return get(this.port, "/tables/" + DemoCustomers.NAME + "/rows?limit=100", token);
  }

  /**
   * {@code call}'s answer, and the requests the catalog received while it was made, but scan reports: sent in the
   * background after a read, one may arrive while the next call is recorded.
   */
  private Recorded record(Supplier<Answer> call) {
    EmbeddedIcebergCatalog catalog = this.demo.catalog();
    catalog.clearRecordedRequests();
    catalog.recordRequests(true);
    try {
      Answer answer = call.get();
      return new Recorded(answer, catalog.recordedRequests().stream()
          .filter(request -> !request.path().endsWith("/metrics")).toList());
    }
    finally {
      catalog.recordRequests(false);
      catalog.clearRecordedRequests();
    }
  }

  record Recorded(Answer answer, List<EmbeddedIcebergCatalog.RecordedRequest> requests) {
  }

  @Test
  void aliceGetsTheCustomersHerRestrictionsLeaveMaskedAndTheCatalogSawHerToken() {
    Recorded alices = record(() -> customers(DemoCallers.ALICE_TOKEN));

    assertThat(rows(alices.answer())).hasSize(DemoCustomers.VISIBLE_ROWS)
        .allSatisfy(CallerIdentityExampleTests::assertRestricted);
    assertThat(alices.answer().body()).doesNotContain("@example.com");
    // the table's load and its read went out with alice's token, and with no other
    assertThat(alices.requests()).anySatisfy(request -> assertThat(request.path()).contains("/tables/customers"))
        .extracting(EmbeddedIcebergCatalog.RecordedRequest::authorization)
        .containsOnly("Bearer " + DemoCallers.ALICE_TOKEN);
  }

  /** The rows of a 200 answer. */
  static List<JsonNode> rows(Answer answer) {
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    return answer.json().valueStream().toList();
  }

  /** A row of {@code demo.customers} as its restrictions leave it: one the row filter keeps, masked. */
  static void assertRestricted(JsonNode row) {
    assertThat(row.get("country").asString()).isEqualTo(DemoCustomers.VISIBLE_COUNTRY);
    assertThat(row.get("email").isNull() || row.get("email").asString().matches("[xn]+@x+\\.x+")).isTrue();
    assertThat(row.get("birth_date").isNull() || row.get("birth_date").asString().endsWith("-01-01")).isTrue();
  }

  @Test
  void bobGetsEveryCustomerRawForTheCatalogServesHimNoRestrictions() {
    Recorded bobs = record(() -> customers(DemoCallers.BOB_TOKEN));

    List<JsonNode> rows = rows(bobs.answer());
    assertThat(rows).extracting(row -> row.get("id").asLong())
        .containsExactlyInAnyOrderElementsOf(LongStream.range(0, DemoCustomers.ROWS).boxed().toList());
    assertThat(rows).extracting(row -> row.get("country").asString()).contains(DemoCustomers.VISIBLE_COUNTRY, "DE");
    assertThat(rows).filteredOn(row -> !row.get("email").isNull())
        .allSatisfy(row -> assertThat(row.get("email").asString()).endsWith("@example.com"));
    assertThat(bobs.requests()).isNotEmpty().extracting(EmbeddedIcebergCatalog.RecordedRequest::authorization)
        .containsOnly("Bearer " + DemoCallers.BOB_TOKEN);
  }

  @Test
  void bothReadTheEventsTable() {
    for (String token : List.of(DemoCallers.ALICE_TOKEN, DemoCallers.BOB_TOKEN)) {
      assertThat(rows(get(this.port, "/tables/demo.events/rows?limit=5&select=id", token))).hasSize(5)
          .allSatisfy(row -> assertThat(row.get("id").isNumber()).isTrue());
    }
  }

  /**
   * The customer repository's derived query runs as the caller: alice's row filter keeps no German customer and
   * masks what it keeps, bob reads them all raw; each call's load and read reached the catalog with the caller's
   * token only.
   */
  @Test
  void theRepositoryCallRunsAsTheCallerWithTheRestrictionsTheCatalogServesThem() {
    Recorded alicesGerman = record(() -> get(this.port, "/customers?country=DE", DemoCallers.ALICE_TOKEN));
    assertThat(rows(alicesGerman.answer())).as("alice's row filter keeps the US customers only").isEmpty();
    assertThat(alicesGerman.requests()).isNotEmpty()
        .extracting(EmbeddedIcebergCatalog.RecordedRequest::authorization)
        .containsOnly("Bearer " + DemoCallers.ALICE_TOKEN);
    Recorded alicesUs = record(() -> get(this.port, "/customers?country=US", DemoCallers.ALICE_TOKEN));
    assertThat(rows(alicesUs.answer())).hasSize(DemoCustomers.VISIBLE_ROWS)
        .allSatisfy(RepositoriesExampleTests::assertRestricted);

    Recorded bobs = record(() -> get(this.port, "/customers?country=DE", DemoCallers.BOB_TOKEN));
    List<JsonNode> german = rows(bobs.answer());
    assertThat(german).hasSize(DemoCustomers.ROWS - DemoCustomers.VISIBLE_ROWS)
        .allSatisfy(customer -> assertThat(customer.get("country").asString()).isEqualTo("DE"));
    assertThat(german).filteredOn(customer -> !customer.get("email").isNull()).isNotEmpty()
        .allSatisfy(customer -> assertThat(customer.get("email").asString()).endsWith("@example.com"));
    assertThat(bobs.requests()).isNotEmpty().extracting(EmbeddedIcebergCatalog.RecordedRequest::authorization)
        .containsOnly("Bearer " + DemoCallers.BOB_TOKEN);
  }

  @Test
  void theRepositoryEndpointsNeedAToken() {
    Recorded nobodys = record(() -> get(this.port, "/events?day=2026-11-01", null));
    assertThat(nobodys.answer().status()).isEqualTo(401);
    assertThat(nobodys.requests()).isEmpty();
    assertThat(rows(get(this.port, "/events?day=2026-11-01&limit=3", DemoCallers.BOB_TOKEN))).hasSize(3);
  }

  @Test
  void withoutATokenThePlannerAnswers401SayingThereIsNoCallerAndTheCatalogHearsNothing() {
    Recorded nobodys = record(() -> customers(null));

    Answer answer = nobodys.answer();
    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.headers().getContentType()).hasToString(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
    assertThat(answer.headers().getFirst(HttpHeaders.WWW_AUTHENTICATE)).isEqualTo("Bearer");
    assertThat(answer.json().get("detail").asString()).isEqualTo("The request has no authenticated caller");
    assertThat(answer.json().has("exception")).as("no class name by default").isFalse();
    assertThat(nobodys.requests()).isEmpty();
  }

  @Test
  void aTokenTheApplicationDoesNotKnowIsRefusedBySpringSecurity() {
    Recorded carols = record(() -> customers("carol-demo-token"));

    assertThat(carols.answer().status()).isEqualTo(401);
    assertThat(carols.answer().headers().getFirst(HttpHeaders.WWW_AUTHENTICATE)).startsWith("Bearer")
        .contains("invalid_token").doesNotContain("carol");
    assertThat(carols.answer().body()).doesNotContain("carol");
    assertThat(carols.requests()).isEmpty();
  }

  @Test
  void healthNeedsNoTokenAndChecksTheCatalogAsTheApplicationWhileOtherEndpointsNeedOne() {
    Recorded health = record(() -> get(this.port, "/actuator/health", null));

    assertThat(health.answer().status()).isEqualTo(200);
    assertThat(health.answer().json().path("components").path("icebergScanPlanning").path("status").asString())
        .isEqualTo("UP");
    assertThat(health.requests()).isNotEmpty().extracting(EmbeddedIcebergCatalog.RecordedRequest::authorization)
        .containsOnly("Bearer " + DemoCallers.SERVICE_TOKEN);
    assertThat(get(this.port, "/actuator/metrics", null).status()).isEqualTo(401);
    assertThat(get(this.port, "/actuator/metrics", DemoCallers.ALICE_TOKEN).status()).isEqualTo(200);
  }

  @Test
  void startUpPlansNothingAndSaysHowTheDemoCallersGetTheirRows(CapturedOutput output) {
    assertThat(this.summary.lastRun()).isNull();
    assertThat(this.summary.lastGoverned()).isNull();
    assertThat(output).contains("No plan at start-up: iceberg.rest.identity is caller")
        .contains("curl -H 'Authorization: Bearer alice-demo-token' http://localhost:" + this.port
            + "/tables/demo.customers/rows")
        .contains("curl -H 'Authorization: Bearer bob-demo-token' http://localhost:" + this.port
            + "/tables/demo.customers/rows")
        .doesNotContain("Scan plan for demo.events");
  }
}
