package io.icebergscan.snippets;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogConfiguration;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The application run at development time the Boot way, {@code SpringApplication.from(…).with(…)}, on the embedded
 * catalog its seed fills; and what another process (a {@code java -jar} of the application, here a second JVM) can
 * read of it: everything from a local-disk warehouse, no file of an in-memory one.
 */
class DevTimeCatalogTests {

  private static ConfigurableApplicationContext start(String... args) {
    return SpringApplication.from(SnippetsApplication::main).with(TestSnippetsApplication.DevCatalog.class)
        .run(args).getApplicationContext();
  }

  @Test
  void theApplicationRunsOnTheSeededCatalog() {
    try (ConfigurableApplicationContext context = start("--spring.main.web-application-type=none")) {
      assertThat(context.getBean(OrderRows.class).all()).extracting(row -> row.getField("order_id"))
          .containsExactlyInAnyOrder(1L, 2L);
    }
  }

  @Test
  void anotherProcessReadsALocalDiskWarehouseButNoneOfAnInMemoryOne(@TempDir Path warehouse) throws Exception {
    String disk = "--" + EmbeddedIcebergCatalogConfiguration.WAREHOUSE_PROPERTY + "=" + warehouse;
    if (Runtime.version().feature() <= EmbeddedIcebergCatalog.LOCAL_DISK_LAST_JAVA) {
      try (ConfigurableApplicationContext context = start("--spring.main.web-application-type=none", disk)) {
        String uri = context.getBean(EmbeddedIcebergCatalog.class).uri();
        assertThat(otherProcess(uri)).isEqualTo("read 2 rows");
      }
    }
    else {
      // Hadoop 3.4 cannot run here: start-up says so, rather than failing later on Subject.getSubject
      assertThatThrownBy(() -> start("--spring.main.web-application-type=none", disk)).rootCause()
          .isInstanceOf(IllegalStateException.class).hasMessageContaining("cannot run on Java "
              + Runtime.version().feature());
    }
    try (ConfigurableApplicationContext context = start("--spring.main.web-application-type=none")) {
      String uri = context.getBean(EmbeddedIcebergCatalog.class).uri();
      assertThat(otherProcess(uri)).as("the in-memory limit").contains("NotFoundException")
          .contains("No in-memory file found");
    }
  }

  /** Runs {@link OtherProcess} in a JVM of its own on this class path; its last line of output. */
  private static String otherProcess(String uri) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-cp", System.getProperty("java.class.path"), OtherProcess.class.getName(), uri)
        .redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).as("the other process ended").isTrue();
    List<String> lines = output.lines().filter(line -> !line.isBlank()).toList();
    return lines.isEmpty() ? "" : lines.get(lines.size() - 1);
  }

  /** Another process, given only the catalog's URI: reads sales.orders, or says what stopped it. */
  public static final class OtherProcess {

    public static void main(String[] args) {
      try (ScanPlanner planner = ScanPlanner.builder().uri(args[0]).build();
          IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build();
          ScanRows rows = iceberg.readRows(iceberg.loadTable(TableIdentifier.parse("sales.orders")),
              IcebergScan.all())) {
        List<Record> read = Lists.newArrayList(rows);
        System.out.println("read " + read.size() + " rows");
      }
      catch (RuntimeException failure) {
        Throwable root = failure;
        while (root.getCause() != null) {
          root = root.getCause();
        }
        System.out.println("failed: " + failure.getClass().getSimpleName() + " " + root.getClass().getSimpleName()
            + ": " + root.getMessage());
      }
    }
  }
}
