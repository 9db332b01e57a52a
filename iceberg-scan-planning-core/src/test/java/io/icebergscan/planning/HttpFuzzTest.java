package io.icebergscan.planning;

import java.io.ByteArrayOutputStream;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.icebergscan.planning.SerialWalkOracle.Outcome;
import io.icebergscan.planning.SerialWalkOracle.Result;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanFailedException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.client.HttpClient;
import reactor.netty.http.server.HttpServer;
import reactor.netty.http.server.HttpServerRequest;
import reactor.netty.http.server.HttpServerResponse;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.node.StringNode;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile catalog answers over real HTTP, end to end through the public {@link ScanPlanner} API, for every
 * response type the planner reads: {@code GET /v1/config}, the submission's {@code PlanTableScanResult}, the
 * poll's {@code FetchPlanningResult}, the {@code FetchScanTasksResult} of {@code POST …/tasks}, and Iceberg
 * error bodies on 4xx/5xx. Each case starts from a valid document and applies one to three mutations (fields
 * dropped, wrong types, nulls, huge numbers, 1 MB strings, 100,000 levels of nesting, out-of-range delete
 * references, duplicate keys, truncation, invalid UTF-8, other encodings, wrong content types and status
 * codes, odd {@code Retry-After}). Whatever is served, the plan ends within its deadline either whole (the
 * tasks the served documents imply, in walk order, with every delete file) or with an expected
 * {@link ScanPlanningException} subtype and a message; never another exception, a hang or a partial plan.
 *
 * <p>Seeded and reproducible: {@code -Dfuzz.seed=S} picks other cases, {@code -Dfuzz.cases=N} sets the
 * number per response type. The seed and the counts are printed for CI logs.
 */
class HttpFuzzTest {

  private static final long SEED = Long.getLong("fuzz.seed", 20261206L);
  private static final int CASES = Integer.getInteger("fuzz.cases", 300);
  /** Callers running cases at once: enough to keep two cores busy while cases wait on sockets. */
  private static final int PARALLEL_CASES = 4;
  private static final Duration PLAN_TIMEOUT = Duration.ofSeconds(10);
  /** Longer than the plan timeout: a case still running by then hangs past the planner's own deadline. */
  private static final long CASE_TIMEOUT_SECONDS = 20;
  private static final int MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
  private static final List<String> NAMESPACE = List.of("fuzz", "ns");

  private static final JsonMapper MAPPER = JsonMapper.builder().build();

  private static final String ENDPOINTS = "[\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]";

  private static final String CONFIG = "{\"defaults\":{\"clients\":\"4\",\"page-size\":100,\"flag\":true},"
      + "\"overrides\":{\"prefix\":\"fz\",\"namespace-separator\":\"%1F\"},\"endpoints\":" + ENDPOINTS + "}";

  private static final String POSITION_DELETE = "{\"content\":\"position-deletes\","
      + "\"file-path\":\"s3://b/d/pos.parquet\",\"file-format\":\"parquet\",\"spec-id\":0,\"partition\":[],"
      + "\"file-size-in-bytes\":10,\"record-count\":1}";

  /** The submission's completed answer: two tasks (one with a delete) and two plan-tasks. */
  private static final String COMPLETED = "{\"status\":\"completed\",\"plan-id\":\"plan-1\","
      + "\"plan-tasks\":[\"pt-a\",\"pt-b\"],\"delete-files\":[" + POSITION_DELETE + "],"
      + "\"file-scan-tasks\":["
      + task("r0", "[0]", ",\"residual-filter\":{\"type\":\"gt\",\"term\":\"id\",\"value\":5}") + ","
      + task("r1", null, "") + "],"
      + "\"storage-credentials\":[{\"prefix\":\"s3://b/\",\"config\":{\"s3.access-key-id\":\"AK\"}},"
      + "{\"prefix\":\"s3://b/d/\",\"config\":{}}]}";

  private static final String SUBMITTED = "{\"status\":\"submitted\",\"plan-id\":\"plan-1\"}";
  private static final String FAILED = "{\"status\":\"failed\",\"plan-id\":\"plan-1\","
      + "\"error\":{\"message\":\"planning failed\",\"type\":\"ServerError\",\"code\":500}}";
  private static final String CANCELLED = "{\"status\":\"cancelled\",\"plan-id\":\"plan-1\"}";

  /** {@code pt-a}: every kind of field a scan task payload has, deletes shared between tasks, a child. */
  private static final String TASKS_A = "{\"plan-tasks\":[\"pt-c\"],\"delete-files\":["
      + "{\"content\":\"position-deletes\",\"file-path\":\"s3://b/d/dv.puffin\",\"file-format\":\"puffin\","
      + "\"spec-id\":0,\"partition\":[],\"file-size-in-bytes\":1000,\"record-count\":3,\"content-offset\":4,"
      + "\"content-size-in-bytes\":60,\"referenced-data-file\":\"s3://b/a0.parquet\"},"
      + "{\"content\":\"equality-deletes\",\"file-path\":\"s3://b/d/eq.parquet\",\"file-format\":\"parquet\","
      + "\"spec-id\":0,\"partition\":[],\"file-size-in-bytes\":500,\"record-count\":7,\"equality-ids\":[1,2]}],"
      + "\"file-scan-tasks\":[{\"data-file\":{\"content\":\"data\",\"file-path\":\"s3://b/a0.parquet\","
      + "\"file-format\":\"parquet\",\"spec-id\":1,\"partition\":[\"x\",7,null],\"file-size-in-bytes\":4096,"
      + "\"record-count\":100,\"key-metadata\":\"0a1b\",\"split-offsets\":[4],\"sort-order-id\":0,"
      + "\"first-row-id\":10,\"column-sizes\":{\"keys\":[1],\"values\":[10]},"
      + "\"value-counts\":{\"keys\":[1],\"values\":[100]},\"null-value-counts\":{\"keys\":[1],\"values\":[0]},"
      + "\"lower-bounds\":{\"keys\":[1,2],\"values\":[3,\"a\"]},\"upper-bounds\":{\"keys\":[1],\"values\":[9.5]}},"
      + "\"delete-file-references\":[0,1],\"residual-filter\":{\"type\":\"in\",\"term\":\"id\",\"values\":[1,2]}},"
      + task("a1", "[1]", "") + "]}";

