package io.icebergscan.examples;

import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.test.DemoTable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example as a user runs it: embedded demo catalog, two printed plans with their ideal, the rows read, actuator
 * over HTTP.
 */
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

  @Autowired
  private PlanSummary summary;

  @Test
  void printsThePlanOfTheDemoTable(CapturedOutput output) {
    assertThat(output).contains("Scan plan for demo.events").contains("file scan tasks      400")
        .contains("records              1,600").contains("delete files         4")
        .contains("plan-tasks fetched   104").contains("walk depth           3");
  }

  @Test
  void plansTwiceAndPrintsEachPlanNextToTheIdeal(CapturedOutput output) {
    PlanSummary.Run run = this.summary.lastRun();
    assertThat(run).isNotNull();
    // 104 plan-tasks of 1 ms, 16 in flight: the 8 of the first level at once, the 32 of the second in two rounds,
    // the 64 of the third in four
    assertThat(run.maxConcurrency()).isEqualTo(16);
    assertThat(run.ideal()).isEqualTo(Duration.ofMillis(7));
    assertThat(run.cold().planId()).isNotEqualTo(run.warm().planId());
    assertThat(List.of(run.cold(), run.warm())).allSatisfy(plan -> {
      assertThat(plan.tasks()).hasSize(400);
      assertThat(plan.planTasksFetched()).isEqualTo(DemoTable.PLAN_TASKS);
    });
    assertThat(output)
        .containsPattern("ideal                7 ms +104 plan-tasks in a tree of 8 / 4 / 2 at 1 ms a fetch, 16 in ")
        .containsPattern("first plan \\(cold\\)    [0-9,]+ ms +[0-9.]+x the ideal")
        .containsPattern("second plan \\(warm\\)   [0-9,]+ ms +[0-9.]+x the ideal");
  }

  @Test
  void readsTheRowsAndTheyAreThePlannedRecordsLessTheDeletedRows(CapturedOutput output) {
    PlanSummary.RowsRead rows = this.summary.lastRun().rows();
    assertThat(rows).isNotNull();
    assertThat(rows.plannedRecords()).isEqualTo(DemoTable.rows(400));
    assertThat(rows.positionDeletedRows()).isEqualTo(DemoTable.DELETION_VECTOR_ROWS);
    assertThat(rows.equalityDeletedRows()).isEqualTo(DemoTable.EQUALITY_DELETED_ROWS);
    // counted as they were read, so this holds only if the deletes were applied, each of them
    assertThat(rows.rows()).isEqualTo(DemoTable.liveRows(400)).isEqualTo(rows.expectedRows());
    assertThat(rows.samples()).hasSize(3).allSatisfy(sample -> assertThat(sample).startsWith("id=")
        .contains(", day=2026-11-").contains(", payload="));
    assertThat(output).contains("Rows of demo.events, read with deletes applied")
        .containsPattern("rows read            1,590\\s").containsPattern("planned records      1,600\\s")
        .containsPattern("deleted by position  6\\s").containsPattern("deleted by equality  4\\s")
        .containsPattern("planned less deleted 1,590 +equals the rows read")
        .containsPattern("read time            [0-9,]+ ms");
  }

  @Test
  void readFalsePlansWithoutReading(CapturedOutput output) {
    // arguments, as a user gives them: default properties would yield to application.yml's example.read
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ScanPlanningExampleApplication.class)
        .run("--spring.main.web-application-type=none", "--example.demo.files=16", "--example.demo.latency-ms=1",
            "--example.read=false")) {
      PlanSummary.Run run = context.getBean(PlanSummary.class).lastRun();
      assertThat(run).isNotNull();
      assertThat(run.warm().tasks()).hasSize(16);
      assertThat(run.rows()).isNull();
    }
    // this test's own application printed its plan of 16 files, and no rows after it
    String printed = output.getOut().substring(output.getOut().lastIndexOf("Scan plan for demo.events"));
    assertThat(printed).contains("file scan tasks      16").contains("second plan (warm)")
        .doesNotContain("Rows of demo.events");
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
