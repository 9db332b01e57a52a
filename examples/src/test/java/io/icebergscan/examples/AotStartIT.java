package io.icebergscan.examples;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged example, processed by Spring AOT at build time, started with {@code -Dspring.aot.enabled=true}:
 * it runs on the generated bean definitions, binds the example's settings, plans the demo table on the embedded
 * catalog, measured by the catalog, reads its rows, and serves the repositories' derived queries; with the callers profile, whose beans it lacks, it fails
 * start-up saying so.
 */
class AotStartIT {

  @Test
  void thePackagedApplicationStartsFromItsAotCodeAndPlansAndReadsTheDemoTable() throws Exception {
    List<String> served = new ArrayList<>();
    String printed = run("rows per second", output -> served.addAll(callTheRepositories(port(output))),
        "--server.port=0", "--example.demo.files=200", "--example.demo.latency-ms=1", "--example.warm-up-plans=2");
    assertThat(printed).contains("Starting AOT-processed ScanPlanningExampleApplication")
        .contains("Scan plan for demo.events").contains("file scan tasks      200").contains("walk depth           3")
        .contains("warm-up              2 plans").containsPattern("catalog's part       [0-9,]+ ms")
        .containsPattern("rows read            790\\s")
        .containsPattern("planned less deleted 790 +equals the rows read");
    assertThat(Files.isDirectory(Path.of("target/spring-aot/main/sources"))).as("AOT sources were generated").isTrue();
    assertThat(served).as("the repositories' answers").hasSize(4);
  }

  /**
   * The example's repositories, made from the AOT code's bean definitions, answer: a derived query with a limit, a
   * window and the window after it by its token, and the governed customers read with their restrictions.
   *
   * @return the answers' bodies
   */
  private static List<String> callTheRepositories(int port) throws Exception {
    JsonMapper json = JsonMapper.builder().build();
    String events = get(port, "/events?day=2026-11-05&limit=3");
    assertThat(json.readTree(events).valueStream().toList()).as(events).hasSize(3)
        .allSatisfy(event -> assertThat(event.get("day").asString()).isEqualTo("2026-11-05"));
    String first = get(port, "/events/window?day=2026-11-05&size=5");
    JsonNode firstPage = json.readTree(first);
    assertThat(firstPage.get("events").size()).as(first).isEqualTo(5);
    String second = get(port, "/events/window?day=2026-11-05&size=5&after=" + firstPage.get("next").asString());
    JsonNode secondPage = json.readTree(second);
    assertThat(secondPage.get("events").valueStream().map(event -> event.get("id").asLong()).toList()).as(second)
        .hasSize(5).doesNotContainAnyElementsOf(firstPage.get("events").valueStream()
            .map(event -> event.get("id").asLong()).toList());
    String customers = get(port, "/customers?country=US");
    assertThat(json.readTree(customers).valueStream().toList()).as(customers).hasSize(30)
        .allSatisfy(customer -> assertThat(customer.get("email").isNull()
            || !customer.get("email").asString().endsWith("@example.com")).isTrue());
    return List.of(events, first, second, customers);
  }

  /** The port the application's server listens on, from its log. */
  private static int port(List<String> output) {
    Pattern started = Pattern.compile("Netty started on port (\\d+)");
    return output.stream().map(started::matcher).filter(Matcher::find).mapToInt(line -> Integer.parseInt(
        line.group(1))).findFirst().orElseThrow(() -> new AssertionError("no port in " + output));
  }

  private static String get(int port, String path) throws Exception {
    HttpClient client = HttpClient.newHttpClient();
    HttpResponse<String> answer = client.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
        .header("Accept", "application/json").timeout(Duration.ofSeconds(30)).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(answer.statusCode()).as(path + ": " + answer.body()).isEqualTo(200);
    return answer.body();
  }

  /** The AOT code has the beans of the default identity: the callers profile is refused, saying why and what to do. */
  @Test
  void theCallersProfileFailsStartUpFromTheAotCodeSayingToStartWithoutIt() throws Exception {
    assertThat(run(null, output -> { }, "--server.port=0", "--spring.profiles.active=callers"))
        .contains("APPLICATION FAILED TO START")
        .contains("iceberg.rest.identity is caller, but the application runs from the code Spring AOT generated")
        .contains("Start the application without -Dspring.aot.enabled=true to plan as the callers")
        .doesNotContain("filled with");
  }

  /**
   * Starts the packaged application from its AOT code with {@code args}, and returns what it printed up to the first
   * line that contains {@code until}, or, when that is {@code null}, until it exits; then, after {@code whileRunning}
   * has had the output so far, stops it.
   */
  private static String run(@Nullable String until, WhileRunning whileRunning, String... args) throws Exception {
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
      whileRunning.accept(List.copyOf(output));
    }
    finally {
      application.destroy();
      if (!application.waitFor(20, TimeUnit.SECONDS)) {
        application.destroyForcibly();
      }
    }
    return String.join("\n", output);
  }

  /** What a test does with the started application, given what it printed until then. */
  @FunctionalInterface
  interface WhileRunning {

    void accept(List<String> output) throws Exception;
  }
}