  private static final String TASKS_B = "{\"file-scan-tasks\":[" + task("b0", null, "") + "," + task("b1", "[]", "")
      + "]}";
  /** {@code pt-c} names {@code pt-a} again: a cycle, which the walk must not follow twice. */
  private static final String TASKS_C = "{\"plan-tasks\":[\"pt-a\"],\"file-scan-tasks\":[" + task("c0", null, "")
      + "]}";

  private static final String ERROR = "{\"error\":{\"message\":\"scripted failure\",\"type\":\"ServerError\","
      + "\"code\":500,\"stack\":[\"at x\"]}}";

  /** The expected walk of the unmutated plan, as {@link #signature} strings. */
  private static final List<String> BASE_WALK = List.of("s3://b/r0.parquet|1", "s3://b/r1.parquet|0",
      "s3://b/a0.parquet|2", "s3://b/a1.parquet|1", "s3://b/b0.parquet|0", "s3://b/b1.parquet|0",
      "s3://b/c0.parquet|0");

  /** What the catalog answers a path no case serves: a mutated prefix can send the client there. */
  private static final Reply NO_ROUTE = Reply.json(404,
      "{\"error\":{\"message\":\"no such route\",\"type\":\"NoSuchRouteException\",\"code\":404}}");
  private static final Reply NO_PLAN_TASK = Reply.json(404,
      "{\"error\":{\"message\":\"no such plan task\",\"type\":\"NoSuchPlanTaskException\",\"code\":404}}");
  private static final String ONE_MB = "\"" + "x".repeat(1 << 20) + "\"";
  private static final String OVERSIZED = "\"" + "y".repeat(MAX_RESPONSE_BYTES + 1024) + "\"";
  private static final int DEEP = 100_000;
  private static final List<String> NESTED = List.of("[".repeat(DEEP) + "]".repeat(DEEP),
      "{\"a\":".repeat(DEEP) + "1" + "}".repeat(DEEP), "[".repeat(DEEP), "[".repeat(500) + "]".repeat(500),
      "{\"a\":".repeat(400) + "{}" + "}".repeat(400));

  private static final List<String> WRONG_TYPES = List.of("true", "false", "[]", "{}", "\"x\"", "0", "1.5", "[null]",
      "{\"a\":1}", "[[]]", "[{}]", "[\"\"]", "[-1]", "{\"keys\":[1],\"values\":[{}]}", "\"12\"");
  private static final List<String> HUGE_NUMBERS = List.of("1e400", "-1e400", "1e-400", "9223372036854775808",
      "-9223372036854775809", "9223372036854775807", "2147483648", "-2147483649", "-1", "-0", "1E+2", "0.0",
      "123456789012345678901234567890.5", "NaN", "-Infinity", "\"NaN\"", "\"Infinity\"", "\"-1\"", "01", "1.");
  private static final List<String> HOSTILE_STRINGS = List.of("\"\"", "\"x\"", "\" \"", "\"a b\"", "\"../..\"",
      "\"%2F\"", "\"%zz\"", "\"\\u0000\"", "\"\\ud800\"", "\"\\udc00x\\ud800\"", "\"pt-a\"", "\"pt-c\"",
      "\"\\r\\nX-Injected: 1\"", "\"\u00e9\u4e2d\uD83D\uDE00\"", "\"completed\"", "\"{prefix}\"", "\"?a=b#c\"");
  private static final List<String> STATUSES = List.of("\"completed\"", "\"submitted\"", "\"failed\"",
      "\"cancelled\"", "\"COMPLETED\"", "\"Failed\"", "\"CANCELLED\"", "\"unknown\"", "\"\"", "\"completed \"");
  private static final List<byte[]> BAD_UTF8 = List.of(new byte[] { (byte) 0xFF }, new byte[] { (byte) 0xC3, 0x28 },
      new byte[] { (byte) 0xED, (byte) 0xA0, (byte) 0x80 }, new byte[] { (byte) 0xC0, (byte) 0xAF },
      new byte[] { (byte) 0x80 }, new byte[] { (byte) 0xF8, (byte) 0x88, (byte) 0x80, (byte) 0x80, (byte) 0x80 },
      new byte[] { (byte) 0xE2, (byte) 0x82 });
  private static final List<String> NOT_DOCUMENTS = List.of("", " \n\t ", "null", "[]", "42", "\"text\"", "{}",
      "<html><body><h1>502 Bad Gateway</h1></body></html>", "\u0000\u0001", "{\"status\":");
  private static final List<String> CONTENT_TYPES = Arrays.asList(null, "text/html", "text/plain; charset=ISO-8859-1",
      "application/xml", "application/octet-stream", "application/json; charset=UTF-16", "application/problem+json",
      "???", "application/json; charset=nonsense", "");
  private static final List<Integer> ODD_SUCCESS_STATUSES = List.of(201, 202, 203, 204, 206, 299, 300, 302, 304, 400,
      404, 409, 500, 503, 599);
  private static final List<Integer> ERROR_STATUSES = List.of(400, 401, 403, 404, 405, 406, 409, 413, 418, 419, 422,
      429, 500, 501, 502, 503, 504, 599);
  private static final List<String> RETRY_AFTERS = List.of("0", "-1", "abc", "99999999999999999999",
      "9223372036854775807", "Thu, 01 Jan 1970 00:00:00 GMT", "Fri, 31 Dec 9999 23:59:59 GMT", "1.5");

  /** The response types fuzzed; each is one test with its own cases. */
  enum Type {
    CONFIG, SUBMIT, POLL, TASKS, ERROR
  }

