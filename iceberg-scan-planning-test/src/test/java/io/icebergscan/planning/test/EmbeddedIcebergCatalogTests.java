package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.test.Tables.TaskView;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchPlanTaskException;
import org.apache.iceberg.exceptions.NotAuthorizedException;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

class EmbeddedIcebergCatalogTests {

  static final TableIdentifier EVENTS = TableIdentifier.of("db", "sales", "events");
  /** The table's path as Iceberg's server expects it: levels joined with the advertised separator %2E. */
  static final String EVENTS_PATH = "/v1/namespaces/db%2Esales/tables/events";

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();

  @AfterEach
  void close() {
    this.catalog.close();
  }

  @Test
  void startsOnLoopbackAndAdvertisesPlanning() {
    assertThatIllegalStateException().isThrownBy(this.catalog::uri);
    this.catalog.start();
    assertThat(this.catalog.uri()).matches("http://127\\.0\\.0\\.1:\\d+");
    assertThat(this.catalog.isRunning()).isTrue();

    RawHttp.Response config = new RawHttp(this.catalog).get("/v1/config");

    assertThat(config.status()).isEqualTo(200);
    assertThat(config.json().path("overrides").path("namespace-separator").asText()).isEqualTo("%2E");
    assertThat(endpoints(config)).contains("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan",
        "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks",
        "GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}");
    assertThat(this.catalog.requestCounts().config()).isEqualTo(1);
  }

  @Test
  void aCatalogThatRequiresABearerTokenRefusesRequestsWithoutOne() throws Exception {
    this.catalog.requireBearerToken(true).start();
    this.catalog.createNamespace("db");

    RawHttp.Response refused = new RawHttp(this.catalog).get("/v1/config");
    assertThat(refused.status()).isEqualTo(401);
    assertThat(refused.json().path("error").path("type").asText()).isEqualTo("NotAuthorizedException");
    assertThat(this.catalog.requestCounts().config()).as("refused requests are not counted").isZero();
    try (RESTCatalog anonymous = new RESTCatalog()) {
      assertThatExceptionOfType(NotAuthorizedException.class)
          .isThrownBy(() -> anonymous.initialize("anonymous", Map.of("uri", this.catalog.uri())));
    }
    // Iceberg's client with client credentials: a token from the open token endpoint, then sent with each request
    try (RESTCatalog authenticated = new RESTCatalog()) {
      authenticated.initialize("authenticated", Map.of("uri", this.catalog.uri(), "credential", "id:secret"));
      assertThat(authenticated.listNamespaces()).containsExactly(Namespace.of("db"));
    }
    assertThat(this.catalog.requestCounts().config()).isEqualTo(1);
  }

  @Test
  void createsNestedNamespacesTablesAndOneSnapshotPerCommit() {
    this.catalog.start();
    this.catalog.createNamespace("a", "b", "c");
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, TableIdentifier.of("a", "b", "c", "t"));

