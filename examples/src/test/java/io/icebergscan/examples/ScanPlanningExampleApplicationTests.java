package io.icebergscan.examples;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/** The example as a user runs it: embedded demo catalog, a printed plan, actuator over HTTP. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = { "example.demo.files=400", "example.demo.latency-ms=1" })
@ExtendWith(OutputCaptureExtension.class)
class ScanPlanningExampleApplicationTests {

  @Value("${local.server.port}")
  private int port;

  private JsonNode get(String path) {
    String body = WebClient.create("http://localhost:" + this.port).get().uri(path)
        .exchangeToMono(response -> response.bodyToMono(String.class)).block(Duration.ofSeconds(30));
    return JsonMapper.builder().build().readTree(body);
  }

  @Test
  void printsThePlanOfTheDemoTable(CapturedOutput output) {
    assertThat(output).contains("Scan plan for demo.events").contains("file scan tasks      400")
        .contains("delete files         4").contains("walk depth           3");
  }

  @Test
  void healthIsUpWithTheCatalogsDetails() {
    JsonNode health = get("/actuator/health");
    assertThat(health.get("status").asString()).isEqualTo("UP");
    JsonNode planning = health.path("components").path("icebergScanPlanning");
    assertThat(planning.path("status").asString()).isEqualTo("UP");
    assertThat(planning.path("details").path("uri").asString()).startsWith("http://127.0.0.1:");
    assertThat(planning.path("details").path("endpoints").toString())
        .contains("\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\":true");
  }

  @Test
  void metricsListThePlannersMeters() {
    JsonNode names = get("/actuator/metrics").get("names");
    assertThat(names.valueStream().map(JsonNode::asString).toList()).contains("iceberg.scan.planning",
        "iceberg.scan.planning.active", "iceberg.scan.planning.plan.task.fetches",
        "iceberg.scan.planning.plan.task.fetches.active", "http.client.requests");
    JsonNode fetches = get("/actuator/metrics/iceberg.scan.planning.plan.task.fetches");
    assertThat(fetches.get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(1);
  }
}
