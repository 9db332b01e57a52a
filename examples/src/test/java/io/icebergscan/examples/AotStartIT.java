package io.icebergscan.examples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged example, processed by Spring AOT at build time, started with {@code -Dspring.aot.enabled=true}:
 * it runs on the generated bean definitions, binds the example's settings, plans the demo table on the embedded
 * catalog, measured by the catalog, and reads its rows.
 */
class AotStartIT {

  @Test
  void thePackagedApplicationStartsFromItsAotCodeAndPlansAndReadsTheDemoTable() throws Exception {
    Path jar = Path.of(System.getProperty("example.jar", "target/iceberg-scan-planning-examples-0.1.0-SNAPSHOT.jar"));
    assertThat(jar).exists();
    String java = ProcessHandle.current().info().command().orElse("java");
    Process application = new ProcessBuilder(java, "-Dspring.aot.enabled=true", "-jar", jar.toString(),
        "--server.port=0", "--example.demo.files=200", "--example.demo.latency-ms=1",
        "--example.warm-up-plans=2")
        .redirectErrorStream(true).start();
    List<String> output = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> planned = CompletableFuture.runAsync(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(application.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.add(line);
          if (line.contains("rows per second")) {
            return;
          }
        }
      }
      catch (java.io.IOException ended) {
        // the process went away: the assertions below say what was missing
      }
    });
    try {
      planned.get(90, TimeUnit.SECONDS);
    }
    finally {
      application.destroy();
      if (!application.waitFor(20, TimeUnit.SECONDS)) {
        application.destroyForcibly();
      }
    }
    String printed = String.join("\n", output);
    assertThat(printed).contains("Starting AOT-processed ScanPlanningExampleApplication")
        .contains("Scan plan for demo.events").contains("file scan tasks      200").contains("walk depth           3")
        .contains("warm-up              2 plans").containsPattern("catalog's part       [0-9,]+ ms")
        .containsPattern("rows read            790\\s")
        .containsPattern("planned less deleted 790 +equals the rows read");
    assertThat(Files.isDirectory(Path.of("target/spring-aot/main/sources"))).as("AOT sources were generated").isTrue();
  }
}
