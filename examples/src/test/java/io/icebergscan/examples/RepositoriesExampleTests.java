package io.icebergscan.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example's repositories over HTTP, as a user runs it (the same settings as
 * {@link ScanPlanningExampleApplicationTests}, so the same application): a derived query on {@code demo.events}
 * serves the rows the same filter written by hand reads, and the catalog plans with its predicate; a window pages
 * through a day with the tokens it hands out, no row missing or repeated; the governed {@code demo.customers} is read
 * with its restrictions.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = { "example.demo.files=400", "example.demo.latency-ms=1", "example.warm-up-plans=2" })
class RepositoriesExampleTests {

  private static final JsonMapper JSON = JsonMapper.builder().build();

  /** A day with an equality delete file among its files, and one without deletes. */
  private static final String DELETED_DAY = "2026-11-04";
  private static final String WHOLE_DAY = "2026-11-05";

  @Value("${local.server.port}")
  private int port;

  @Autowired
  private IcebergScanPlanner planner;

  @Autowired
  private DemoCatalog.Started demo;

  record Answer(int status, String body) {

    JsonNode json() {
      return JSON.readTree(this.body);
    }
  }

  private Answer get(String path, Object... variables) {
    return WebClient.create("http://localhost:" + this.port).get().uri(path, variables)
        .accept(MediaType.APPLICATION_JSON)
        .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> new Answer(response.statusCode().value(), body)))
        .block(Duration.ofSeconds(30));
  }

  /** The ids of {@code day}'s events as a hand-written read of the same filter finds them. */
  private List<Long> handWritten(String day) {
    List<Long> ids = new ArrayList<>();
    try (ScanRows rows = this.planner.readRows(this.planner.loadTable(DemoTable.IDENTIFIER),
        IcebergScan.all().filter(Expressions.equal("day", day)))) {
      for (Record row : rows) {
        ids.add((Long) row.getField("id"));
      }
    }
    return ids;
  }

  private static List<Long> ids(JsonNode events) {
    return events.valueStream().map(event -> event.get("id").asLong()).toList();
  }

  @Test
  void theDerivedQueryServesTheRowsOfTheFilterWrittenByHandAndTheCatalogPlansWithItsPredicate() {
    EmbeddedIcebergCatalog catalog = this.demo.catalog();
    catalog.clearRecordedRequests();
    catalog.recordRequests(true);
    Answer answer;
    try {
      answer = get("/events?day={day}&limit=1000", DELETED_DAY);
    }
    finally {
      catalog.recordRequests(false);
    }
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    List<Long> expected = handWritten(DELETED_DAY);
    assertThat(expected).as("the day's live rows").hasSizeGreaterThan(1);
    assertThat(ids(answer.json())).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(answer.json().valueStream()).allSatisfy(event -> {
      assertThat(event.get("day").asString()).isEqualTo(DELETED_DAY);
      assertThat(event.get("payload").asString()).endsWith("-" + event.get("id").asLong());
    });
    assertThat(catalog.recordedRequests()).as("the plan request carries the derived predicate")
        .anySatisfy(request -> {
          assertThat(request.path()).endsWith("/tables/events/plan");
          assertThat(request.body()).contains("\"day\"").contains(DELETED_DAY);
        });
    catalog.clearRecordedRequests();
  }

  @Test
  void aLimitBoundsTheRows() {
    Answer answer = get("/events?day={day}&limit=7", WHOLE_DAY);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    List<Long> day = handWritten(WHOLE_DAY);
    assertThat(ids(answer.json())).hasSize(7).doesNotHaveDuplicates().allSatisfy(id -> assertThat(day).contains(id));
  }

  @Test
  void aWindowPagesThroughADayWithTheTokensItHandsOutNoRowMissingOrRepeated() {
    List<Long> paged = new ArrayList<>();
    String next = null;
    int pages = 0;
    do {
      Answer page = next == null ? get("/events/window?day={day}&size=40", DELETED_DAY)
          : get("/events/window?day={day}&size=40&after={after}", DELETED_DAY, next);
      assertThat(page.status()).as(page.body()).isEqualTo(200);
      paged.addAll(ids(page.json().get("events")));
      JsonNode token = page.json().get("next");
      next = token == null || token.isNull() ? null : token.asString();
      pages++;
    }
    while (next != null && pages < 100);
    List<Long> expected = handWritten(DELETED_DAY);
    assertThat(expected).as("more than two pages' worth").hasSizeGreaterThan(80);
    assertThat(paged).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(expected);
    assertThat(pages).isEqualTo((expected.size() + 39) / 40);
  }

  @Test
  void aCountIsTheRowsOfTheDayWhetherItHasDeletesOrNot() {
    for (String day : List.of(DELETED_DAY, WHOLE_DAY)) {
      Answer answer = get("/events/count?day={day}", day);
      assertThat(answer.status()).as(answer.body()).isEqualTo(200);
      assertThat(answer.json().get("events").asLong()).as(day).isEqualTo(handWritten(day).size());
    }
  }

  @Test
  void aTokenThatIsNoPositionIsABadRequestAndOneOfAnExpiredSnapshotIsGone() {
    assertThat(get("/events/window?day={day}&after=not-a-token", WHOLE_DAY).status()).isEqualTo(400);
    String expired = IcebergScrollPosition.after(42L, "s3://nowhere/file.parquet", 0).toToken();
    Answer gone = get("/events/window?day={day}&after={after}", WHOLE_DAY, expired);
    assertThat(gone.status()).as(gone.body()).isEqualTo(410);
    assertThat(gone.json().get("detail").asString()).contains("snapshot 42 of demo.events");
    assertThat(get("/events?day={day}&limit=0", WHOLE_DAY).status()).isEqualTo(400);
  }

  @Test
  void theGovernedCustomersAreReadWithTheirRestrictions() {
    Answer visible = get("/customers?country={country}", DemoCustomers.VISIBLE_COUNTRY);
    assertThat(visible.status()).as(visible.body()).isEqualTo(200);
    List<JsonNode> rows = visible.json().valueStream().toList();
    assertThat(rows).hasSize(DemoCustomers.VISIBLE_ROWS).allSatisfy(RepositoriesExampleTests::assertRestricted);
    Answer filtered = get("/customers?country=DE");
    assertThat(filtered.status()).as(filtered.body()).isEqualTo(200);
    assertThat(filtered.json().size()).as("the row filter keeps no DE customer").isZero();
  }

  /** A customer as its restrictions leave it, as the repository maps it: the birth date in camel case. */
  static void assertRestricted(JsonNode customer) {
    assertThat(customer.get("country").asString()).isEqualTo(DemoCustomers.VISIBLE_COUNTRY);
    assertThat(customer.get("email").isNull() || customer.get("email").asString().matches("[xn]+@x+\\.x+")).isTrue();
    assertThat(customer.get("birthDate").isNull() || customer.get("birthDate").asString().endsWith("-01-01"))
        .isTrue();
  }
}
