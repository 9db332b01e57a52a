package io.icebergscan.examples;

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import io.icebergscan.planning.test.AnsweringTime;
import io.icebergscan.planning.test.DemoCustomers;
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
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

/**
 * The example as a user runs it: embedded demo catalog, warm-up plans, the measured plan with the catalog's and the
 * client's part of its time and its fan-out next to the ideal, the rows read as they stream, actuator over HTTP. The
 * figures are checked for what must hold between them whatever the machine's speed, never for how fast they are.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    properties = { "example.demo.files=400", "example.demo.latency-ms=1", "example.warm-up-plans=2" })
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
  void warmsUpThenPrintsTheMeasuredPlansFanOutNextToTheIdeal(CapturedOutput output) {
    PlanSummary.Run run = this.summary.lastRun();
    assertThat(run).isNotNull();
    assertThat(run.warmUpPlans()).isEqualTo(2);
    assertThat(run.firstPlan()).as("the first warm-up plan's time").isNotNull();
    // 104 plan-tasks of 1 ms, 16 in flight: the 8 of the first level at once, the 32 of the second in two rounds,
    // the 64 of the third in four
    assertThat(run.maxConcurrency()).isEqualTo(16);
    assertThat(run.ideal()).isEqualTo(Duration.ofMillis(7));
    assertThat(run.plan().tasks()).hasSize(400);
    assertThat(run.plan().statistics().planTasksFetched()).isEqualTo(DemoTable.PLAN_TASKS);
    // the fan-out is the plan less the catalog's answer to its plan call, which lies within the plan
    assertThat(run.fanOut()).isEqualTo(run.plan().statistics().elapsed().minus(run.answering().plan()))
        .isPositive().isLessThan(run.plan().statistics().elapsed());
    assertThat(output)
        .containsPattern("first plan           [0-9,]+ ms +cold: ")
        .contains("warm-up              2 plans    each read too (example.warm-up-plans)")
        .containsPattern("plan time            [0-9,]+ ms +the measured plan")
        .containsPattern("fan-out time         [0-9,]+ ms +[0-9.]+x the ideal: the plan time less the catalog's "
            + "[0-9,]+ ms answering the plan call")
        .containsPattern("ideal                7 ms +104 plan-tasks in a tree of 8 / 4 / 2 at 1 ms a fetch, 16 in ");
  }

  @Test
  void splitsThePlanTimeIntoTheCatalogsPartMeasuredByTheCatalogAndTheClientsPart(CapturedOutput output) {
    PlanSummary.Run run = this.summary.lastRun();
    AnsweringTime answering = run.answering();
    assertThat(answering).isNotNull();
    // the catalog's own measure of this plan: every fetch waited out its 1 ms, within the plan's wall time
    assertThat(answering.tasksLatency()).isGreaterThanOrEqualTo(Duration.ofMillis(DemoTable.PLAN_TASKS));
    assertThat(answering.tasks()).isGreaterThanOrEqualTo(answering.tasksLatency());
    assertThat(answering.plan()).as("Iceberg planned the scan on the server").isPositive();
    assertThat(answering.busy()).isPositive().isLessThanOrEqualTo(run.plan().statistics().elapsed());
    assertThat(run.catalogShare()).isGreaterThan(0).isLessThanOrEqualTo(1);
    assertThat(output)
        .containsPattern("catalog's part       [0-9,]+ ms +[0-9]+% of it: the catalog answering at least one of the "
            + "plan's requests")
        .containsPattern("client's part        [0-9,]+ ms +[0-9]+% of it: no request being answered")
        .containsPattern("catalog, summed      [0-9,]+ ms +its answers each in full, overlapping ones too: plan call "
            + "[0-9,]+ ms, polls 0 ms, /tasks [0-9,]+ ms")
        .containsPattern("of it latency        [0-9,]+ ms +the 104 fetches' simulated waits of 1 ms");
  }

  @Test
  void readsTheRowsAsTheyStreamAndTheyAreThePlannedRecordsLessTheDeletedRows(CapturedOutput output) {
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
        .containsPattern("first row            [0-9,]+ ms +after the readRows call")
        .containsPattern("read time            [0-9,]+ ms +from the readRows call to the last row");
  }

  @Test
  void timesTheFirstRowBeforeTheLastAndCountsRowsPerSecondOfTheReadTime(CapturedOutput output) {
    PlanSummary.RowsRead rows = this.summary.lastRun().rows();
    assertThat(rows.firstRow()).isPositive().isLessThan(rows.elapsed());
    // rows per second times the read time is the rows read
    assertThat(rows.rowsPerSecond() * rows.elapsed().toNanos() / 1e9).isCloseTo(rows.rows(), within(1e-6));
    assertThat(output).contains(String.format("rows per second      %-10s rows read / read time",
        String.format("%,d", Math.round(rows.rowsPerSecond()))));
  }

  @Test
  void readFalsePlansWithoutReadingAndNoWarmUpMeasuresTheColdPlan(CapturedOutput output) {
    // arguments, as a user gives them: default properties would yield to application.yml's example.read
    try (ConfigurableApplicationContext context = new SpringApplicationBuilder(ScanPlanningExampleApplication.class)
        .run("--spring.main.web-application-type=none", "--example.demo.files=16", "--example.demo.latency-ms=1",
            "--example.read=false", "--example.warm-up-plans=0")) {
      PlanSummary.Run run = context.getBean(PlanSummary.class).lastRun();
      assertThat(run).isNotNull();
      assertThat(run.plan().tasks()).hasSize(16);
      assertThat(run.firstPlan()).isNull();
      assertThat(run.rows()).isNull();
    }
    // this test's own application printed its plan of 16 files, and no rows after it
    String printed = output.getOut().substring(output.getOut().lastIndexOf("Scan plan for demo.events"));
    assertThat(printed).contains("file scan tasks      16")
        .contains("warm-up              0 plans    none: the figures below are of a cold JVM")
        .doesNotContain("first plan").doesNotContain("Rows of demo.events");
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

  /** An exchange with the example's rows endpoint: status, content type, body. */
  private record Answer(int status, String contentType, String body) {
  }

  /** {@code query} may hold URI variables after {@code {table}}: their values are encoded. */
  private Answer rows(String query, MediaType accept, Object... variables) {
    return rows("demo.events", query, accept, variables);
  }

  private Answer rows(String table, String query, MediaType accept, Object... variables) {
    Object[] all = new Object[variables.length + 1];
    all[0] = table;
    System.arraycopy(variables, 0, all, 1, variables.length);
    return WebClient.create("http://localhost:" + this.port).get().uri("/tables/{table}/rows" + query, all)
        .accept(accept).exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
            .map(body -> new Answer(response.statusCode().value(),
                String.valueOf(response.headers().contentType().orElse(null)), body)))
        .block(Duration.ofSeconds(30));
  }

  @Test
  void theRowsEndpointStreamsRowsAsNdjsonLimitedAndSelected() {
    Answer answer = rows("?limit=5&select=id&select=day", MediaType.APPLICATION_NDJSON);
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.contentType()).startsWith(MediaType.APPLICATION_NDJSON_VALUE);
    List<String> lines = answer.body().lines().toList();
    assertThat(lines).hasSize(5).allSatisfy(line -> {
      JsonNode row = JsonMapper.builder().build().readTree(line);
      assertThat(row.propertyNames()).containsExactly("id", "day");
      assertThat(row.get("id").isNumber()).isTrue();
    });
  }

  @Test
  void theRowsEndpointWritesAJsonArrayFilteredByAnIcebergExpression() {
    String filter = "{\"type\":\"lt\",\"term\":\"id\",\"value\":3}";
    Answer answer = rows("?limit=1000&filter={filter}", MediaType.APPLICATION_JSON, filter);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    JsonNode rows = JsonMapper.builder().build().readTree(answer.body());
    assertThat(rows.isArray()).isTrue();
    assertThat(rows.valueStream().map(row -> row.get("id").asLong()).toList()).isNotEmpty()
        .allSatisfy(id -> assertThat(id).isLessThan(3));
  }

  @Test
  void printsTheGovernedTablesRowsMaskedAndOnlyThoseItsRowFilterKeeps(CapturedOutput output) {
    PlanSummary.Governed governed = this.summary.lastGoverned();
    assertThat(governed).isNotNull();
    assertThat(governed.rows()).isEqualTo(DemoCustomers.VISIBLE_ROWS);
    assertThat(governed.samples()).hasSize(3).allSatisfy(sample -> assertThat(sample)
        .contains("country=" + DemoCustomers.VISIBLE_COUNTRY).doesNotContain("@example.com")
        .containsPattern("birth_date=\\d{4}-01-01"));
    assertThat(output).contains("Rows of demo.customers, read with the catalog's read restrictions enforced")
        .contains("masks {3=mask-alphanum, 4=truncate-to-year}");
  }

  @Test
  void theRowsEndpointServesAGovernedTableMaskedAndFiltered() {
    Answer answer = rows(DemoCustomers.NAME, "?limit=1000", MediaType.APPLICATION_JSON);
    assertThat(answer.status()).as(answer.body()).isEqualTo(200);
    assertThat(answer.body()).doesNotContain("@example.com").doesNotContain("\"DE\"");
    JsonNode rows = JsonMapper.builder().build().readTree(answer.body());
    assertThat(rows.valueStream().toList()).hasSize(DemoCustomers.VISIBLE_ROWS)
        .allSatisfy(CallerIdentityExampleTests::assertRestricted);
    // a filter on the masked column with a raw address finds nothing; with its masked value, the rows that mask to it
    String raw = "{\"type\":\"eq\",\"left\":{\"type\":\"reference\",\"name\":\"email\"},"
        + "\"right\":\"ada0@example.com\"}";
    assertThat(JsonMapper.builder().build().readTree(rows(DemoCustomers.NAME, "?filter={filter}",
        MediaType.APPLICATION_JSON, raw).body()).size()).isZero();
    String masked = "{\"type\":\"eq\",\"term\":\"email\",\"value\":\"xxxn@xxxxxxx.xxx\"}";
    assertThat(JsonMapper.builder().build().readTree(rows(DemoCustomers.NAME, "?filter={filter}",
        MediaType.APPLICATION_JSON, masked).body()).size()).isPositive();
  }

  @Test
  void theRowsEndpointAnswersProblems() {
    Answer missing = WebClient.create("http://localhost:" + this.port).get().uri("/tables/demo.absent/rows")
        .accept(MediaType.APPLICATION_JSON).exchangeToMono(response -> response.bodyToMono(String.class)
            .map(body -> new Answer(response.statusCode().value(), "", body))).block(Duration.ofSeconds(30));
    assertThat(missing.status()).isEqualTo(404);
    JsonNode problem = JsonMapper.builder().build().readTree(missing.body());
    assertThat(problem.get("detail").asString()).isEqualTo("No such table");
    assertThat(problem.has("exception")).as("no class name by default").isFalse();
    assertThat(missing.body()).as("nothing of the catalog's").doesNotContain("127.0.0.1").doesNotContain("does not exist");
    assertThat(rows("?select=no_such_column", MediaType.APPLICATION_JSON).status()).isEqualTo(400);
    assertThat(rows("?limit=-1", MediaType.APPLICATION_JSON).status()).isEqualTo(400);
    assertThat(rows("?filter={filter}", MediaType.APPLICATION_JSON, "not json").status()).isEqualTo(400);
  }

  /**
   * A keep-alive connection on which an answer given later (from the reading executor) is followed by one given at
   * once keeps reading: its next request is answered. Both arrive before the first is answered, as a client's next
   * request may arrive before the server has finished with the previous one; Reactor Netty 1.3.6 never read the
   * connection again (reactor/reactor-netty#4361), and the third request here went unanswered.
   */
  @Test
  void theRowsEndpointAnswersTheNextRequestOfAConnectionAfterAnAnswerGivenAtOnce() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", this.port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      out.write((request("?select=no_such_column") + request("?limit=-1")).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(statusLine(in)).isEqualTo("HTTP/1.1 400 Bad Request");
      assertThat(statusLine(in)).isEqualTo("HTTP/1.1 400 Bad Request");
      out.write(request("?filter=not%20json").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      String third;
      try {
        third = statusLine(in);
      }
      catch (SocketTimeoutException unanswered) {
        third = "no answer within 10 s";
      }
      assertThat(third).isEqualTo("HTTP/1.1 400 Bad Request");
    }
  }

  private static String request(String query) {
    return "GET /tables/demo.events/rows" + query + " HTTP/1.1\r\nHost: localhost\r\nAccept: application/json\r\n\r\n";
  }

  /** Reads one response, whose body has a Content-Length, and returns its status line. */
  private static String statusLine(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (head.indexOf("\r\n\r\n") < 0) {
      int read = in.read();
      assertThat(read).as("the connection closed mid-response: %s", head).isNotNegative();
      head.append((char) read);
    }
    List<String> lines = head.toString().lines().toList();
    long length = lines.stream().filter(line -> line.regionMatches(true, 0, "content-length:", 0, 15))
        .mapToLong(line -> Long.parseLong(line.substring(15).trim())).findFirst().orElseThrow();
    in.readNBytes((int) length);
    return lines.get(0);
  }
}
