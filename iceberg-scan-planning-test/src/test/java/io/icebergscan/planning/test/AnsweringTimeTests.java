package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The time the catalog spends answering plans, {@link RequestCounts#answering()}: relations that hold whatever the
 * machine's speed, never a bound on how fast anything is.
 */
class AnsweringTimeTests {

  private static final TableIdentifier EVENTS = EmbeddedIcebergCatalogTests.EVENTS;
  private static final io.icebergscan.planning.model.TableIdentifier PLANNER_EVENTS =
      io.icebergscan.planning.model.TableIdentifier.of(List.of("db", "sales"), "events");
  private static final Duration LATENCY = Duration.ofMillis(5);
  private static final int MAX_CONCURRENCY = 4;

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();

  @AfterEach
  void close() {
    this.catalog.close();
  }

  @Test
  void theTasksTimeCoversTheLatencyOfEveryFetchAndTheBusyTimeLiesWithinThePlan() {
    this.catalog.fanOut(FanOut.uniform(4, 2)).tasksLatency(LATENCY).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(30);
    this.catalog.resetRequestCounts();

    try (ScanPlanner planner = planner()) {
      long started = System.nanoTime();
      ScanPlan plan = planner.plan(PLANNER_EVENTS, ScanRequest.all());
      Duration wall = Duration.ofNanos(System.nanoTime() - started);

      RequestCounts counts = this.catalog.requestCounts();
      AnsweringTime time = counts.answering();
      assertThat(counts.tasks()).isEqualTo(plan.statistics().planTasksFetched()).isEqualTo(4 + 16);
      // each fetch waits out the whole latency, and its time holds its wait
      Duration latencies = LATENCY.multipliedBy(counts.tasks());
      assertThat(time.tasksLatency()).isGreaterThanOrEqualTo(latencies);
      assertThat(time.tasks()).isGreaterThanOrEqualTo(time.tasksLatency());
      assertThat(time.plan()).as("Iceberg planned the scan").isPositive();
      assertThat(time.poll()).as("no poll: the plan was answered completed").isZero();
      assertThat(time.total()).isEqualTo(time.plan().plus(time.poll()).plus(time.tasks()))
          .isGreaterThanOrEqualTo(time.busy());
      // Busy counts overlapping answers once: the client has at most MAX_CONCURRENCY requests in flight, and an
      // answer's time ends before the client has it, so at most that many overlap; and it all happened within the
      // client's call.
      assertThat(time.busy()).isGreaterThanOrEqualTo(latencies.dividedBy(MAX_CONCURRENCY)).isLessThanOrEqualTo(wall)
          .isLessThanOrEqualTo(plan.statistics().elapsed());
    }
  }

  @Test
  void pollsAreTimedApartFromThePlanCall() {
    this.catalog.planAsync(true).submittedPolls(2).fanOut(FanOut.uniform(2, 1)).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(4);
    this.catalog.resetRequestCounts();

    try (ScanPlanner planner = planner()) {
      planner.plan(PLANNER_EVENTS, ScanRequest.all());
    }

    RequestCounts counts = this.catalog.requestCounts();
    assertThat(counts.poll()).isEqualTo(3);
    assertThat(counts.answering().poll()).isPositive();
    assertThat(counts.answering().plan()).isPositive();
    assertThat(counts.answering().tasksLatency()).as("no latency set").isZero();
  }

  @Test
  void aResetStartsTheTimesFromZeroAsTheCounts() {
    this.catalog.fanOut(FanOut.uniform(2, 1)).tasksLatency(LATENCY).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(4);
    try (ScanPlanner planner = planner()) {
      planner.plan(PLANNER_EVENTS, ScanRequest.all());
      assertThat(this.catalog.requestCounts().answering().tasksLatency()).isGreaterThanOrEqualTo(LATENCY.multipliedBy(2));

      this.catalog.resetRequestCounts();

      assertThat(this.catalog.requestCounts().answering()).isEqualTo(AnsweringTime.NONE);
      planner.plan(PLANNER_EVENTS, ScanRequest.all());
      assertThat(this.catalog.requestCounts().answering().tasksLatency()).isGreaterThanOrEqualTo(LATENCY.multipliedBy(2));
    }
  }

  @Test
  void requestsRefusedForWantOfATokenAreNeitherCountedNorTimed() {
    this.catalog.requireBearerToken(true).fanOut(FanOut.uniform(2, 1)).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(4);

    RawHttp.Response refused = new RawHttp(this.catalog).post(EmbeddedIcebergCatalogTests.EVENTS_PATH + "/plan", "{}");

    assertThat(refused.status()).isEqualTo(401);
    assertThat(this.catalog.requestCounts().plan()).isZero();
    assertThat(this.catalog.requestCounts().answering()).isEqualTo(AnsweringTime.NONE);
  }

  @Test
  void requestsOtherThanAPlansAreNotTimed() {
    this.catalog.start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA);
    RawHttp http = new RawHttp(this.catalog);

    assertThat(http.get("/v1/config").status()).isEqualTo(200);
    assertThat(http.get(EmbeddedIcebergCatalogTests.EVENTS_PATH).status()).isEqualTo(200);

    assertThat(this.catalog.requestCounts().config()).isOne();
    assertThat(this.catalog.requestCounts().answering()).isEqualTo(AnsweringTime.NONE);
  }

  private ScanPlanner planner() {
    return ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(MAX_CONCURRENCY)
        .pollInitialDelay(Duration.ofMillis(1)).build();
  }
}
