package io.icebergscan.planning.health;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.TestCatalogs;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

import static org.assertj.core.api.Assertions.assertThat;

/** The health indicator against real sockets: a scripted catalog, a refused port, a silent server, errors. */
class ScanPlanningHealthIndicatorTests {

  private static final String SUBMIT = "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan";
  private static final String POLL = "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}";
  private static final String CANCEL = "DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}";
  private static final String FETCH_TASKS = "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks";

  private final TestCatalogs.Catalog catalog = TestCatalogs.start();
  private final List<ScanPlanner> planners = new ArrayList<>();

  @StartStop
  private final MockWebServer server = new MockWebServer();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  private ScanPlanningHealthIndicator indicator(String uri, Duration timeout) {
    ScanPlanner planner = ScanPlanner.builder().uri(uri).build();
    this.planners.add(planner);
    return new ScanPlanningHealthIndicator(planner, timeout);
  }

  /** The health, from another thread: a check that hung would fail the test instead of hanging it. */
  private static Health healthWithin(ScanPlanningHealthIndicator indicator, Duration bound) throws Exception {
    return CompletableFuture.supplyAsync(indicator::health).get(bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Test
  void upWithTheCatalogsDetailsWhenItAdvertisesPlanning() throws Exception {
    this.catalog.config(TestCatalogs.ALL_ENDPOINTS.replace("\"overrides\":{}", "\"overrides\":{\"prefix\":\"wh\"}"));

    Health health = healthWithin(indicator(this.catalog.uri().replace("http://", "http://user:secret@"),
        Duration.ofSeconds(5)), Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).containsEntry("uri", this.catalog.uri())
        .containsEntry("prefix", "wh")
        .containsEntry("endpoints", Map.of(SUBMIT, true, POLL, true, CANCEL, true, FETCH_TASKS, true))
        .containsKey("responseTimeMs")
        .doesNotContainKeys("error", "reason");
    assertThat(health.getDetails().get("responseTimeMs")).isInstanceOf(Long.class);
    assertThat(health.getDetails().toString()).doesNotContain("secret");
  }

  @Test
  void anUnprefixedCatalogHasNoPrefixDetail() throws Exception {
    Health health = healthWithin(indicator(this.catalog.uri(), Duration.ofSeconds(5)), Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.UP);
    assertThat(health.getDetails()).doesNotContainKey("prefix");
  }

  @Test
  void downWithTheMissingEndpointsWhenPlanningIsNotAdvertised() throws Exception {
    this.catalog.config("{\"defaults\":{},\"overrides\":{},\"endpoints\":[\"" + SUBMIT + "\",\"" + POLL + "\"]}");

    Health health = healthWithin(indicator(this.catalog.uri(), Duration.ofSeconds(5)), Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat(health.getDetails()).containsEntry("uri", this.catalog.uri())
        .containsEntry("endpoints", Map.of(SUBMIT, true, POLL, true, CANCEL, false, FETCH_TASKS, false));
    assertThat((String) health.getDetails().get("reason")).contains(FETCH_TASKS).doesNotContain(SUBMIT);
  }

  @Test
  void downWhenTheCatalogAdvertisesNoEndpointsAtAll() throws Exception {
    this.catalog.config("{\"defaults\":{},\"overrides\":{}}");

    Health health = healthWithin(indicator(this.catalog.uri(), Duration.ofSeconds(5)), Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat((String) health.getDetails().get("reason")).contains(SUBMIT, FETCH_TASKS);
  }

  @Test
  void downWhenTheConnectionIsRefused() throws Exception {
    int port;
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = closed.getLocalPort();
    }

    Health health = healthWithin(indicator("http://user:secret@127.0.0.1:" + port, Duration.ofSeconds(5)),
        Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat((String) health.getDetails().get("error")).startsWith("io.icebergscan.planning.exceptions.TransportException: ")
        .contains("127.0.0.1:" + port + "/v1/config")
        .doesNotContain("secret");
  }

  @Test
  void downWithinTheTimeoutWhenTheCatalogAcceptsAndNeverAnswers() throws Exception {
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      // The planner's own response timeout is 60 s: only the health timeout can end this check in time.
      ScanPlanningHealthIndicator indicator = indicator("http://127.0.0.1:" + silent.getLocalPort(),
          Duration.ofMillis(300));

      Health health = healthWithin(indicator, Duration.ofSeconds(10));

      assertThat(health.getStatus()).isEqualTo(Status.DOWN);
      assertThat((String) health.getDetails().get("error")).contains("within PT0.3S");
    }
  }

  @Test
  void downWithTheStatusWhenTheCatalogAnswersAnError() throws Exception {
    this.server.enqueue(new MockResponse.Builder().code(500).setHeader("Content-Type", "application/json")
        .body("{\"error\":{\"message\":\"backend unavailable\",\"type\":\"ServiceFailureException\",\"code\":500}}")
        .build());

    Health health = healthWithin(indicator(this.server.url("/").toString(), Duration.ofSeconds(5)),
        Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat((String) health.getDetails().get("error"))
        .isEqualTo("io.icebergscan.planning.exceptions.RestException: HTTP 500 ServiceFailureException: backend unavailable");
  }

  @Test
  void aCatalogAskingToRetryLaterIsReportedAsItAnsweredAndNotAskedAgain() throws Exception {
    for (int i = 0; i < 4; i++) {
      this.server.enqueue(new MockResponse.Builder().code(503).setHeader("Retry-After", "5")
          .setHeader("Content-Type", "application/json")
          .body("{\"error\":{\"message\":\"overloaded\",\"type\":\"ServiceUnavailableException\",\"code\":503}}")
          .build());
    }

    // a plan would wait out Retry-After; a health check reports the answer at once
    Health health = healthWithin(indicator(this.server.url("/").toString(), Duration.ofSeconds(2)),
        Duration.ofSeconds(10));

    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
    assertThat((String) health.getDetails().get("error"))
        .isEqualTo("io.icebergscan.planning.exceptions.RestException: HTTP 503 ServiceUnavailableException: overloaded");
    assertThat(this.server.getRequestCount()).as("one request per check").isEqualTo(1);
  }

  @Test
  void aFreshCheckEveryTime() throws Exception {
    ScanPlanningHealthIndicator indicator = indicator(this.catalog.uri(), Duration.ofSeconds(5));
    assertThat(healthWithin(indicator, Duration.ofSeconds(10)).getStatus()).isEqualTo(Status.UP);

    this.catalog.config("{\"defaults\":{},\"overrides\":{}}");

    assertThat(healthWithin(indicator, Duration.ofSeconds(10)).getStatus()).isEqualTo(Status.DOWN);
  }
}