  /** A mutation; the weights make each kind common enough to show up in every few dozen cases. */
  enum Kind {
    DROP(4), WRONG_TYPE(4), NULL(3), HUGE_NUMBER(3), LONG_STRING(1), DEEP_NESTING(1), HOSTILE_STRING(3),
    DUPLICATE_KEY(2), REFERENCE(2), STATUS(2), NON_UTF8(1), TRUNCATE(1), NOT_A_DOCUMENT(1), ENCODING(1),
    CONTENT_TYPE(1), HTTP_STATUS(1), RETRY_AFTER(1);

    final int weight;

    Kind(int weight) {
      this.weight = weight;
    }
  }

  private static FuzzServer server;
  private static ScanPlanner planner;
  private static WebClient sharedWebClient;
  private static ExecutorService plannerExecutor;
  private static ExecutorService callers;
  /** Runs the blocking plan() calls, so that each can be given up on after a timeout. */
  private static ExecutorService blockingCalls;

  @BeforeAll
  static void start() {
    server = new FuzzServer();
    planner = ScanPlanner.builder().uri(server.uri()).maxConcurrency(4).maxRetries(0).planTimeout(PLAN_TIMEOUT)
        .pollInitialDelay(Duration.ofMillis(1)).pollMaxDelay(Duration.ofMillis(5))
        .responseTimeout(Duration.ofSeconds(15)).cancelTimeout(Duration.ofSeconds(2))
        .maxResponseBytes(MAX_RESPONSE_BYTES).build();
    // Config cases need a planner each (discovery is cached per planner); these share one client and executor.
    sharedWebClient = WebClient.builder().clientConnector(new ReactorClientHttpConnector(
        HttpClient.create().responseTimeout(Duration.ofSeconds(15)))).build();
    plannerExecutor = Executors.newFixedThreadPool(2);
    callers = Executors.newFixedThreadPool(PARALLEL_CASES);
    blockingCalls = Executors.newCachedThreadPool();
    System.out.printf("HttpFuzzTest: seed %d, %d cases per response type (-Dfuzz.seed, -Dfuzz.cases)%n", SEED,
        CASES);
  }

