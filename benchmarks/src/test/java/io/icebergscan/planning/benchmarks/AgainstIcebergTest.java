package io.icebergscan.planning.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class AgainstIcebergTest {

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));

  @ParameterizedTest
  @ValueSource(strings = { "flat-64", "tree-1-8-64", "chain-16x4" })
  void thePlainCatalogServesTheEmbeddedCatalogsPlanOverTheSameTreeToBothClients(String shape) throws Exception {
    try (EmbeddedIcebergCatalog embedded = EmbeddedIcebergCatalog.create()
        .fanOut(AgainstIceberg.shape(shape)).start()) {
      embedded.createTable(AgainstIceberg.TABLE, SCHEMA).appendDataFiles(160);
      try (PlainFanOutCatalog plain = PlainFanOutCatalog.start(embedded.catalog(), AgainstIceberg.TABLE,
          AgainstIceberg.tree(shape, 0))) {
        embedded.resetRequestCounts();
        List<String> fromEmbedded = ours(embedded.uri());
        int handles = embedded.requestCounts().tasks();
        assertThat(fromEmbedded).hasSize(160).doesNotHaveDuplicates();
        assertThat(handles).isEqualTo(switch (shape) {
          case "flat-64" -> 64;
          case "tree-1-8-64" -> 1 + 8 + 64;
          default -> 16 * 5;
        });
        // the same tasks in the same order: the same tree, each node serving the same run of Iceberg's plan
        assertThat(ours(plain.uri())).isEqualTo(fromEmbedded);
        // Iceberg's client walks the tree in its own order (and cancels the plan, which the plain catalog ignores)
        assertThat(iceberg(plain.uri())).containsExactlyInAnyOrderElementsOf(fromEmbedded);
        assertThat(iceberg(plain.uri())).containsExactlyInAnyOrderElementsOf(fromEmbedded);
        assertThat(embedded.requestCounts().tasks()).as("nothing of the plain runs reached the embedded catalog")
            .isEqualTo(handles);
      }
    }
  }

  /** The pinned setup's catalog, without the pinning: a process of its own serving the same plan to both clients. */
  @ParameterizedTest
  @ValueSource(strings = { "embedded", "plain" })
  void theRemoteCatalogServesTheShapeFromAProcessOfItsOwn(String server) throws Exception {
    try (RemoteCatalog remote = RemoteCatalog.start("flat-256", 0, server, -1)) {
      List<String> fromOurs = ours(remote.uri());
      assertThat(fromOurs).hasSize(AgainstIceberg.tasks("flat-256")).hasSize(512).doesNotHaveDuplicates();
      assertThat(iceberg(remote.uri())).containsExactlyInAnyOrderElementsOf(fromOurs);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = { "flat-64 2 64 320", "tree-1-8-64 8 73 100", "chain-16x4 32 80 160" })
  void theReportsIdealIsTheServedTreeAtTheLatencyOnThatManyWorkers(String row) {
    String[] cells = row.split(" ");
    PlanTree tree = AgainstIceberg.tree(cells[0], 10);
    assertThat(tree.size()).isEqualTo(Integer.parseInt(cells[2]));
    // flat: 32 rounds of 10 ms; tree: 1, 8, then 64 on 8 workers; chain: its 16 links one after the other
    assertThat(IdealSchedule.workConserving(tree, Integer.parseInt(cells[1])))
        .isEqualTo(Long.parseLong(cells[3]) * 1_000_000L);
  }

  private static List<String> ours(String uri) {
    try (ScanPlanner planner = ScanPlanner.builder().uri(uri).maxConcurrency(4).build()) {
      return planner.plan(io.icebergscan.planning.model.TableIdentifier.of("bench", "events"), ScanRequest.all()).tasks()
          .stream().map(task -> task.dataFile().filePath()).toList();
    }
  }

  private static List<String> iceberg(String uri) throws Exception {
    List<String> paths = new ArrayList<>();
    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("client", Map.of("uri", uri, "scan-planning-mode", "server", CatalogProperties.FILE_IO_IMPL,
          InMemoryFileIO.class.getName()));
      try (CloseableIterable<FileScanTask> tasks = client.loadTable(AgainstIceberg.TABLE).newScan().planFiles()) {
        tasks.forEach(task -> paths.add(task.file().location()));
      }
    }
    return paths;
  }
}