    assertThat(this.catalog.catalog().namespaceExists(Namespace.of("a"))).isTrue();
    assertThat(this.catalog.catalog().namespaceExists(Namespace.of("a", "b"))).isTrue();
    Table loaded = table.table();
    assertThat(((HasTableOperations) loaded).operations().current().formatVersion()).isEqualTo(3);
    assertThat(loaded.spec().fields()).hasSize(1);
    List<Long> snapshots = table.snapshotIds();
    assertThat(snapshots).hasSize(3).doesNotHaveDuplicates().endsWith(table.currentSnapshotId());
    assertThat(loaded.snapshot(snapshots.get(2)).parentId()).isEqualTo(snapshots.get(1));
    // The server sees them too.
    try (RESTCatalog client = Tables.icebergClient(this.catalog)) {
      assertThat(client.listNamespaces(Namespace.of("a", "b"))).containsExactly(Namespace.of("a", "b", "c"));
      assertThat(client.listTables(Namespace.of("a", "b", "c"))).containsExactly(table.identifier());
    }
    catch (java.io.IOException failure) {
      throw new java.io.UncheckedIOException(failure);
    }
  }

  @Test
  void icebergClientPlansTheFilesAndDeletesThatWereCommitted() {
    this.catalog.start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);

    List<TaskView> planned = Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan);

    assertThat(planned).containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    Map<String, Set<String>> deletesByFile = byFile(planned);
    assertThat(deletesByFile).hasSize(5);
    assertThat(deletesByFile.get("s3://bucket/t/day=1/f0.parquet"))
        .containsExactly("POSITION_DELETES:s3://bucket/t/day=1/dv.puffin@4+20[]");
    assertThat(deletesByFile.get("s3://bucket/t/day=1/f1.parquet"))
        .containsExactly("POSITION_DELETES:s3://bucket/t/day=1/dv.puffin@24+20[]");
    assertThat(deletesByFile.get("s3://bucket/t/day=1/f2.parquet")).isEmpty();
    assertThat(deletesByFile.get("s3://bucket/t/day=2/a.parquet"))
        .containsExactly("EQUALITY_DELETES:s3://bucket/t/day=2/eq.parquet@null+null[1]");
  }

  @Test
  void icebergClientPlansOlderSnapshotsFiltersAndV2PositionDeletes() {
    this.catalog.start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);
    long first = table.snapshotIds().get(0);
    EmbeddedTable v2 = Tables.withPositionDeletes(this.catalog, TableIdentifier.of("db", "v2"));

    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan.useSnapshot(first)))
        .extracting(TaskView::dataFile)
        .containsExactlyInAnyOrder("s3://bucket/t/day=1/f0.parquet", "s3://bucket/t/day=1/f1.parquet",
            "s3://bucket/t/day=1/f2.parquet");
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan.filter(Expressions.equal("day", "2"))))
        .extracting(TaskView::dataFile)
        .containsExactlyInAnyOrder("s3://bucket/t/day=2/a.parquet", "s3://bucket/t/day=2/b.parquet");
    assertThat(Tables.plannedByIcebergClient(this.catalog, v2.identifier(), scan -> scan))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(v2, scan -> scan))
        .contains(new TaskView("s3://bucket/v2/day=1/a.parquet",
            Set.of("POSITION_DELETES:s3://bucket/v2/day=1/pos.parquet@null+null[]")));
  }

  @Test
  void withoutFanOutIcebergChainsPlanTasksOfTheConfiguredSize() {
    this.catalog.tasksPerPlanTask(2).start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA);
    table.appendDataFiles(7);

    JsonNode plan = new RawHttp(this.catalog).post(EVENTS_PATH + "/plan", "{}").json();
    assertThat(plan.path("file-scan-tasks")).hasSize(2);
    assertThat(plan.path("plan-tasks")).hasSize(1);

    this.catalog.resetRequestCounts();
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    // 7 tasks, 2 per response: the plan and 3 plan-tasks in a chain.
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(3);
  }

  @Test
  void fanOutDealsIcebergsTasksOverATreeInBreadthFirstOrder() {
    this.catalog.fanOut(FanOut.uniform(3, 2)).start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA);
    // One append, one manifest: Iceberg plans it in a stable order.
    table.appendDataFiles(40);

    Walk walk = walk(new RawHttp(this.catalog), "{}");

    assertThat(walk.childrenPerLevel()).containsExactly(List.of(3), List.of(3, 3, 3), List.of(0, 0, 0, 0, 0, 0, 0, 0, 0));
    // 40 tasks over 13 nodes: 3 or 4 each.
    assertThat(walk.tasksPerNode()).hasSize(13).allSatisfy(count -> assertThat(count).isBetween(3, 4));
    assertThat(walk.dataFiles()).containsExactlyElementsOf(
        Tables.plannedLocally(table, scan -> scan).stream().map(TaskView::dataFile).toList());
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(3 + 9);

    this.catalog.resetRequestCounts();
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(3 + 9);
  }

  @Test
  void unevenFanOutsServeTheirShape() {
    this.catalog.start();
    EmbeddedTable table = this.catalog.createTable(EVENTS, Tables.SCHEMA);
    table.appendDataFiles(25);
    List<TaskView> expected = Tables.plannedLocally(table, scan -> scan);

    this.catalog.fanOut(FanOut.levels(2, 1, 3));
    Walk levels = walk(new RawHttp(this.catalog), "{}");
    assertThat(levels.childrenPerLevel()).containsExactly(List.of(2), List.of(1, 1), List.of(3, 3),
        List.of(0, 0, 0, 0, 0, 0));

    // Only the first handle of each level branches, three levels down: a lopsided tree.
    this.catalog.fanOut(FanOut.custom(path -> path.size() < 3 && path.stream().allMatch(i -> i == 0) ? 2 : 0));
    Walk lopsided = walk(new RawHttp(this.catalog), "{}");
    assertThat(lopsided.childrenPerLevel()).containsExactly(List.of(2), List.of(2, 0), List.of(2, 0), List.of(0, 0));

    this.catalog.resetRequestCounts();
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(6);
  }

  @Test
  void everyResponseOfAFanOutCarriesItsOwnDeleteFiles() {
    this.catalog.fanOut(FanOut.uniform(5, 1)).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);

    Walk walk = walk(new RawHttp(this.catalog), "{}");

    // 5 tasks over 6 nodes: the plan response gets none, each handle one; 4 of the 5 tasks have a
    // delete file (Iceberg orders tasks of several manifests differently from plan to plan).
    assertThat(walk.tasksPerNode()).containsExactly(0, 1, 1, 1, 1, 1);
    assertThat(walk.deleteFilesPerResponse().get(0)).isZero();
    assertThat(walk.deleteFilesPerResponse().subList(1, 6)).containsExactlyInAnyOrder(1, 1, 1, 1, 0);
    assertThat(walk.resolved()).containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
  }

  @Test
  void asynchronousPlansAreSubmittedAndPolled() {
    this.catalog.planAsync(true).tasksPerPlanTask(2).start();
    EmbeddedTable table = Tables.withEveryKindOfDelete(this.catalog, EVENTS);
    List<TaskView> expected = Tables.plannedLocally(table, scan -> scan);

    JsonNode submitted = new RawHttp(this.catalog).post(EVENTS_PATH + "/plan", "{}").json();
    assertThat(submitted.path("status").asText()).isEqualTo("submitted");
    assertThat(submitted.path("plan-id").asText()).isNotEmpty();
    assertThat(submitted.has("file-scan-tasks")).isFalse();

    this.catalog.resetRequestCounts();
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(this.catalog.requestCounts().poll()).isPositive();

    // With a fan-out the plan completes after the configured number of submitted polls.
    this.catalog.fanOut(FanOut.uniform(2, 1)).submittedPolls(2);
    RawHttp http = new RawHttp(this.catalog);
    JsonNode fanOut = http.post(EVENTS_PATH + "/plan", "{}").json();
    assertThat(fanOut.path("status").asText()).isEqualTo("submitted");
    String poll = EVENTS_PATH + "/plan/" + fanOut.path("plan-id").asText();
    assertThat(http.get(poll).body()).isEqualTo("{\"status\":\"submitted\"}");
    assertThat(http.get(poll).body()).isEqualTo("{\"status\":\"submitted\"}");
    JsonNode polled = http.get(poll).json();
    assertThat(polled.path("status").asText()).isEqualTo("completed");
    assertThat(polled.path("plan-tasks")).hasSize(2);
    this.catalog.resetRequestCounts();
    assertThat(Tables.plannedByIcebergClient(this.catalog, EVENTS, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(expected);
    assertThat(this.catalog.requestCounts().poll()).isEqualTo(3);
  }

  @Test
  void tasksLatencyDelaysEachTasksResponse() {
    Duration latency = Duration.ofMillis(150);
    this.catalog.tasksPerPlanTask(1).tasksLatency(latency).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(2);
    RawHttp http = new RawHttp(this.catalog);
    String handle = http.post(EVENTS_PATH + "/plan", "{}").json().path("plan-tasks").get(0).asText();

    long started = System.nanoTime();
    RawHttp.Response tasks = http.tasks(EVENTS_PATH, handle);
    Duration elapsed = Duration.ofNanos(System.nanoTime() - started);

    assertThat(tasks.status()).isEqualTo(200);
    assertThat(elapsed).isGreaterThanOrEqualTo(latency);
  }

  @Test
  void aCatalogWithoutPlanningEndpointsNeitherAdvertisesNorServesThem() {
    this.catalog.planningEndpoints(false).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(2);
    RawHttp http = new RawHttp(this.catalog);

    assertThat(endpoints(http.get("/v1/config"))).isNotEmpty()
        .noneMatch(endpoint -> endpoint.endsWith("/plan") || endpoint.endsWith("/tasks")
            || endpoint.endsWith("/plan/{plan-id}"));
    RawHttp.Response plan = http.post(EVENTS_PATH + "/plan", "{}");
    assertThat(plan.status()).isEqualTo(400);
    assertThat(plan.json().path("error").path("type").asText()).isEqualTo("BadRequestException");
    assertThat(this.catalog.requestCounts().plan()).isEqualTo(1);
  }

  @Test
  void fanOutHandlesAreForgottenOnCancelAndBoundToTheirTable() {
    this.catalog.fanOut(FanOut.uniform(2, 1)).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(4);
    this.catalog.createTable(TableIdentifier.of("db", "sales", "other"), Tables.SCHEMA).appendDataFiles(1);
    RawHttp http = new RawHttp(this.catalog);
    JsonNode plan = http.post(EVENTS_PATH + "/plan", "{}").json();
    String handle = plan.path("plan-tasks").get(0).asText();

    RawHttp.Response otherTable = http.tasks("/v1/namespaces/db%2Esales/tables/other", handle);
    assertThat(otherTable.status()).isEqualTo(404);
    assertThat(otherTable.json().path("error").path("type").asText()).isEqualTo("NoSuchPlanTaskException");
    assertThat(http.tasks(EVENTS_PATH, handle).status()).isEqualTo(200);

    assertThat(http.delete(EVENTS_PATH + "/plan/" + plan.path("plan-id").asText()).status()).isEqualTo(204);
    RawHttp.Response afterCancel = http.tasks(EVENTS_PATH, handle);
    assertThat(afterCancel.status()).isEqualTo(404);
    assertThat(afterCancel.json().path("error").path("type").asText()).isEqualTo("NoSuchPlanTaskException");
    assertThat(this.catalog.requestCounts()).extracting(RequestCounts::plan, RequestCounts::cancel, RequestCounts::tasks)
        .containsExactly(1, 1, 3);
  }

  @Test
  void closingOneCatalogLeavesAnothersIcebergPlansAlone() {
    this.catalog.tasksPerPlanTask(1).start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(3);
    String handle = new RawHttp(this.catalog).post(EVENTS_PATH + "/plan", "{}").json().path("plan-tasks").get(0)
        .asText();
    EmbeddedIcebergCatalog other = EmbeddedIcebergCatalog.create().tasksPerPlanTask(1).start();
    try {
      other.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(3);
      String otherHandle = new RawHttp(other).post(EVENTS_PATH + "/plan", "{}").json().path("plan-tasks").get(0)
          .asText();
      // Iceberg's planning state is JVM-wide: the other catalog's handle is visible from here.
      assertThat(CatalogHandlers.fetchScanTasks(this.catalog.catalog(), EVENTS, new FetchScanTasksRequest(otherHandle))
          .fileScanTasks()).hasSize(1);

      other.close();

      assertThatExceptionOfType(NoSuchPlanTaskException.class).isThrownBy(() -> CatalogHandlers
          .fetchScanTasks(this.catalog.catalog(), EVENTS, new FetchScanTasksRequest(otherHandle)));
    }
    finally {
      other.close();
    }
    assertThat(new RawHttp(this.catalog).tasks(EVENTS_PATH, handle).status()).isEqualTo(200);
  }

  private static List<String> endpoints(RawHttp.Response config) {
    List<String> endpoints = new ArrayList<>();
    config.json().path("endpoints").forEach(endpoint -> endpoints.add(endpoint.asText()));
    return endpoints;
  }

  private static Map<String, Set<String>> byFile(List<TaskView> tasks) {
    Map<String, Set<String>> byFile = new HashMap<>();
    tasks.forEach(task -> byFile.put(task.dataFile(), task.deletes()));
    return byFile;
  }

  /** A breadth-first walk over raw responses: each node's tasks and children, and tasks resolved per response. */
  record Walk(List<List<Integer>> childrenPerLevel, List<Integer> tasksPerNode, List<Integer> deleteFilesPerResponse,
      List<String> dataFiles, List<TaskView> resolved) {
  }

  private static Walk walk(RawHttp http, String planRequest) {
    List<List<Integer>> childrenPerLevel = new ArrayList<>();
    List<Integer> tasksPerNode = new ArrayList<>();
    List<Integer> deleteFilesPerResponse = new ArrayList<>();
    List<String> dataFiles = new ArrayList<>();
    List<TaskView> resolved = new ArrayList<>();
    RawHttp.Response plan = http.post(EVENTS_PATH + "/plan", planRequest);
    assertThat(plan.status()).isEqualTo(200);
    Deque<JsonNode> level = new ArrayDeque<>(List.of(plan.json()));
    while (!level.isEmpty()) {
      List<Integer> children = new ArrayList<>();
      Deque<JsonNode> next = new ArrayDeque<>();
      for (JsonNode response : level) {
        children.add(response.path("plan-tasks").size());
        tasksPerNode.add(response.path("file-scan-tasks").size());
        deleteFilesPerResponse.add(response.path("delete-files").size());
        resolveAgainstThisResponse(response, dataFiles, resolved);
        for (JsonNode handle : response.path("plan-tasks")) {
          RawHttp.Response tasks = http.tasks(EVENTS_PATH, handle.asText());
          assertThat(tasks.status()).isEqualTo(200);
          next.add(tasks.json());
        }
      }
      childrenPerLevel.add(children);
      level = next;
    }
    return new Walk(childrenPerLevel, tasksPerNode, deleteFilesPerResponse, dataFiles, resolved);
  }

  /** Resolves delete-file-references as the spec says: indices into this response's delete-files. */
  private static void resolveAgainstThisResponse(JsonNode response, List<String> dataFiles, List<TaskView> resolved) {
    JsonNode deleteFiles = response.path("delete-files");
    for (JsonNode task : response.path("file-scan-tasks")) {
      Set<String> deletes = new TreeSet<>();
      for (JsonNode reference : task.path("delete-file-references")) {
        assertThat(reference.asInt()).isBetween(0, deleteFiles.size() - 1);
        JsonNode delete = deleteFiles.get(reference.asInt());
        List<Integer> equalityIds = new ArrayList<>();
        delete.path("equality-ids").forEach(id -> equalityIds.add(id.asInt()));
        deletes.add(delete.path("content").asText().toUpperCase().replace('-', '_') + ":"
            + delete.path("file-path").asText() + "@" + text(delete.get("content-offset")) + "+"
            + text(delete.get("content-size-in-bytes")) + equalityIds);
      }
      String dataFile = task.path("data-file").path("file-path").asText();
      dataFiles.add(dataFile);
      resolved.add(new TaskView(dataFile, deletes));
    }
  }

  private static String text(JsonNode value) {
    return value == null ? "null" : value.asText();
  }
}