  @AfterAll
  static void stop() {
    if (callers != null) {
      callers.shutdownNow();
    }
    if (blockingCalls != null) {
      blockingCalls.shutdownNow();
    }
    if (planner != null) {
      planner.close();
    }
    if (plannerExecutor != null) {
      plannerExecutor.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void catalogConfig() throws Exception {
    fuzz(Type.CONFIG);
  }

  @Test
  void planSubmissionResult() throws Exception {
    fuzz(Type.SUBMIT);
  }

  @Test
  void planPollResult() throws Exception {
    fuzz(Type.POLL);
  }

  @Test
  void fetchTasksResult() throws Exception {
    fuzz(Type.TASKS);
  }

  @Test
  void errorBodies() throws Exception {
    fuzz(Type.ERROR);
  }

  // ---- the run ------------------------------------------------------------------------------------

  private static void fuzz(Type type) throws Exception {
    long started = System.nanoTime();
    SplittableRandom seeds = new SplittableRandom(SEED + type.ordinal() * 0x9E3779B97F4A7C15L);
    List<CompletableFuture<Verdict>> running = new ArrayList<>();
    for (int i = 0; i < CASES; i++) {
      FuzzCase fuzzCase = generate(type, i, new Random(seeds.nextLong()));
      running.add(CompletableFuture.supplyAsync(() -> run(fuzzCase), callers));
    }
    List<String> problems = new ArrayList<>();
    Map<String, Integer> outcomes = new TreeMap<>();
    Map<Kind, Integer> kinds = new TreeMap<>();
    int streamed = 0;
    for (CompletableFuture<Verdict> future : running) {
      Verdict verdict;
      try {
        verdict = future.get(CASE_TIMEOUT_SECONDS * 2, TimeUnit.SECONDS);
      }
      catch (TimeoutException hung) {
        problems.add("a case did not end within " + CASE_TIMEOUT_SECONDS * 2 + " s");
        future.cancel(true);
        continue;
      }
      outcomes.merge(verdict.outcome(), 1, Integer::sum);
      verdict.fuzzCase().kinds().forEach(kind -> kinds.merge(kind, 1, Integer::sum));
      streamed += verdict.fuzzCase().streaming() ? 1 : 0;
      if (verdict.problem() != null) {
        problems.add(verdict.fuzzCase().describe() + "\n    " + verdict.problem());
      }
    }
    System.out.printf("HttpFuzzTest %s: %d cases (%d through plan(), %d through planTasks()), seed %d, %d ms%n"
        + "  outcomes: %s%n  mutations: %s%n", type, running.size(), running.size() - streamed, streamed, SEED,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started), outcomes, kinds);

    assertThat(problems).as("%d of %d cases broke the contract (seed %d)", problems.size(), running.size(), SEED)
        .isEmpty();
    assertThat(running).hasSize(CASES);
    if (CASES >= 100) {
      // the generator must reach both sides of the contract, or it fuzzes nothing
      assertThat(outcomes).as("outcomes").containsKey(type == Type.ERROR ? "RestException" : "success");
      assertThat(outcomes.keySet()).as("outcomes").hasSizeGreaterThan(1);
    }
  }

  /** The outcome's class name (or "success") and what was wrong with it, if anything. */
  record Verdict(FuzzCase fuzzCase, String outcome, @Nullable String problem) {
  }

  private static Verdict run(FuzzCase fuzzCase) {
    server.cases.put(fuzzCase.table(), fuzzCase);
    ScanPlanner used = fuzzCase.ownPlanner() ? configPlanner(fuzzCase) : planner;

    TableIdentifier table = TableIdentifier.of(NAMESPACE, fuzzCase.table());
    List<FileScanTask> streamedTasks = new ArrayList<>();
    try {
      CompletableFuture<?> outcome = fuzzCase.streaming()
          ? used.planTasks(table, ScanRequest.all()).doOnNext(streamedTasks::add).collectList().toFuture()
          : CompletableFuture.supplyAsync(() -> used.plan(table, ScanRequest.all()), blockingCalls);
      Object value;
      try {
        value = outcome.get(CASE_TIMEOUT_SECONDS, TimeUnit.SECONDS);
      }
      catch (TimeoutException hung) {
        outcome.cancel(true);
        return new Verdict(fuzzCase, "hang", "no outcome within " + CASE_TIMEOUT_SECONDS + " s");
      }
      catch (ExecutionException failed) {
        Throwable failure = failed.getCause();
        return new Verdict(fuzzCase, failure.getClass().getSimpleName(), checkFailure(fuzzCase, failure));
      }
      List<FileScanTask> tasks = value instanceof ScanPlan plan ? plan.tasks() : streamedTasks;
      return new Verdict(fuzzCase, "success", checkSuccess(fuzzCase, value, tasks));
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return new Verdict(fuzzCase, "interrupted", "interrupted");
    }
    catch (RuntimeException thrown) {
      return new Verdict(fuzzCase, thrown.getClass().getSimpleName(), "thrown at call time: " + thrown);
    }
    finally {
      if (used != planner) {
        used.close();
      }

      server.cases.remove(fuzzCase.table());
    }
  }

  private static ScanPlanner configPlanner(FuzzCase fuzzCase) {
    return ScanPlanner.builder().uri(server.uri()).warehouse(fuzzCase.table()).webClient(sharedWebClient)
        .executor(plannerExecutor).maxConcurrency(2).maxRetries(0).planTimeout(PLAN_TIMEOUT)
        .pollInitialDelay(Duration.ofMillis(1)).pollMaxDelay(Duration.ofMillis(5))
        .cancelTimeout(Duration.ofSeconds(2)).maxResponseBytes(MAX_RESPONSE_BYTES).build();
  }

  // ---- the checks ---------------------------------------------------------------------------------

  private static @Nullable String checkFailure(FuzzCase fuzzCase, Throwable failure) {
    if (!(failure instanceof ScanPlanningException planning)) {
      return "not a ScanPlanningException: " + stackTrace(failure);
    }
    String message = planning.getMessage();
    if (message == null || message.isBlank()) {
      return "no message: " + stackTrace(failure);
    }
    Reply error = fuzzCase.errorReply().get();
    if (planning instanceof RestException rest) {
      if (error == null) {
        return "a RestException but the catalog answered no error status: " + brief(message);
      }
      if (rest.statusCode() != error.status() || !message.contains("HTTP " + error.status())) {
        return "a RestException for HTTP " + rest.statusCode() + " but the catalog answered " + error.status() + ": "
            + brief(message);
      }
      boolean fromTasks = fuzzCase.tasks().get(fuzzCase.mutatedHandle()) == error;
      if (fromTasks != fuzzCase.mutatedHandle().equals(rest.planTask())) {
        return "a RestException attributed to plan-task " + rest.planTask() + ": " + brief(message);
      }
      return null;
    }
    if (error != null && planning instanceof MalformedResponseException && error.body().length > MAX_RESPONSE_BYTES
        && message.contains("larger than the limit")) {
      return null; // an error body too large to read: the status is lost with it, but the failure is typed
    }
    if (planning instanceof PlanTimeoutException && fuzzCase.retryAfterServed().get() != null
        && message.startsWith("the catalog asked to poll")) {
      return null; // an answer asked for a wait beyond the deadline: failing at once is not a hang
    }
    if (error != null && !(planning instanceof UnsupportedEndpointException)) {
      return "the catalog answered HTTP " + error.status() + " but the plan failed with " + stackTrace(failure);
    }
    if (planning instanceof MalformedResponseException) {
      if (!message.startsWith("malformed response")) {
        return "message does not say what was malformed: " + brief(message);
      }
      if (fuzzCase.type() == Type.TASKS && !fuzzCase.mutatedHandle().equals(planning.planTask())) {
        return "a malformed tasks answer not attributed to its plan-task: " + brief(message);
      }
      return null;
    }
    if (planning instanceof UnsupportedEndpointException unsupported) {
      // only a mutated config can leave out an endpoint
      return fuzzCase.type() == Type.CONFIG && unsupported.endpoint() != null ? null : stackTrace(failure);
    }
    String status = lastPlanStatus(fuzzCase);
    if (planning instanceof PlanFailedException && "failed".equals(status)) {
      return null;
    }
    if (planning instanceof PlanCancelledException && "cancelled".equals(status) && fuzzCase.lastPlanFromPoll().get()) {
      return null;
    }
    return "unexpected failure (last plan status served: " + status + "): " + stackTrace(failure);
  }

  private static @Nullable String checkSuccess(FuzzCase fuzzCase, Object value, List<FileScanTask> tasks) {
    if (fuzzCase.errorReply().get() != null) {
      return "a plan although the catalog answered HTTP " + fuzzCase.errorReply().get().status();
    }
    JsonNode plan = fuzzCase.lastPlanDocument().get();
    if (plan == null || !"completed".equals(lastPlanStatus(fuzzCase))) {
      return "a plan although the last plan answer was not 'completed': " + lastPlanStatus(fuzzCase);
    }
    Map<String, Outcome> graph = new HashMap<>();
    fuzzCase.tasks().forEach((handle, reply) -> {
      JsonNode document = reply.status() / 100 == 2 ? tree(reply.body()) : null;
      graph.put(handle, document == null || !document.isObject()
          ? Outcome.failure(new MalformedResponseException("unreadable", null, handle))
          : Outcome.answer(signatures(document), strings(document.path("plan-tasks"))));
    });
    List<String> rootPlanTasks = strings(plan.path("plan-tasks"));
    for (String handle : allHandles(rootPlanTasks, graph)) {
      graph.putIfAbsent(handle, Outcome.failure(new NoSuchPlanTaskException(404, null, "unknown", handle)));
    }
    Result expected = SerialWalkOracle.walk(signatures(plan), rootPlanTasks, graph);
    if (expected.failedHandle() != null) {
      return "a plan although fetching '" + brief(expected.failedHandle()) + "' could only fail";
    }
    List<String> actual = tasks.stream().map(HttpFuzzTest::signature).toList();
    if (!actual.equals(expected.tasks())) {
      return "partial or altered plan: expected " + briefList(expected.tasks()) + " but got " + briefList(actual);
    }
    if (value instanceof ScanPlan scanPlan) {
      JsonNode credentials = plan.path("storage-credentials");
      int expectedCredentials = credentials.isArray() ? credentials.size() : 0;
      if (scanPlan.storageCredentials().size() != expectedCredentials) {
        return "expected " + expectedCredentials + " storage credentials but got "
            + scanPlan.storageCredentials().size();
      }
    }
    if (!fuzzCase.mutated() && !actual.equals(BASE_WALK)) {
      return "the unmutated plan gave " + actual;
    }
    return null;
  }

  /** Every handle reachable from the root through answers that parse: unknown ones answer 404. */
  private static List<String> allHandles(List<String> root, Map<String, Outcome> graph) {
    List<String> all = new ArrayList<>(root);
    graph.values().forEach(outcome -> all.addAll(outcome.children()));
    return all;
  }

  /** A task as data file path and number of deletes applied, the parts a partial parse would lose. */
  private static String signature(FileScanTask task) {
    return task.dataFile().filePath() + "|" + task.deleteFiles().size();
  }

  private static List<String> signatures(JsonNode scanTasks) {
    List<String> signatures = new ArrayList<>();
    for (JsonNode task : scanTasks.path("file-scan-tasks")) {
      JsonNode references = task.path("delete-file-references");
      signatures.add(task.path("data-file").path("file-path").stringValue() + "|"
          + (references.isArray() ? references.size() : 0));
    }
    return signatures;
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    for (JsonNode value : array) {
      values.add(value.isString() ? value.stringValue() : value.toString());
    }
    return values;
  }

  private static @Nullable String lastPlanStatus(FuzzCase fuzzCase) {
    JsonNode plan = fuzzCase.lastPlanDocument().get();
    JsonNode status = plan == null ? null : plan.get("status");
    return status != null && status.isString() ? status.stringValue().toLowerCase(Locale.ROOT) : null;
  }

  private static @Nullable JsonNode tree(byte[] body) {
    try {
      return MAPPER.readTree(body);
    }
    catch (RuntimeException unreadable) {
      return null;
    }
  }

  private static String stackTrace(Throwable failure) {
    StringBuilder text = new StringBuilder(failure.getClass().getName() + ": " + brief(failure.getMessage()));
    StackTraceElement[] frames = failure.getStackTrace();
    for (int i = 0; i < Math.min(8, frames.length); i++) {
      text.append("\n      at ").append(frames[i]);
    }
    if (failure.getCause() != null && failure.getCause() != failure) {
      text.append("\n    caused by ").append(stackTrace(failure.getCause()));
    }
    return text.toString();
  }

  private static String brief(@Nullable String text) {
    return text == null ? "null" : text.length() <= 300 ? text : text.substring(0, 300) + "…(" + text.length() + ")";
  }

  private static String briefList(List<String> values) {
    return brief(values.stream().map(HttpFuzzTest::brief).toList().toString());
  }

  // ---- generation ---------------------------------------------------------------------------------

  /** What one case serves, and what the server saw while serving it. */
  record FuzzCase(Type type, int index, String table, boolean streaming, Reply config, Reply submit,
      List<Reply> polls, Map<String, Reply> tasks, String mutatedHandle, List<Kind> kinds, List<String> steps,
      AtomicReference<@Nullable JsonNode> lastPlanDocument, AtomicReference<@Nullable Reply> errorReply,
      AtomicReference<Boolean> lastPlanFromPoll, AtomicInteger pollsServed,
      AtomicReference<@Nullable String> retryAfterServed) {

    boolean mutated() {
      return !this.kinds.isEmpty();
    }

    /** Discovery is cached per planner: a case serving its own config needs a planner of its own. */
    boolean ownPlanner() {
      return this.config.status() != 200 || !Arrays.equals(this.config.body(), Reply.json(200, CONFIG).body())
          || !"application/json".equals(this.config.contentType()) || !this.config.headers().isEmpty();
    }

    String describe() {
      return "case " + this.index + " [" + this.type + ", " + (this.streaming ? "planTasks()" : "plan()")
          + ", seed " + SEED + "] " + String.join("; ", this.steps);
    }
  }

  private static FuzzCase generate(Type type, int index, Random random) {
    String table = type.name().toLowerCase(Locale.ROOT) + "-" + index;
    Reply config = Reply.json(200, CONFIG);
    Reply submit = Reply.json(200, COMPLETED);
    List<Reply> polls = List.of(Reply.json(200, COMPLETED));
    Map<String, Reply> tasks = new LinkedHashMap<>(Map.of("pt-a", Reply.json(200, TASKS_A), "pt-b",
        Reply.json(200, TASKS_B), "pt-c", Reply.json(200, TASKS_C)));
    String mutatedHandle = "";
    // one case in twenty is served unmutated: the baseline the mutated ones are measured against
    boolean unmutated = random.nextInt(20) == 0;
    Mutation mutation;
    switch (type) {
      case CONFIG -> {
        mutation = new Mutation(CONFIG, 200, random);
        config = mutation.apply(unmutated);
      }
      case SUBMIT -> {
        mutation = new Mutation(pick(random, COMPLETED, COMPLETED, COMPLETED, SUBMITTED, FAILED, CANCELLED), 200,
            random);
        submit = mutation.apply(unmutated);
      }
      case POLL -> {
        submit = Reply.json(200, SUBMITTED);
        mutation = new Mutation(pick(random, COMPLETED, COMPLETED, COMPLETED, SUBMITTED, FAILED, CANCELLED), 200,
            random);
        // a poll answered 'submitted' is followed by the completed plan, so a case never polls forever
        polls = List.of(mutation.apply(unmutated), Reply.json(200, COMPLETED));
      }
      case TASKS -> {
        mutatedHandle = pick(random, "pt-a", "pt-a", "pt-a", "pt-b", "pt-c");
        String base = switch (mutatedHandle) {
          case "pt-a" -> TASKS_A;
          case "pt-b" -> TASKS_B;
          default -> TASKS_C;
        };
        mutation = new Mutation(base, 200, random);
        tasks.put(mutatedHandle, mutation.apply(unmutated));
      }
      default -> {
        int status = ERROR_STATUSES.get(random.nextInt(ERROR_STATUSES.size()));
        mutation = new Mutation(ERROR, status, random);
        Reply error = mutation.apply(unmutated || random.nextInt(5) == 0);
        switch (random.nextInt(4)) {
          case 0 -> {
            config = error;
            mutation.steps.add(0, "served by GET /v1/config");
          }
          case 1 -> {
            submit = error;
            mutation.steps.add(0, "served by POST plan");
          }
          case 2 -> {
            submit = Reply.json(200, SUBMITTED);
            polls = List.of(error);
            mutation.steps.add(0, "served by GET plan");
          }
          default -> {
            mutatedHandle = pick(random, "pt-a", "pt-b", "pt-c");
            tasks.put(mutatedHandle, error);
            mutation.steps.add(0, "served by POST tasks for " + mutatedHandle);
          }
        }
      }
    }
    boolean streaming = random.nextInt(10) < 3;
    return new FuzzCase(type, index, table, streaming, config, submit, polls, tasks, mutatedHandle, mutation.kinds,
        mutation.steps, new AtomicReference<>(), new AtomicReference<>(), new AtomicReference<>(false),
        new AtomicInteger(), new AtomicReference<>());
  }

  private static String task(String name, @Nullable String references, String more) {
    return "{\"data-file\":{\"content\":\"data\",\"file-path\":\"s3://b/" + name + ".parquet\","
        + "\"file-format\":\"parquet\",\"spec-id\":0,\"partition\":[],\"file-size-in-bytes\":100,"
        + "\"record-count\":10}" + (references != null ? ",\"delete-file-references\":" + references : "") + more
        + "}";
  }

  @SafeVarargs
  private static <T> T pick(Random random, T... values) {
    return values[random.nextInt(values.length)];
  }

  private static <T> T pick(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** One answer: status, content type (none when null), body bytes as sent, extra headers. */
  record Reply(int status, @Nullable String contentType, byte[] body, Map<String, String> headers) {

    static Reply json(int status, String body) {
      return new Reply(status, "application/json", body.getBytes(StandardCharsets.UTF_8), Map.of());
    }
  }

  /** Mutates one valid document: edits of its tree first, then of its bytes, then of how it is served. */
  private static final class Mutation {

    private static final Pattern PLACEHOLDER = Pattern.compile("\"@@m(\\d+)@@\"");

    private final Random random;
    private final JsonNode root;
    private final boolean errorBody;
    private final List<byte[]> splices = new ArrayList<>();
    private final List<UnaryOperator<byte[]>> bodyEdits = new ArrayList<>();
    private final Map<String, String> headers = new LinkedHashMap<>();
    private int status;
    private @Nullable String contentType = "application/json";
    final List<Kind> kinds = new ArrayList<>();
    final List<String> steps = new ArrayList<>();

    Mutation(String base, int status, Random random) {
      this.random = random;
      this.root = MAPPER.readTree(base);
      this.status = status;
      this.errorBody = status != 200;
      if (this.errorBody) {
        this.steps.add("HTTP " + status);
      }
    }

    Reply apply(boolean unmutated) {
      int count = unmutated ? 0 : this.random.nextInt(3) == 0 ? 2 + this.random.nextInt(2) : 1;
      while (this.kinds.size() < count) {
        Kind kind = pickKind();
        if (mutate(kind)) {
          this.kinds.add(kind);
        }
      }
      if (this.kinds.isEmpty()) {
        this.steps.add("unmutated");
      }
      byte[] body = render(this.root);
      for (UnaryOperator<byte[]> edit : this.bodyEdits) {
        body = edit.apply(body);
      }
      return new Reply(this.status, this.contentType, body, Map.copyOf(this.headers));
    }

    private Kind pickKind() {
      int total = Arrays.stream(Kind.values()).mapToInt(kind -> kind.weight).sum();
      int at = this.random.nextInt(total);
      for (Kind kind : Kind.values()) {
        at -= kind.weight;
        if (at < 0) {
          return kind;
        }
      }
      throw new IllegalStateException();
    }

    /** Applies one mutation of the kind; false when the kind does not apply to this document. */
    private boolean mutate(Kind kind) {
      switch (kind) {
        case DROP -> {
          Place place = place(null);
          if (place == null) {
            return false;
          }
          place.remove();
          this.steps.add("drop " + place);
        }
        case WRONG_TYPE -> {
          return replace(null, pick(this.random, WRONG_TYPES), "wrong type");
        }
        case NULL -> {
          return replace(null, "null", "null");
        }
        case HUGE_NUMBER -> {
          return replace(null, pick(this.random, HUGE_NUMBERS), "number");
        }
        case LONG_STRING -> {
          return replace(null, this.random.nextInt(8) == 0 ? OVERSIZED : ONE_MB, "long string");
        }
        case DEEP_NESTING -> {
          return replace(null, pick(this.random, NESTED), "nesting");
        }
        case HOSTILE_STRING -> {
          return replace(null, pick(this.random, HOSTILE_STRINGS), "string");
        }
        case DUPLICATE_KEY -> {
          Place place = place(Place::inObject);
          if (place == null) {
            return false;
          }
          String other = pick(this.random, pick(this.random, WRONG_TYPES, HOSTILE_STRINGS, STATUSES, HUGE_NUMBERS));
          String key = MAPPER.writeValueAsString(place.name);
          String original = new String(render(place.node()), StandardCharsets.UTF_8);
          boolean originalLast = this.random.nextBoolean();
          splice(place, originalLast ? other + "," + key + ":" + original : original + "," + key + ":" + other);
          this.steps.add("duplicate " + place + " := " + brief(other) + (originalLast ? " before" : " after")
              + " the original");
        }
        case REFERENCE -> {
          return reference();
        }
        case STATUS -> {
          if (!this.root.has("status")) {
            return false;
          }
          String status = pick(this.random, STATUSES);
          splice(new Place(this.root, "status", -1), status);
          this.steps.add("status := " + status);
        }
        case NON_UTF8 -> {
          byte[] bad = pick(this.random, BAD_UTF8);
          Place place = place(null);
          if (place != null && this.random.nextBoolean()) {
            ByteArrayOutputStream value = new ByteArrayOutputStream();
            value.writeBytes("\"s3://b/".getBytes(StandardCharsets.UTF_8));
            value.writeBytes(bad);
            value.writeBytes("\"".getBytes(StandardCharsets.UTF_8));
            splice(place, value.toByteArray());
            this.steps.add(place + " := a string with bytes " + hex(bad));
          }
          else {
            double at = this.random.nextDouble();
            this.bodyEdits.add(body -> {
              int index = (int) (at * body.length);
              ByteArrayOutputStream out = new ByteArrayOutputStream();
              out.write(body, 0, index);
              out.writeBytes(bad);
              out.write(body, index, body.length - index);
              return out.toByteArray();
            });
            this.steps.add("bytes " + hex(bad) + " inserted at " + (int) (at * 100) + "% of the body");
          }
        }
        case TRUNCATE -> {
          double at = this.random.nextDouble();
          this.bodyEdits.add(body -> Arrays.copyOf(body, (int) (at * body.length)));
          this.steps.add("truncated at " + (int) (at * 100) + "%");
        }
        case NOT_A_DOCUMENT -> {
          if (this.random.nextBoolean()) {
            String body = pick(this.random, NOT_DOCUMENTS);
            this.bodyEdits.add(ignored -> body.getBytes(StandardCharsets.UTF_8));
            this.steps.add("body := " + brief(body));
          }
          else {
            String trailing = pick(this.random, " x", "{}", "]", " null", "\u0000");
            this.bodyEdits.add(body -> concat(body, trailing.getBytes(StandardCharsets.UTF_8)));
            this.steps.add("trailing " + brief(trailing));
          }
        }
        case ENCODING -> {
          String encoding = pick(this.random, "BOM", "UTF-16BE", "UTF-16LE", "UTF-16", "UTF-32", "ISO-8859-1");
          this.bodyEdits.add(body -> encoding.equals("BOM")
              ? concat(new byte[] { (byte) 0xEF, (byte) 0xBB, (byte) 0xBF }, body)
              : new String(body, StandardCharsets.UTF_8).getBytes(Charset.forName(encoding)));
          this.steps.add("encoded as " + encoding);
        }
        case CONTENT_TYPE -> {
          this.contentType = pick(this.random, CONTENT_TYPES);
          this.steps.add("Content-Type: " + this.contentType);
        }
        case HTTP_STATUS -> {
          this.status = pick(this.random, this.errorBody ? ERROR_STATUSES : ODD_SUCCESS_STATUSES);
          this.steps.add("HTTP " + this.status);
        }
        case RETRY_AFTER -> {
          String value = pick(this.random, RETRY_AFTERS);
          this.headers.put("Retry-After", value);
          this.steps.add("Retry-After: " + value);
        }
      }
      return true;
    }

    /** Out-of-range, negative, huge or repeated delete-file references, or a delete file removed under them. */
    private boolean reference() {
      List<Place> references = new ArrayList<>();
      for (JsonNode task : this.root.path("file-scan-tasks")) {
        if (task.get("delete-file-references") instanceof ArrayNode array) {
          for (int i = 0; i < array.size(); i++) {
            references.add(new Place(array, null, i));
          }
          references.add(new Place(task, "delete-file-references", -1));
        }
      }
      int deletes = this.root.path("delete-files").size();
      if (references.isEmpty()) {
        return false;
      }
      if (deletes > 0 && this.random.nextInt(4) == 0) {
        Place place = new Place(this.root.get("delete-files"), null, this.random.nextInt(deletes));
        place.remove();
        this.steps.add("drop " + place + " under its references");
        return true;
      }
      Place place = pick(this.random, references);
      String value = place.name != null
          ? pick(this.random, "[" + deletes + "]", "[0,0]", "[-1]", "[0," + (deletes + 5) + "]", "[2147483648]")
          : pick(this.random, String.valueOf(deletes), String.valueOf(deletes + 1), "-1", "2147483647",
              "2147483648", "0");
      splice(place, value);
      this.steps.add("reference " + place + " := " + value + " (" + deletes + " delete files)");
      return true;
    }

    private boolean replace(@Nullable Predicate<Place> where, String raw, String what) {
      Place place = place(where);
      if (place == null) {
        return false;
      }
      splice(place, raw);
      this.steps.add(what + " " + place + " := " + brief(raw));
      return true;
    }

    private void splice(Place place, String raw) {
      splice(place, raw.getBytes(StandardCharsets.UTF_8));
    }

    private void splice(Place place, byte[] raw) {
      place.set(StringNode.valueOf("@@m" + this.splices.size() + "@@"));
      this.splices.add(raw);
    }

    /** A random node of the document (never the root), among those {@code where} accepts. */
    private @Nullable Place place(@Nullable Predicate<Place> where) {
      List<Place> places = new ArrayList<>();
      collect(this.root, places);
      if (where != null) {
        places.removeIf(where.negate());
      }
      return places.isEmpty() ? null : pick(this.random, places);
    }

    private static void collect(JsonNode node, List<Place> places) {
      if (node instanceof ObjectNode object) {
        for (Map.Entry<String, JsonNode> member : object.properties()) {
          places.add(new Place(object, member.getKey(), -1));
          collect(member.getValue(), places);
        }
      }
      else if (node instanceof ArrayNode array) {
        for (int i = 0; i < array.size(); i++) {
          places.add(new Place(array, null, i));
          collect(array.get(i), places);
        }
      }
    }

    /** The node as JSON bytes with the raw values spliced in place of their placeholders. */
    private byte[] render(JsonNode node) {
      String text = MAPPER.writeValueAsString(node);
      ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
      Matcher matcher = PLACEHOLDER.matcher(text);
      int from = 0;
      while (matcher.find()) {
        out.writeBytes(text.substring(from, matcher.start()).getBytes(StandardCharsets.UTF_8));
        out.writeBytes(this.splices.get(Integer.parseInt(matcher.group(1))));
        from = matcher.end();
      }
      out.writeBytes(text.substring(from).getBytes(StandardCharsets.UTF_8));
      return out.toByteArray();
    }
  }

  /** A member of an object or an element of an array. */
  private record Place(JsonNode parent, @Nullable String name, int index) {

    boolean inObject() {
      return this.name != null;
    }

    JsonNode node() {
      return this.name != null ? this.parent.get(this.name) : this.parent.get(this.index);
    }

    void set(JsonNode value) {
      if (this.name != null) {
        ((ObjectNode) this.parent).set(this.name, value);
      }
      else {
        ((ArrayNode) this.parent).set(this.index, value);
      }
    }

    void remove() {
      if (this.name != null) {
        ((ObjectNode) this.parent).remove(this.name);
      }
      else {
        ((ArrayNode) this.parent).remove(this.index);
      }
    }

    @Override
    public String toString() {
      return this.name != null ? "." + this.name : "[" + this.index + "]";
    }
  }

  private static byte[] concat(byte[] first, byte[] second) {
    byte[] both = Arrays.copyOf(first, first.length + second.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  private static String hex(byte[] bytes) {
    StringBuilder text = new StringBuilder();
    for (byte b : bytes) {
      text.append(String.format("%02X", b & 0xFF));
    }
    return text.toString();
  }

  // ---- the catalog --------------------------------------------------------------------------------

  /**
   * One loopback catalog for every case: it finds the case by table name (or, for discovery, by warehouse),
   * serves its replies as raw bytes, and records what it served, which is what the checks judge by.
   */
  private static final class FuzzServer implements AutoCloseable {

    final Map<String, FuzzCase> cases = new ConcurrentHashMap<>();
    private final DisposableServer server = HttpServer.create().host("127.0.0.1").port(0)
        // a mutated prefix may put a megabyte into the request line
        .httpRequestDecoder(spec -> spec.maxInitialLineLength(16 << 20))
        .handle(this::route).bindNow();

    String uri() {
      return "http://127.0.0.1:" + this.server.port();
    }

    private Mono<Void> route(HttpServerRequest request, HttpServerResponse response) {
      String method = request.method().name();
      String uri = request.uri();
      if (uri.startsWith("/v1/config")) {
        int at = uri.indexOf("warehouse=");
        FuzzCase fuzzCase = at < 0 ? null : this.cases.get(uri.substring(at + "warehouse=".length()));
        return fuzzCase == null ? send(response, Reply.json(200, CONFIG)) : serve(response, fuzzCase,
            fuzzCase.config(), false, false);
      }
      int tables = uri.lastIndexOf("/tables/");
      String rest = tables < 0 ? "" : uri.substring(tables + "/tables/".length());
      int slash = rest.indexOf('/');
      FuzzCase fuzzCase = slash < 0 ? null : this.cases.get(rest.substring(0, slash));
      String tail = slash < 0 ? "" : rest.substring(slash);
      if (fuzzCase == null) {
        return send(response, NO_ROUTE);
      }
      if (method.equals("POST") && tail.equals("/plan")) {
        return serve(response, fuzzCase, fuzzCase.submit(), true, false);
      }
      if (method.equals("GET") && tail.startsWith("/plan/")) {
        List<Reply> polls = fuzzCase.polls();
        Reply reply = polls.get(Math.min(fuzzCase.pollsServed().getAndIncrement(), polls.size() - 1));
        return serve(response, fuzzCase, reply, true, true);
      }
      if (method.equals("DELETE") && tail.startsWith("/plan/")) {
        return response.status(204).send();
      }
      if (method.equals("POST") && tail.equals("/tasks")) {
        return request.receive().aggregate().asByteArray().flatMap(body -> {
          String handle = MAPPER.readTree(body).get("plan-task").stringValue();
          Reply reply = fuzzCase.tasks().get(handle);
          return serve(response, fuzzCase, reply != null ? reply : NO_PLAN_TASK, false, false);
        });
      }
      return send(response, NO_ROUTE);
    }

    private Mono<Void> serve(HttpServerResponse response, FuzzCase fuzzCase, Reply reply, boolean plan,
        boolean poll) {
      if (reply.status() < 200 || reply.status() > 299) {
        fuzzCase.errorReply().set(reply);
      }
      else if (plan) {
        fuzzCase.lastPlanDocument().set(tree(reply.body()));
        fuzzCase.lastPlanFromPoll().set(poll);
        if (reply.headers().containsKey("Retry-After")) {
          fuzzCase.retryAfterServed().set(reply.headers().get("Retry-After"));
        }
      }
      return send(response, reply);
    }

    private static Mono<Void> send(HttpServerResponse response, Reply reply) {
      response.status(reply.status());
      if (reply.contentType() != null) {
        response.header("Content-Type", reply.contentType());
      }
      reply.headers().forEach(response::header);
      return response.sendByteArray(Mono.just(reply.body())).then();
    }

    @Override
    public void close() {
      this.server.disposeNow(Duration.ofSeconds(5));
    }
  }
}
