package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A planner used as a caller ({@link ScanPlanner#as}): every request that belongs to a caller's call (discovery, the
 * plan, its polls, every fetch, retries, the DELETE of an abandoned plan, loads, credentials, reports) carries that
 * caller's credentials and no other, whatever the timing, checked by a catalog that owns each plan by the principal
 * that submitted it.
 */
class CallerIdentityTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String TABLE_PATH = "/v1/namespaces/db/tables/t";

  @RegisterExtension
  private final MockCatalog mock = new MockCatalog();

  private final PrincipalCatalog catalog = new PrincipalCatalog();

  private ScanPlanner planner(ScanPlanner.Builder builder) {
    this.mock.server().setDispatcher(this.catalog);
    return this.mock.planner(builder.maxConcurrency(4).maxRetries(2).retryInitialDelay(Duration.ofMillis(1))
        .retryMaxDelay(Duration.ofMillis(5)).pollInitialDelay(Duration.ofMillis(1)).pollMaxDelay(Duration.ofMillis(5))
        .planTimeout(Duration.ofSeconds(30)));
  }

  private ScanPlanner servicePlanner() {
    return planner(this.mock.builder().header("Authorization", "Bearer service-token"));
  }

  @Test
  void sixtyFourConcurrentPlansAlternatingTwoCallersCarryEachTheirCallersIdentityOnEveryRequest() throws Exception {
    ScanPlanner planner = servicePlanner();
    ScanPlanner alice = planner.as(CatalogCredentials.bearer("alice-token"));
    ScanPlanner bob = planner.as(CatalogCredentials.bearer("bob-token"));
    ExecutorService callers = Executors.newFixedThreadPool(32);
    try {
      List<CompletableFuture<List<FileScanTask>>> plans = new ArrayList<>();
      for (int i = 0; i < 64; i++) {
        ScanPlanner caller = i % 2 == 0 ? alice : bob;
        // half blocking plans on threads of their own, half streamed plans on the planner's threads
        plans.add(i % 4 < 2 ? CompletableFuture.supplyAsync(() -> caller.plan(TABLE).tasks(), callers)
            : caller.planTasks(TABLE, ScanRequest.all()).collectList().toFuture());
      }
      for (int i = 0; i < 64; i++) {
        List<FileScanTask> tasks = plans.get(i).get(30, TimeUnit.SECONDS);
        String principal = i % 2 == 0 ? "alice" : "bob";
        // the root task, two fetched, two of their children: all made for the plan's own principal
        assertThat(tasks).hasSize(5).allSatisfy(task -> assertThat(task.dataFile().filePath())
            .startsWith("s3://b/" + principal + "-"));
      }
    }
    finally {
      callers.shutdownNow();
    }
    assertThat(this.catalog.violations).isEmpty();
    assertThat(this.catalog.retried.get()).as("retried fetches").isEqualTo(64);
    assertThat(this.catalog.polls.get()).as("polls").isGreaterThanOrEqualTo(64);
    // discovered once per principal, and never by the planner's own identity, which no call used
    assertThat(this.catalog.configs).containsOnly("alice", "bob").hasSize(2);
  }

  @Test
  void anAbandonedPlansDeleteCredentialRefreshLoadAndReportAreTheCallers() {
    ScanPlanner planner = servicePlanner();
    ScanPlanner alice = planner.as(CatalogCredentials.bearer("alice-token"));
    TaskBatch first = alice.planBatches(TABLE, ScanRequest.all()).blockFirst(Duration.ofSeconds(10));
    assertThat(first).isNotNull();
    // taking the first batch cancelled the plan: its DELETE goes out in the background, as alice
    await().atMost(Duration.ofSeconds(10)).until(() -> this.catalog.deletes.contains(first.planId()));

    alice.catalog().loadCredentials(TABLE, first.planId());
    alice.catalog().loadTable(TABLE, true);
    alice.catalog().reportMetrics(TABLE, "{\"report-type\":\"scan-report\"}").block(Duration.ofSeconds(10));
    planner.as(CatalogCredentials.bearer("bob-token")).catalog().loadTable(TABLE, false);

    assertThat(this.catalog.violations).isEmpty();
    assertThat(this.catalog.seen).containsExactly("alice GET /v1/config", "alice POST " + TABLE_PATH + "/plan",
        "alice GET " + TABLE_PATH + "/plan/" + first.planId(), "alice DELETE " + TABLE_PATH + "/plan/"
            + first.planId(), "alice GET " + TABLE_PATH + "/credentials", "alice GET " + TABLE_PATH,
        "alice POST " + TABLE_PATH + "/metrics", "bob GET /v1/config", "bob GET " + TABLE_PATH);
  }

  @Test
  void theServicesOwnCallsKeepTheServicesIdentity() {
    ScanPlanner planner = servicePlanner();
    planner.as(CatalogCredentials.bearer("alice-token")).plan(TABLE);
    assertThat(planner.plan(TABLE).tasks()).allSatisfy(task -> assertThat(task.dataFile().filePath())
        .startsWith("s3://b/service-"));
    assertThat(this.catalog.violations).isEmpty();
    assertThat(this.catalog.configs).containsExactly("alice", "service");
    // the health check asks as the planner, even through a caller's view
    planner.as(CatalogCredentials.bearer("alice-token")).checkCatalog(Duration.ofSeconds(10));
    assertThat(this.catalog.configs).containsExactly("alice", "service", "service");
  }

  @Test
  void aCallersRequestsFetchNoTokenOfThePlannersOAuth2ClientCredentials() {
    ScanPlanner planner = planner(this.mock.builder().filter(OAuth2ClientCredentials.builder()
        .tokenUri(this.mock.server().url("/oauth/token").toString()).clientId("service").clientSecret("secret")
        .build()));
    ScanPlanner alice = planner.as(CatalogCredentials.bearer("alice-token"));
    assertThat(alice.plan(TABLE).tasks()).hasSize(5);
    assertThat(this.catalog.tokenRequests.get()).isZero();

    assertThat(planner.plan(TABLE).tasks()).hasSize(5);
    assertThat(this.catalog.tokenRequests.get()).isOne();
    assertThat(this.catalog.violations).isEmpty();
  }

  @Test
  void aCallersTokenThatExpiresDuringAPlanIsReplacedByTheCallersNextOne() {
    ScanPlanner planner = servicePlanner();
    RenewedCredentials alice = new RenewedCredentials("alice-1", "alice-2");
    // the catalog expires alice-1 as soon as the plan is submitted: its polls and fetches get 419 until renewed
    this.catalog.expireAfterSubmit.put("alice-1", Boolean.TRUE);
    ScanPlan plan = planner.as(alice).plan(TABLE);

    assertThat(plan.tasks()).hasSize(5).allSatisfy(task -> assertThat(task.dataFile().filePath())
        .startsWith("s3://b/alice-"));
    assertThat(alice.refusals).containsExactly("Bearer alice-1");
    assertThat(this.catalog.violations).isEmpty();
  }

  @Test
  void aRefusedCallerIsTheCatalogsAnswerToTheCallerNotAnotherIdentitysRetry() {
    ScanPlanner planner = servicePlanner();
    assertThatThrownBy(() -> planner.as(CatalogCredentials.bearer("mallory-token")).plan(TABLE))
        .isInstanceOfSatisfying(CallerRefusedException.class, refused -> {
          assertThat(refused.statusCode()).isEqualTo(401);
          assertThat(refused.notAuthenticated()).isTrue();
        })
        .message().doesNotContain("mallory-token");
    // refused once: bearer credentials have no other value to retry with, and the service's header is not one
    assertThat(this.catalog.refused).containsExactly("Bearer mallory-token");

    // the planner's own refusal is the application's, not a caller's
    ScanPlanner unauthenticated = planner(this.mock.builder());
    assertThatThrownBy(() -> unauthenticated.plan(TABLE)).isInstanceOf(RestException.class)
        .isNotInstanceOf(CallerRefusedException.class);
  }

  @Test
  void aRefusedTokenExchangeDuringAFetchStaysATokenExchangeFailureNamingThePlanTask() {
    ScanPlanner planner = servicePlanner();
    AtomicInteger given = new AtomicInteger();
    CatalogCredentials exchanged = new CatalogCredentials() {

      @Override
      public String principal() {
        return "alice";
      }

      /** The discovery's, the submission's and the poll's, then refused: the fetches' exchange fails. */
      @Override
      public Mono<String> authorization() {
        return given.incrementAndGet() <= 3 ? Mono.just("Bearer alice-token")
            : Mono.error(new TokenExchangeException("refused: invalid_grant", "invalid_grant"));
      }
    };
    assertThatThrownBy(() -> planner.as(exchanged).plan(TABLE)).isInstanceOfSatisfying(TokenExchangeException.class,
        refused -> {
          assertThat(refused.callersTokenRefused()).isTrue();
          assertThat(refused.planTask()).isEqualTo("alice-1/a");
        });
  }

  @Test
  void aBearerTokenNeitherShowsInItsPrincipalKeyNorInItsDescription() {
    CatalogCredentials credentials = CatalogCredentials.bearer("secret-token-value");
    assertThat(credentials.principal()).doesNotContain("secret-token-value").startsWith("bearer:");
    assertThat(credentials).hasToString("CatalogCredentials.bearer[" + credentials.principal() + "]");
    assertThat(CatalogCredentials.bearer("other").principal()).isNotEqualTo(credentials.principal());
    assertThat(CatalogCredentials.bearer("secret-token-value").principal()).isEqualTo(credentials.principal());
    assertThatThrownBy(() -> CatalogCredentials.bearer(" ")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> CatalogCredentials.bearer("a\r\nX-Injected: 1"))
        .isInstanceOf(IllegalArgumentException.class).message().doesNotContain("Injected");
  }

  @Test
  void aPlannerThatPlansAsItsCallersFindsEachCallsCallerOnItsThreadOrInItsReactiveContext() throws Exception {
    ThreadLocal<CatalogCredentials> onThread = new ThreadLocal<>();
    Callers callers = new Callers() {

      @Override
      public CatalogCredentials current() {
        return onThread.get();
      }

      @Override
      public Mono<CatalogCredentials> current(ContextView context) {
        return Mono.justOrEmpty(context.getOrEmpty(CatalogCredentials.class));
      }
    };
    ScanPlanner planner = planner(this.mock.builder().header("Authorization", "Bearer service-token")
        .callers(callers));
    CatalogCredentials alice = CatalogCredentials.bearer("alice-token");
    CatalogCredentials bob = CatalogCredentials.bearer("bob-token");

    onThread.set(alice);
    try {
      assertThat(planner.caller()).isSameAs(alice);
      assertThat(planner.plan(TABLE).tasks()).allSatisfy(task -> assertThat(task.dataFile().filePath())
          .startsWith("s3://b/alice-"));
      planner.catalog().loadTable(TABLE, false);
    }
    finally {
      onThread.remove();
    }
    List<FileScanTask> bobs = planner.planTasks(TABLE, ScanRequest.all())
        .contextWrite(context -> context.put(CatalogCredentials.class, bob)).collectList()
        .block(Duration.ofSeconds(10));
    assertThat(bobs).hasSize(5).allSatisfy(task -> assertThat(task.dataFile().filePath()).startsWith("s3://b/bob-"));
    assertThat(this.catalog.violations).isEmpty();
    assertThat(this.catalog.configs).containsExactly("alice", "bob");
    int requests = this.catalog.seen.size();

    // no caller: refused before anything is sent, never planned as the service
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(MissingCallerException.class)
        .hasMessageContaining("plan() of db.t");
    assertThatThrownBy(() -> planner.catalog().loadTable(TABLE, false)).isInstanceOf(MissingCallerException.class);
    assertThatThrownBy(() -> planner.planTasks(TABLE, ScanRequest.all()).blockLast(Duration.ofSeconds(10)))
        .isInstanceOf(MissingCallerException.class);
    assertThatThrownBy(() -> planner.catalog().reportMetrics(TABLE, "{}").block(Duration.ofSeconds(10)))
        .isInstanceOf(MissingCallerException.class);
    assertThat(this.catalog.seen).hasSize(requests);
    assertThat(planner.caller()).isNull();
  }

  @Test
  void theCallersDiscoveriesAreKeptForTheLast1024PrincipalsUsed() throws Exception {
    ScanPlanner planner = servicePlanner();
    // user-0 first, alone, so that it is the least recently used; the others at once
    planner.as(CatalogCredentials.bearer("user-0")).catalog().supports(Endpoint.LOAD_TABLE);
    ExecutorService callers = Executors.newFixedThreadPool(16);
    try {
      List<CompletableFuture<Boolean>> discovered = new ArrayList<>();
      for (int i = 1; i <= 1024; i++) {
        ScanPlanner caller = planner.as(CatalogCredentials.bearer("user-" + i));
        discovered.add(CompletableFuture.supplyAsync(() -> caller.catalog().supports(Endpoint.LOAD_TABLE), callers));
      }
      for (CompletableFuture<Boolean> supports : discovered) {
        assertThat(supports.get(30, TimeUnit.SECONDS)).isTrue();
      }
    }
    finally {
      callers.shutdownNow();
    }
    assertThat(this.catalog.configs).hasSize(1025);
    // the least recently used went when the 1025th came: it discovers again, the latest does not
    planner.as(CatalogCredentials.bearer("user-0")).catalog().supports(Endpoint.LOAD_TABLE);
    planner.as(CatalogCredentials.bearer("user-1024")).catalog().supports(Endpoint.LOAD_TABLE);
    assertThat(this.catalog.configs).hasSize(1026).last().isEqualTo("user-0");
  }

  @Test
  void closingAViewLeavesThePlannerOpen() {
    ScanPlanner planner = servicePlanner();
    planner.as(CatalogCredentials.bearer("alice-token")).close();
    assertThat(planner.plan(TABLE).tasks()).hasSize(5);
  }

  /** A caller whose first token the catalog may refuse as expired, after which it has a second. */
  private static final class RenewedCredentials implements CatalogCredentials {

    private final AtomicReference<String> current;
    private final String next;
    final Queue<String> refusals = new ConcurrentLinkedQueue<>();

    RenewedCredentials(String first, String next) {
      this.current = new AtomicReference<>(first);
      this.next = next;
    }

    @Override
    public String principal() {
      return "alice";
    }

    @Override
    public Mono<String> authorization() {
      return Mono.fromSupplier(() -> "Bearer " + this.current.get());
    }

    /** Renewed once: the next token, unless that is the one refused. */
    @Override
    public synchronized boolean refused(String authorization) {
      this.refusals.add(authorization);
      String refused = authorization.substring("Bearer ".length());
      if (refused.equals(this.next)) {
        return false;
      }
      this.current.set(this.next);
      return true;
    }
  }

  /**
   * A catalog that authenticates bearer tokens as principals and owns every plan, and each of its plan tasks, by the
   * principal that submitted it: a request of another principal is a violation (answered 403). A plan answers
   * {@code submitted}, is completed by its poll with a root task and handles {@code a} and {@code b}, whose fetches
   * each bring a task and a child handle; the first fetch of each {@code a} answers 503 and is retried. Each task's
   * file names the principal it was made for.
   */
  private static final class PrincipalCatalog extends Dispatcher {

    private static final Map<String, String> PRINCIPALS = Map.of("Bearer alice-token", "alice", "Bearer bob-token",
        "bob", "Bearer service-token", "service", "Bearer alice-1", "alice", "Bearer alice-2", "alice");

    final Queue<String> violations = new ConcurrentLinkedQueue<>();
    final Queue<String> seen = new ConcurrentLinkedQueue<>();
    final Queue<String> configs = new ConcurrentLinkedQueue<>();
    final Queue<String> deletes = new ConcurrentLinkedQueue<>();
    final Queue<String> refused = new ConcurrentLinkedQueue<>();
    final Map<String, Boolean> expireAfterSubmit = new ConcurrentHashMap<>();
    final AtomicInteger retried = new AtomicInteger();
    final AtomicInteger polls = new AtomicInteger();
    final AtomicInteger tokenRequests = new AtomicInteger();
    private final Map<String, String> owners = new ConcurrentHashMap<>();
    private final Map<String, Boolean> expired = new ConcurrentHashMap<>();
    private final Map<String, Boolean> failedOnce = new ConcurrentHashMap<>();
    private final AtomicInteger plans = new AtomicInteger();

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getUrl().encodedPath();
      String method = request.getMethod();
      if (path.equals("/oauth/token")) {
        this.tokenRequests.incrementAndGet();
        return json(200, "{\"access_token\":\"service-token\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
      }
      String authorization = request.getHeaders().get("Authorization");
      String principal = authorization == null ? null : authorization.startsWith("Bearer user-")
          ? authorization.substring("Bearer ".length()) : PRINCIPALS.get(authorization);
      if (principal == null || authorization != null && this.expired.containsKey(authorization)) {
        if (principal == null) {
          this.refused.add(String.valueOf(authorization));
          return error(401, "NotAuthorizedException");
        }
        return error(419, "AuthenticationTimeoutException");
      }
      if (!path.equals(TABLE_PATH + "/tasks")) {
        this.seen.add(principal + " " + method + " " + path);
      }
      if (path.equals("/v1/config")) {
        this.configs.add(principal);
        return json(200, "{\"defaults\":{},\"overrides\":{},\"endpoints\":[\"GET /v1/{prefix}/namespaces/{namespace}"
            + "/tables/{table}\",\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials\","
            + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics\"," + ScriptedCatalog.ALL_ENDPOINTS
                .substring(ScriptedCatalog.ALL_ENDPOINTS.indexOf('[') + 1));
      }
      if (path.equals(TABLE_PATH + "/plan") && method.equals("POST")) {
        String planId = principal + "-" + this.plans.incrementAndGet();
        this.owners.put(planId, principal);
        if (this.expireAfterSubmit.remove(authorization.substring("Bearer ".length())) != null) {
          this.expired.put(authorization, Boolean.TRUE);
        }
        return json(200, "{\"status\":\"submitted\",\"plan-id\":\"" + planId + "\"}");
      }
      if (path.startsWith(TABLE_PATH + "/plan/")) {
        String planId = path.substring((TABLE_PATH + "/plan/").length());
        if (!owned(planId, principal, method + " " + path)) {
          return error(403, "ForbiddenException");
        }
        if (method.equals("DELETE")) {
          this.deletes.add(planId);
          return new MockResponse.Builder().code(204).build();
        }
        this.polls.incrementAndGet();
        return json(200, ScriptedCatalog.completed(planId, List.of(file(principal, planId)),
            List.of(planId + "/a", planId + "/b")));
      }
      if (path.equals(TABLE_PATH + "/tasks")) {
        String body = request.getBody().utf8();
        String handle = body.substring(body.indexOf(":\"") + 2, body.lastIndexOf('"'));
        String planId = handle.substring(0, handle.indexOf('/'));
        if (!owned(planId, principal, "fetch " + handle)) {
          return error(403, "ForbiddenException");
        }
        if (handle.endsWith("/a") && this.failedOnce.putIfAbsent(handle, Boolean.TRUE) == null) {
          this.retried.incrementAndGet();
          return error(503, "ServiceUnavailableException");
        }
        boolean child = handle.chars().filter(c -> c == '/').count() > 1;
        return json(200, ScriptedCatalog.scanTasksJson(List.of(file(principal, handle)),
            child ? List.of() : List.of(handle + "/c")));
      }
      if (path.equals(TABLE_PATH + "/credentials")) {
        String planId = request.getUrl().queryParameter("planId");
        if (planId != null && !owned(planId, principal, "credentials of " + planId)) {
          return error(403, "ForbiddenException");
        }
        return json(200, "{\"storage-credentials\":[]}");
      }
      if (path.equals(TABLE_PATH)) {
        return json(200, "{\"metadata-location\":\"s3://b/m.json\",\"metadata\":" + CatalogCallsTest.METADATA + "}");
      }
      if (path.equals(TABLE_PATH + "/metrics")) {
        return new MockResponse.Builder().code(204).build();
      }
      return error(404, "NoSuchTableException");
    }

    private boolean owned(String planId, String principal, String what) {
      String owner = this.owners.get(planId);
      if (principal.equals(owner)) {
        return true;
      }
      this.violations.add(principal + ": " + what + " of " + owner + "'s plan");
      return false;
    }

    private static String file(String principal, String name) {
      return "s3://b/" + principal + "-" + name.replace('/', '-') + ".parquet";
    }

    private static MockResponse json(int status, String body) {
      return new MockResponse.Builder().code(status).setHeader("Content-Type", "application/json").body(body)
          .build();
    }

    private static MockResponse error(int status, String type) {
      return json(status, "{\"error\":{\"message\":\"" + type + "\",\"type\":\"" + type + "\",\"code\":" + status
          + "}}");
    }

    @Override
    public String toString() {
      return "PrincipalCatalog";
    }
  }
}
