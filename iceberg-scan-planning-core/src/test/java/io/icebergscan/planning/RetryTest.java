package io.icebergscan.planning;

import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static io.icebergscan.planning.ScriptedCatalog.ALL_ENDPOINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Transient failures are sent again, safely; everything else fails at once. */
class RetryTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String COMPLETED = "{\"status\":\"completed\",\"plan-id\":\"p\"}";

  @RegisterExtension
  private final MockCatalog catalog = new MockCatalog();

  private ScanPlanner planner;

  private ScanPlanner planner(int maxRetries, Duration maxDelay) {
    this.planner = this.catalog.planner(this.catalog.builder().maxRetries(maxRetries)
        .retryInitialDelay(Duration.ofMillis(5)).retryMaxDelay(maxDelay));
    return this.planner;
  }

  private static String error(int status) {
    return "{\"error\":{\"message\":\"try later\",\"type\":\"ServiceUnavailableException\",\"code\":" + status + "}}";
  }

  /** A failure of code, not of the network (a filter's bug here), is neither retried nor called a transport one. */
  @Test
  void aBugInTheRequestPathIsNotRetriedNorReportedAsATransportFailure() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    AtomicInteger calls = new AtomicInteger();
    this.planner = this.catalog.planner(this.catalog.builder().maxRetries(3)
        .retryInitialDelay(Duration.ofMillis(5))
        .filter((request, next) -> {
          if (request.method().name().equals("POST")) {
            calls.incrementAndGet();
            throw new IllegalStateException("a bug in a filter");
          }
          return next.exchange(request);
        })
        );

    assertThatThrownBy(() -> this.planner.plan(TABLE)).isExactlyInstanceOf(ScanPlanningException.class)
        .hasMessageContaining("IllegalStateException: a bug in a filter")
        .hasRootCauseInstanceOf(IllegalStateException.class);
    assertThat(calls).as("sent once, not retried").hasValue(1);
    assertThat(this.catalog.requests()).hasSize(1);
  }

  @Test
  void a503IsRetriedAfterItsRetryAfterWithTheSameIdempotencyKey() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, error(503), "Retry-After", "1");
    this.catalog.enqueue(200, COMPLETED);
    ScanPlanner planner = planner(3, Duration.ofSeconds(5));

    long started = System.nanoTime();
    assertThat(planner.plan(TABLE).planId()).isEqualTo("p");
    long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

    List<RecordedRequest> requests = this.catalog.requests();
    assertThat(requests).hasSize(3);
    assertThat(requests.get(1).getHeaders().get("Idempotency-Key")).isNotNull()
        .isEqualTo(requests.get(2).getHeaders().get("Idempotency-Key"));
    assertThat(elapsedMillis).as("waited for Retry-After: 1").isGreaterThanOrEqualTo(950);
  }

  @Test
  void a429WithAnHttpDateIsRetried() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    String inTwoSeconds = DateTimeFormatter.RFC_1123_DATE_TIME.format(ZonedDateTime.now(ZoneOffset.UTC).plusSeconds(2));
    this.catalog.enqueue(429, error(429), "Retry-After", inTwoSeconds);
    this.catalog.enqueue(200, COMPLETED);

    long started = System.nanoTime();
    assertThat(planner(3, Duration.ofSeconds(5)).plan(TABLE).planId()).isEqualTo("p");

    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isGreaterThanOrEqualTo(1000);
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(3);
  }

  @Test
  void aRetryAfterLongerThanTheCapIsCapped() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, error(503), "Retry-After", "3600");
    this.catalog.enqueue(200, COMPLETED);

    long started = System.nanoTime();
    assertThat(planner(3, Duration.ofMillis(200)).plan(TABLE).planId()).isEqualTo("p");

    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(30_000)
        .as("capped at 200 ms, not the default 10 s").isLessThan(5_000);
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(3);
  }

  @Test
  void gatewayErrorsAreRetried() throws Exception {
    this.catalog.enqueue(502, "<html>bad gateway</html>");
    this.catalog.enqueue(504, "<html>gateway timeout</html>");
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, COMPLETED);

    assertThat(planner(3, Duration.ofMillis(50)).plan(TABLE).planId()).isEqualTo("p");
    assertThat(this.catalog.requests()).extracting(RecordedRequest::getTarget)
        .containsExactly("/v1/config", "/v1/config", "/v1/config", "/v1/namespaces/db/tables/t/plan");
  }

  @Test
  void aPlanSubmissionIsNotSentAgainAfterAGatewayErrorWhenTheCatalogDoesNotHonourKeys() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(502, "<html>bad gateway</html>");
    this.catalog.enqueue(200, COMPLETED);

    // the catalog may have created the plan behind the gateway: a second POST could create another
    assertThatThrownBy(() -> planner(3, Duration.ofMillis(50)).plan(TABLE)).isInstanceOf(RestException.class)
        .satisfies(failure -> assertThat(((RestException) failure).statusCode()).isEqualTo(502));
    assertThat(this.catalog.requests()).extracting(RecordedRequest::getTarget)
        .containsExactly("/v1/config", "/v1/namespaces/db/tables/t/plan");
  }

  @Test
  void aPlanSubmissionIsSentAgainWithItsKeyWhenTheCatalogHonoursKeys() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS.replace("{\"defaults\"", "{\"idempotency-key-lifetime\":\"PT30M\",\"defaults\""));
    this.catalog.enqueue(502, "<html>bad gateway</html>");
    this.catalog.enqueue(200, COMPLETED);

    assertThat(planner(3, Duration.ofMillis(50)).plan(TABLE).planId()).isEqualTo("p");
    List<RecordedRequest> requests = this.catalog.requests();
    assertThat(requests).extracting(RecordedRequest::getTarget).containsExactly("/v1/config",
        "/v1/namespaces/db/tables/t/plan", "/v1/namespaces/db/tables/t/plan");
    assertThat(requests.get(2).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(1).getHeaders().get("Idempotency-Key"));
  }

  @Test
  void aPlanSubmissionRefusedWith503IsSentAgainEvenWithoutKeys() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, error(503));
    this.catalog.enqueue(200, COMPLETED);

    // a 503 says the request was not acted on
    assertThat(planner(3, Duration.ofMillis(50)).plan(TABLE).planId()).isEqualTo("p");
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(3);
  }

  @Test
  void otherErrorsFailAtOnce() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(500, error(500));
    this.catalog.enqueue(400, error(400));
    ScanPlanner planner = planner(3, Duration.ofMillis(50));

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(500));
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(400));
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(3);
  }

  @Test
  void retriesAreBoundedAndTheLastFailureIsReported() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    for (int i = 0; i < 3; i++) {
      this.catalog.enqueue(503, error(503));
    }

    assertThatThrownBy(() -> planner(2, Duration.ofMillis(50)).plan(TABLE)).isExactlyInstanceOf(RestException.class)
        .satisfies(e -> assertThat(((RestException) e).statusCode()).isEqualTo(503));
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(1 + 3);
  }

  @Test
  void anErrorPageLargerThanTheResponseLimitKeepsItsStatusAndIsRetried() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, "<html>" + "x".repeat(200_000) + "</html>");
    this.catalog.enqueue(200, COMPLETED);
    this.planner = this.catalog.planner(this.catalog.builder().maxRetries(1)
        .retryInitialDelay(Duration.ofMillis(5)).maxResponseBytes(64 * 1024));

    assertThat(this.planner.plan(TABLE).planId()).isEqualTo("p");
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(3);
  }

  @Test
  void noRetriesWhenSwitchedOff() {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, error(503));

    assertThatThrownBy(() -> planner(0, Duration.ofMillis(50)).plan(TABLE)).isInstanceOf(RestException.class);
    assertThat(this.catalog.server().getRequestCount()).isEqualTo(2);
  }

  @Test
  void aRetriedPlanTaskFetchIsStillOneFetchOfTheWalk() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"h1\"]}");
    this.catalog.enqueue(503, error(503));
    this.catalog.enqueue(200, "{\"file-scan-tasks\":[" + TestTasks.json("a.parquet") + "]}");

    ScanPlan plan = planner(3, Duration.ofMillis(50)).plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("a.parquet");
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(1);
    List<RecordedRequest> requests = this.catalog.requests();
    assertThat(requests.get(2).getBody().utf8()).isEqualTo(requests.get(3).getBody().utf8()).contains("h1");
    assertThat(requests.get(2).getHeaders().get("Idempotency-Key"))
        .isEqualTo(requests.get(3).getHeaders().get("Idempotency-Key"));
  }

  /** What a plan counts is what the catalog saw of it: the submission, the fetch and the fetch's retry. */
  @Test
  void requestsMadeCountsEveryRequestTheCatalogSawOfThePlanRetriesIncluded() throws Exception {
    this.catalog.enqueue(200, ALL_ENDPOINTS);
    this.catalog.enqueue(503, error(503));
    this.catalog.enqueue(200, "{\"status\":\"completed\",\"plan-id\":\"p\",\"plan-tasks\":[\"h1\"]}");
    this.catalog.enqueue(503, error(503));
    this.catalog.enqueue(200, "{\"file-scan-tasks\":[" + TestTasks.json("a.parquet") + "]}");

    ScanPlan plan = planner(3, Duration.ofMillis(50)).plan(TABLE);

    List<RecordedRequest> requests = this.catalog.requests();
    assertThat(requests).hasSize(5);
    assertThat(requests.get(0).getTarget()).isEqualTo("/v1/config");
    assertThat(plan.statistics().requestsMade()).as("all but the discovery").isEqualTo(4);
  }
}
