package io.icebergscan.examples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged example, processed by Spring AOT at build time, started with {@code -Dspring.aot.enabled=true}:
 * it runs on the generated bean definitions, binds the example's settings, plans the demo table on the embedded
 * catalog, measured by the catalog, and reads its rows; with the callers profile, whose beans it lacks, it fails
 * start-up saying so.
 */
class AotStartIT {

  @Test
  void thePackagedApplicationStartsFromItsAotCodeAndPlansAndReadsTheDemoTable() throws Exception {
    String printed = run("rows per second", "--server.port=0", "--example.demo.files=200",
        "--example.demo.latency-ms=1", "--example.warm-up-plans=2");
    assertThat(printed).contains("Starting AOT-processed ScanPlanningExampleApplication")
        .contains("Scan plan for demo.events").contains("file scan tasks      200").contains("walk depth           3")
        .contains("warm-up              2 plans").containsPattern("catalog's part       [0-9,]+ ms")
        .containsPattern("rows read            790\\s")
        .containsPattern("planned less deleted 790 +equals the rows read");
    assertThat(Files.isDirectory(Path.of("target/spring-aot/main/sources"))).as("AOT sources were generated").isTrue();
  }

  /** The AOT code has the beans of the default identity: the callers profile is refused, saying why and what to do. */
  @Test
  void theCallersProfileFailsStartUpFromTheAotCodeSayingToStartWithoutIt() throws Exception {
    assertThat(run(null, "--server.port=0", "--spring.profiles.active=callers"))
        .contains("APPLICATION FAILED TO START")
        .contains("iceberg.rest.identity is caller, but the application runs from the code Spring AOT generated")
        .contains("Start the application without -Dspring.aot.enabled=true to plan as the callers")
        .doesNotContain("filled with");
  }

  /**
   * Starts the packaged application from its AOT code with {@code args}, and returns what it printed up to the first
   * line that contains {@code until}, or, when that is {@code null}, until it exits; then stops it.
   */
  private static String run(@Nullable String until, String... args) throws Exception {
    Path jar = Path.of(System.getProperty("example.jar", "target/iceberg-scan-planning-examples-0.1.0-SNAPSHOT.jar"));
    assertThat(jar).exists();
    String java = ProcessHandle.current().info().command().orElse("java");
    List<String> command = new ArrayList<>(List.of(java, "-Dspring.aot.enabled=true", "-jar", jar.toString()));
    command.addAll(List.of(args));
    Process application = new ProcessBuilder(command).redirectErrorStream(true).start();
    List<String> output = new CopyOnWriteArrayList<>();
    CompletableFuture<Void> printed = CompletableFuture.runAsync(() -> {
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(application.getInputStream(),
          StandardCharsets.UTF_8))) {
        for (String line = lines.readLine(); line != null; line = lines.readLine()) {
          output.add(line);
          if (until != null && line.contains(until)) {
            return;
          }
        }
      }
      catch (java.io.IOException ended) {
        // the process went away: the assertions on the output say what was missing
      }
    });
    try {
      printed.get(90, TimeUnit.SECONDS);
    }
    finally {
      application.destroy();
      if (!application.waitFor(20, TimeUnit.SECONDS)) {
        application.destroyForcibly();
      }
    }
    return String.join("\n", output);
  }
}
