package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.test.Tables.TaskView;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.netty.http.HttpProtocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** This project's planner against Apache Iceberg's server, with Iceberg's client as the reference. */
class ScanPlannerOnEmbeddedCatalogTests {

  private static final TableIdentifier EVENTS = EmbeddedIcebergCatalogTests.EVENTS;
  private static final io.icebergscan.planning.model.TableIdentifier PLANNER_EVENTS =
      io.icebergscan.planning.model.TableIdentifier.of(List.of("db", "sales"), "events");

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();

  @AfterEach
  void close() {
    this.catalog.close();
  }

  @Test
  void plansTheSameFilesAndDeletesAsIcebergsClientOverAFanOut() {
    this.catalog.fanOut(FanOut.uniform(4, 2)).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);
    table.appendDataFiles(30, "day=3");
    List<TaskView> icebergClient = Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan);
    this.catalog.resetRequestCounts();

    ScanPlan plan = plan(ScanRequest.all());

    assertThat(Tables.views(plan.tasks())).hasSize(35).containsExactlyInAnyOrderElementsOf(icebergClient)
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(4 + 16);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(4 + 16);
    assertThat(plan.statistics().walkDepth()).isEqualTo(2);
  }

  /** The catalog offers h2c beside HTTP/1.1 on its port; over it the response timeout is Reactor Netty's own. */
  @Test
  void plansTheSameOverHttp2WithPriorKnowledge() {
    this.catalog.fanOut(FanOut.uniform(4, 2)).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);
    table.appendDataFiles(30, "day=3");
    List<String> versions = new CopyOnWriteArrayList<>();

    ScanPlan plan;
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4)
        .httpClient(http -> http.protocol(HttpProtocol.H2C)
            .doOnRequest((request, connection) -> versions.add(request.version().text())))
        .build()) {
      plan = planner.plan(PLANNER_EVENTS, ScanRequest.all());
    }

    assertThat(Tables.views(plan.tasks())).hasSize(35)
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(versions).hasSizeGreaterThan(4 + 16).containsOnly("HTTP/2.0");
  }

  @Test
  void returnsIcebergsOrderFromAWideTreeFetchedConcurrently() {
    this.catalog.fanOut(FanOut.uniform(4, 2)).tasksLatency(Duration.ofMillis(20)).start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA);
    // One manifest: Iceberg plans it in a stable order, which the breadth-first dealing preserves.
    table.appendDataFiles(60);

    ScanPlan plan = plan(ScanRequest.all());

    assertThat(Tables.views(plan.tasks())).containsExactlyElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(this.catalog.requestCounts().maxConcurrentTasks()).isBetween(2, 4);
  }

  @Test
  void plansSnapshotsAndFiltersOverIcebergsChain() {
    this.catalog.tasksPerPlanTask(2).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);
    long first = table.snapshotIds().get(0);

    assertThat(Tables.views(plan(ScanRequest.all()).tasks()))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(Tables.views(plan(ScanRequest.builder().snapshotId(first).build()).tasks()))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan.useSnapshot(first)));
    assertThat(Tables.views(plan(ScanRequest.builder().filter(RowFilter.equal("day", "2")).build()).tasks()))
        .containsExactlyInAnyOrderElementsOf(
            Tables.plannedLocally(table, scan -> scan.filter(Expressions.equal("day", "2"))))
        .hasSize(2);
  }

  @Test
  void plansAsynchronouslyWhenTheFirstPollCompletes() {
    this.catalog.planAsync(true).fanOut(FanOut.uniform(2, 2)).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);

    assertThat(Tables.views(plan(ScanRequest.all()).tasks()))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(this.catalog.requestCounts()).extracting(RequestCounts::plan, RequestCounts::poll, RequestCounts::tasks)
        .containsExactly(1, 1, 2 + 4);
  }

  /**
   * A poll may answer {@code submitted} as the spec's EmptyPlanningResult, a bare status without a
   * plan-id, and Apache Iceberg's server does: the planner keeps polling.
   */
  @Test
  void keepsPollingWhileAPollAnswersSubmitted() {
    this.catalog.planAsync(true).submittedPolls(2).fanOut(FanOut.uniform(2, 1)).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);

    assertThat(Tables.views(plan(ScanRequest.all()).tasks()))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(this.catalog.requestCounts().poll()).isEqualTo(3);
  }

  @Test
  void refusesToPlanOnACatalogWithoutPlanningEndpoints() {
    this.catalog.planningEndpoints(false).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(1);

    assertThatExceptionOfType(UnsupportedEndpointException.class).isThrownBy(() -> plan(ScanRequest.all()));
    assertThat(this.catalog.requestCounts().config()).isEqualTo(1);
    assertThat(this.catalog.requestCounts().plan()).isZero();
  }

  private ScanPlan plan(ScanRequest request) {
    try (ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4)
        .pollInitialDelay(Duration.ofMillis(10)).build()) {
      return planner.plan(PLANNER_EVENTS, request);
    }
  }
}
