package io.icebergscan.planning.internal.planner;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;

import io.icebergscan.planning.CatalogCalls;
import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.PlanStatistics;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TaskBatch;
import io.icebergscan.planning.auth.CallerAuthentication;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.http.CatalogClient;
import io.icebergscan.planning.internal.http.DiscoveredCatalog;
import io.icebergscan.planning.internal.http.PlannerScopedFilters;
import io.icebergscan.planning.internal.http.ResponseTimeout;
import io.icebergscan.planning.internal.http.RetryPolicy;
import io.icebergscan.planning.internal.http.TablePaths;
import io.icebergscan.planning.internal.walk.ConcurrencyLimiter;
import io.icebergscan.planning.internal.wire.RequestBodies;
import io.icebergscan.planning.internal.wire.WireTypes.LoadTableResult;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import io.netty.channel.ChannelOption;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.http.client.HttpClient;
import reactor.netty.resources.ConnectionProvider;
import reactor.util.context.ContextView;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/** The {@link ScanPlanner} over the REST protocol: wires the client, the shared limiter and the runs. */
public final class RestScanPlanner implements ScanPlanner {

  /** Marks work running for a planner, so that a blocking call that would wait on itself is refused. */
  private static final ThreadLocal<Boolean> ON_PLANNER_THREAD = new ThreadLocal<>();

  private static final Duration CLOSE_GRACE = Duration.ofSeconds(2);
  /** How long past its plan timeout a blocking plan() waits for a plan that failed to end itself. */
  private static final Duration BACKSTOP = Duration.ofSeconds(5);

  private final PlannerSettings settings;
  private final Instrumentation instrumentation;
  /** The client this planner's calls go through: the planner's own, or a caller's view of it. */
  private final CatalogClient client;
  /** The planner's own client, which callers' views are made from. */
  private final CatalogClient root;
  /** The caller of a view ({@link #as}), whose close() leaves the planner open; {@code null} for the planner. */
  private final @Nullable CatalogCredentials view;
  /** Where the planner finds each call's caller, when it plans as its callers; {@code null} on a view. */
  private final @Nullable Callers callers;
  private final RequestBodies bodies;
  /** Checks that a metrics report is a JSON object before it is sent as it is. */
  private final ObjectReader reportReader;
  /** Bounds each blocking call outside plans: discovery, retries and all. */
  private final Duration requestTimeout;
  private final ConcurrencyLimiter limiter;
  private final CatalogCalls catalog;
  private final Set<PlanRun> running;
  private final Scheduler scheduler;
  private final @Nullable ExecutorService ownedExecutor;
  private final @Nullable ConnectionProvider ownedConnections;

  /** How to reach the catalog, as the builder collected it. */
  public record Connection(String uri, @Nullable String warehouse, @Nullable String prefix, Map<String, String> headers,
      List<ExchangeFilterFunction> filters, @Nullable WebClient webClient, WebClient.@Nullable Builder webClientBuilder,
      @Nullable SslContext sslContext, UnaryOperator<HttpClient> httpClient, @Nullable Executor executor,
      Duration connectTimeout, Duration responseTimeout,
      Duration requestTimeout, int maxResponseBytes, RetryPolicy retryPolicy, @Nullable Callers callers) {
  }

  public RestScanPlanner(Connection connection, PlannerSettings settings, Instrumentation instrumentation) {
    this.settings = settings;
    this.instrumentation = instrumentation;
    this.limiter = new ConcurrencyLimiter(settings.maxConcurrency());
    this.running = ConcurrentHashMap.newKeySet();
    Executor given = connection.executor();
    this.ownedExecutor = given == null ? defaultExecutor(settings.maxConcurrency()) : null;
    Executor delegate = given != null ? given : Objects.requireNonNull(this.ownedExecutor);
    this.scheduler = Schedulers.fromExecutor(task -> delegate.execute(() -> {
      ON_PLANNER_THREAD.set(Boolean.TRUE);
      // Reactor does not signal JVM-fatal errors (OutOfMemoryError...) downstream: it rethrows them and
      // reports them to the thread's handler. Such a signal is lost to its plan, which would wait for its
      // timeout; the handler ends every running plan instead, then passes the error on.
      Thread thread = Thread.currentThread();
      Thread.UncaughtExceptionHandler previous = thread.getUncaughtExceptionHandler();
      thread.setUncaughtExceptionHandler((failed, error) -> {
        // the plans running now: breaking one off can let its caller start the next one before this ends
        List.copyOf(this.running).forEach(run -> run.breakOff(error));
        if (previous != null) {
          previous.uncaughtException(failed, error);
        }
      });
      try {
        task.run();
      }
      finally {
        thread.setUncaughtExceptionHandler(previous);
        ON_PLANNER_THREAD.remove();
      }
    }));
    WebClient.Builder builder;
    if (connection.webClient() != null) {
      builder = connection.webClient().mutate();
      this.ownedConnections = null;
    }
    else {
      // Reactor Netty's default pool is sized from the cores; the walk needs maxConcurrency connections
      // at once, and submissions and polls of other plans need some more.
      this.ownedConnections = ConnectionProvider.builder("iceberg-scan-planning")
          .maxConnections(Math.max(16, settings.maxConcurrency() * 2))
          .pendingAcquireMaxCount(-1)
          .build();
      HttpClient httpClient = HttpClient.create(this.ownedConnections)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS,
              (int) Math.min(Integer.MAX_VALUE, connection.connectTimeout().toMillis()));
      if (connection.sslContext() != null) {
        SslContext sslContext = connection.sslContext();
        httpClient = httpClient.secure(tls -> tls.sslContext(sslContext));
      }
      // after the customizer: a response timeout it sets is kept, and one per connection needs HTTP/1.1
      httpClient = ResponseTimeout.on(connection.httpClient().apply(httpClient), connection.responseTimeout());
      builder = (connection.webClientBuilder() != null ? connection.webClientBuilder().clone()
          // a builder of its own reports its requests where the plans report theirs (a given one keeps its setup)
          : WebClient.builder().observationRegistry(instrumentation.registry()))
          .clientConnector(new ReactorClientHttpConnector(httpClient));
    }
    // before the catalog's headers and filters, which are not for the token endpoint
    WebClient plannersClient = builder.clone().build();
    List<ExchangeFilterFunction> filters = connection.filters().stream()
        .map(filter -> PlannerScopedFilters.forPlanner(filter, plannersClient))
        .toList();
    WebClient planningClient = builder
        // names in lower case, as CatalogClient writes its own: Spring's headers lower-case mixed-case names on every
        // look-up, and WebClient copies these into every request
        .defaultHeaders(httpHeaders -> connection.headers()
            .forEach((name, value) -> httpHeaders.set(name.toLowerCase(Locale.ROOT), value)))
        .filters(all -> {
          all.addAll(filters);
          // innermost: a caller's request carries the caller's credentials, whatever the filters before set
          all.add(new CallerAuthentication());
        })
        .build();
    JsonMapper mapper = JsonMapper.builder().build();
    this.bodies = new RequestBodies(mapper);
    this.reportReader = mapper.reader().with(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    this.requestTimeout = connection.requestTimeout();
    this.client = new CatalogClient(planningClient, connection.uri(), connection.warehouse(), connection.prefix(),
        mapper, this.scheduler, connection.maxResponseBytes(), connection.requestTimeout(),
        connection.retryPolicy());
    this.root = this.client;
    this.view = null;
    this.callers = connection.callers();
    this.catalog = this.callers == null ? new RestCatalogCalls() : new CallersCatalogCalls();
  }

  /** A view of {@code of} that sends {@code client}'s requests: shares everything else, and closes nothing. */
  private RestScanPlanner(RestScanPlanner of, CatalogCredentials caller) {
    this.settings = of.settings;
    this.instrumentation = of.instrumentation;
    this.client = of.root.as(caller.principal(), caller);
    this.root = of.root;
    this.bodies = of.bodies;
    this.reportReader = of.reportReader;
    this.requestTimeout = of.requestTimeout;
    this.limiter = of.limiter;
    this.running = of.running;
    this.scheduler = of.scheduler;
    this.ownedExecutor = null;
    this.ownedConnections = null;
    this.view = caller;
    this.callers = null;
    this.catalog = new RestCatalogCalls();
  }

  @Override
  public ScanPlanner as(CatalogCredentials caller) {
    // from the planner's own client: a view of a view is the new caller's alone
    return new RestScanPlanner(this, Objects.requireNonNull(caller, "caller"));
  }

  @Override
  public @Nullable CatalogCredentials caller() {
    return this.callers != null ? this.callers.current() : this.view;
  }

  @Override
  public Mono<CatalogCredentials> caller(ContextView context) {
    return this.callers != null ? this.callers.current(context) : Mono.justOrEmpty(this.view);
  }

  /** This planner as the caller of a call made now on this thread, when it plans as its callers. */
  private ScanPlanner asCaller(String call, Callers callers) {
    CatalogCredentials caller = callers.current();
    if (caller == null) {
      throw new MissingCallerException(call);
    }
    return as(caller);
  }

  /** The same for a reactive call: found on this thread when it is made, else in its subscriber's context. */
  private <T> Flux<T> asCaller(String call, Callers callers, Function<ScanPlanner, Flux<T>> calling) {
    CatalogCredentials caller = callers.current();
    if (caller != null) {
      return calling.apply(as(caller));
    }
    return Flux.deferContextual(context -> callers.current(context)
        .switchIfEmpty(Mono.error(() -> new MissingCallerException(call)))
        .flatMapMany(found -> calling.apply(as(found))));
  }

  /** Daemon threads {@code iceberg-scan-planning-N}, as many as the limit, ended when idle for a minute. */
  private static ExecutorService defaultExecutor(int maxConcurrency) {
    AtomicInteger threads = new AtomicInteger();
    ThreadPoolExecutor executor = new ThreadPoolExecutor(maxConcurrency, maxConcurrency, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), task -> {
          Thread thread = new Thread(task, "iceberg-scan-planning-" + threads.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    executor.allowCoreThreadTimeOut(true);
    return executor;
  }

  @Override
  public ScanPlan plan(TableIdentifier table, ScanRequest request) {
    if (this.callers != null) {
      return asCaller("plan() of " + table, this.callers).plan(table, request);
    }
    if (onPlannerThread()) {
      // The answers this call would wait for are parsed by the planner's executor: blocking one of its
      // threads on them can deadlock (certainly so with one thread).
      throw new IllegalStateException("plan() was called on a planner thread (for example from a planTasks() "
          + "subscriber), where blocking can deadlock the planner; use planTasks() and compose instead");
    }
    refuseToBlockOnANonBlockingThread("plan()", "use planTasks() there");
    long started = System.nanoTime();
    // The whole plan is kept anyway, so fetches may run as far ahead of the cursor as the graph allows.
    PlanRun run = newRun(table, request, Integer.MAX_VALUE, true);
    CompletableFuture<List<List<FileScanTask>>> responses = run.responses().collectList().toFuture();
    List<List<FileScanTask>> lists;
    try {
      // The plan ends itself at its timeout; this bound holds even if a fatal error kept that from reaching here.
      lists = responses.get(backstopMillis(this.settings.planTimeout()), TimeUnit.MILLISECONDS);
    }
    catch (TimeoutException stuck) {
      responses.cancel(true);
      throw new PlanTimeoutException("planning " + table + " did not end within its plan timeout of "
          + this.settings.planTimeout());
    }
    catch (InterruptedException interrupted) {
      responses.cancel(true);
      Thread.currentThread().interrupt();
      throw new PlanCancelledException("planning " + table + " was interrupted");
    }
    catch (ExecutionException failed) {
      throw rethrown(failed);
    }
    List<FileScanTask> tasks = new ArrayList<>();
    lists.forEach(tasks::addAll);
    return new ScanPlan(run.planId(), tasks, run.storageCredentials(), new PlanStatistics(run.planTasksFetched(),
        run.walkDepth(), run.requestsMade(), run.replans(), Duration.ofNanos(System.nanoTime() - started)));
  }

  /** Whether the calling thread runs a planner's work, where its uncaught-exception handler ends the running plans. */
  static boolean onPlannerThread() {
    return ON_PLANNER_THREAD.get() != null;
  }

  /** E.g. a WebFlux handler on a Reactor Netty event loop: the requests the call waits for may need that loop. */
  private static void refuseToBlockOnANonBlockingThread(String call, String instead) {
    if (Schedulers.isInNonBlockingThread()) {
      throw new IllegalStateException(call + " was called on the non-blocking thread "
          + Thread.currentThread().getName() + " (a Reactor Netty event loop serving a WebFlux request, say), where "
          + "blocking can stall the requests it waits for; " + instead);
    }
  }

  private static long backstopMillis(Duration planTimeout) {
    try {
      return Math.addExact(planTimeout.toMillis(), BACKSTOP.toMillis());
    }
    catch (ArithmeticException huge) {
      return Long.MAX_VALUE;
    }
  }

  private static RuntimeException rethrown(ExecutionException failed) {
    Throwable failure = failed.getCause() != null ? failed.getCause() : failed;
    if (failure instanceof RuntimeException unchecked) {
      return unchecked;
    }
    return new ScanPlanningException("planning failed: " + failure, null, failure);
  }

  @Override
  public Flux<TaskBatch> planBatches(TableIdentifier table, ScanRequest request) {
    if (this.callers != null) {
      return asCaller("planBatches() of " + table, this.callers, caller -> caller.planBatches(table, request));
    }
    // Checked at call time, so a bad request fails before anything is subscribed or sent.
    PlanRun first = newRun(table, request, this.settings.streamBufferSize(), false);
    AtomicBoolean firstTaken = new AtomicBoolean();
    // a run holds one plan's state: the first subscription takes the checked one, any later one a new run
    return Flux.defer(() -> {
      PlanRun run = firstTaken.compareAndSet(false, true) ? first
          : newRun(table, request, this.settings.streamBufferSize(), false);
      // a stream starts over only while it has emitted nothing: every batch is of the attempt that completed
      return run.responses().map(tasks -> new TaskBatch(run.planId(), run.storageCredentials(), tasks));
    });
  }

  private PlanRun newRun(TableIdentifier table, ScanRequest request, int window, boolean wholePlan) {
    return new PlanRun(this.client, this.bodies, this.limiter, this.scheduler, this.settings, this.instrumentation,
        this.running, table, request, window, wholePlan);
  }

  @Override
  public CatalogCalls catalog() {
    return this.catalog;
  }

  /** The catalog's other calls, through this planner's client and discovery. */
  private final class RestCatalogCalls implements CatalogCalls {

    @Override
    public LoadedTable loadTable(TableIdentifier table, boolean vendedCredentials) {
      Objects.requireNonNull(table, "table");
      LoadTableResult loaded = await("loadTable()", table, client.catalog().flatMap(catalog -> {
        catalog.require(Endpoint.LOAD_TABLE);
        return client.loadTable(paths(catalog, table), vendedCredentials);
      }));
      return new LoadedTable(loaded.metadataLocation(), loaded.metadataJson(), loaded.config(),
          loaded.storageCredentials(), loaded.readRestrictions());
    }

    @Override
    public boolean tableExists(TableIdentifier table) {
      Objects.requireNonNull(table, "table");
      return await("tableExists()", table,
          client.catalog().flatMap(catalog -> client.tableExists(catalog, paths(catalog, table))));
    }

    @Override
    public List<StorageCredential> loadCredentials(TableIdentifier table, @Nullable String planId) {
      Objects.requireNonNull(table, "table");
      return await("loadCredentials()", table, client.catalog().flatMap(catalog -> {
        catalog.require(Endpoint.LOAD_CREDENTIALS);
        return client.loadCredentials(paths(catalog, table), planId);
      }));
    }

    @Override
    public Mono<Void> reportMetrics(TableIdentifier table, String reportJson) {
      Objects.requireNonNull(table, "table");
      byte[] report = reportBody(reportJson);
      return bounded("reportMetrics()", table, Mono.defer(() -> client.catalog().flatMap(catalog -> {
        catalog.require(Endpoint.REPORT_METRICS);
        return client.reportMetrics(paths(catalog, table), report);
      })));
    }

    @Override
    public boolean supports(Endpoint endpoint) {
      Objects.requireNonNull(endpoint, "endpoint");
      return await("supports()", null, client.catalog().map(catalog -> catalog.supports(endpoint)));
    }

    @Override
    public Map<String, String> properties() {
      return await("properties()", null, client.catalog().map(DiscoveredCatalog::properties));
    }
  }

  /** The catalog's other calls of a planner that plans as its callers: each as the caller of the call. */
  private final class CallersCatalogCalls implements CatalogCalls {

    private CatalogCalls of(String call) {
      return asCaller(call, Objects.requireNonNull(callers)).catalog();
    }

    @Override
    public LoadedTable loadTable(TableIdentifier table, boolean vendedCredentials) {
      return of("loadTable() of " + table).loadTable(table, vendedCredentials);
    }

    @Override
    public boolean tableExists(TableIdentifier table) {
      return of("tableExists() of " + table).tableExists(table);
    }

    @Override
    public List<StorageCredential> loadCredentials(TableIdentifier table, @Nullable String planId) {
      return of("loadCredentials() of " + table).loadCredentials(table, planId);
    }

    @Override
    public Mono<Void> reportMetrics(TableIdentifier table, String reportJson) {
      return asCaller("reportMetrics() of " + table, Objects.requireNonNull(callers),
          caller -> caller.catalog().reportMetrics(table, reportJson).flux()).then();
    }

    @Override
    public boolean supports(Endpoint endpoint) {
      return of("supports()").supports(endpoint);
    }

    @Override
    public Map<String, String> properties() {
      return of("properties()").properties();
    }
  }

  private TablePaths paths(DiscoveredCatalog catalog, TableIdentifier table) {
    return this.client.paths(catalog, table.namespace(), table.name());
  }

  /** The report as it is sent, once it is known to be a JSON object: a filter is checked the same way. */
  private byte[] reportBody(String reportJson) {
    Objects.requireNonNull(reportJson, "reportJson");
    JsonNode report;
    try {
      report = this.reportReader.readTree(reportJson);
    }
    catch (JacksonException notJson) {
      throw new IllegalArgumentException("reportJson is not valid JSON: " + notJson.getOriginalMessage(), notJson);
    }
    if (report == null || !report.isObject()) {
      throw new IllegalArgumentException("reportJson must be a JSON object (a ReportMetricsRequest)");
    }
    return reportJson.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Waits for one call outside a plan ({@link #bounded}), refused where {@code plan()} is and for the same reasons.
   *
   * @param table the table named in failures, or {@code null}
   */
  private <T> T await(String call, @Nullable TableIdentifier table, Mono<T> answer) {
    if (onPlannerThread()) {
      // as for plan(): the answer would be parsed by the executor whose thread waits for it
      throw new IllegalStateException(call + " was called on a planner thread (for example from a planTasks() "
          + "subscriber), where blocking can deadlock the planner; call it from a thread of your own");
    }
    refuseToBlockOnANonBlockingThread(call, "call it from a blocking thread");
    String what = call + (table != null ? " of " + table : "");
    if (this.client.isClosed()) {
      throw new ScanPlanningException(what + " failed: the planner is closed");
    }
    CompletableFuture<T> result = bounded(call, table, answer).toFuture();
    try {
      // the timeout of bounded() ends the call; this bound holds even if a fatal error kept that from reaching here
      return result.get(backstopMillis(this.requestTimeout), TimeUnit.MILLISECONDS);
    }
    catch (TimeoutException stuck) {
      result.cancel(true);
      throw new TransportException(what + " got no complete answer within the request timeout of "
          + this.requestTimeout, null, stuck);
    }
    catch (InterruptedException interrupted) {
      result.cancel(true);
      Thread.currentThread().interrupt();
      throw new ScanPlanningException(what + " was interrupted", null, interrupted);
    }
    catch (ExecutionException failed) {
      throw rethrown(failed);
    }
  }

  /**
   * One call outside a plan, as a Mono: refused once subscribed if the planner is closed, and bounded by the request
   * timeout as a whole (the discovery it may need and its retries included): each of its requests is bounded so
   * already, but a caller waits for them all.
   *
   * <p>The observation current when the call is made goes into the Reactor context, so WebClient's
   * {@code http.client.requests} observations of the call are its children, as a plan's are the plan's.
   *
   * @param table the table named in failures, or {@code null}
   */
  private <T> Mono<T> bounded(String call, @Nullable TableIdentifier table, Mono<T> answer) {
    String what = call + (table != null ? " of " + table : "");
    Observation parent = this.instrumentation.registry().getCurrentObservation();
    Duration timeout = this.requestTimeout;
    return Mono.defer(() -> this.client.isClosed()
            ? Mono.<T>error(new ScanPlanningException(what + " failed: the planner is closed"))
            : answer)
        .timeout(timeout, Mono.error(() -> new TransportException(what + " got no complete answer within the "
            + "request timeout of " + timeout, null, new TimeoutException("request timeout"))))
        .onErrorMap(RejectedExecutionException.class, refused -> new ScanPlanningException(what + " was refused by "
            + "the planner's executor", null, refused))
        .contextWrite(context -> parent == null ? context : Instrumentation.within(context, parent));
  }

  @Override
  public int maxConcurrency() {
    return this.settings.maxConcurrency();
  }

  @Override
  public int requestsInFlight() {
    return this.limiter.inUse();
  }

  @Override
  public CatalogCheck checkCatalog(Duration timeout) {
    refuseToBlockOnANonBlockingThread("checkCatalog()", "call it from a blocking thread");
    long started = System.nanoTime();
    // the timeout is the check's own signal: block() alone cannot tell it from a block() refused for its thread
    DiscoveredCatalog catalog = this.root.discoverNow()
        .timeout(timeout, Mono.error(() -> new TransportException("GET /v1/config got no answer within " + timeout,
            null, new TimeoutException(timeout.toString()))))
        .block();
    Objects.requireNonNull(catalog, "discovery completed without a catalog");
    Duration responseTime = Duration.ofNanos(System.nanoTime() - started);
    Map<Endpoint, Boolean> endpoints = new LinkedHashMap<>();
    for (Endpoint endpoint : List.of(Endpoint.SUBMIT_PLAN, Endpoint.FETCH_PLAN, Endpoint.CANCEL_PLAN,
        Endpoint.FETCH_PLAN_TASKS)) {
      endpoints.put(endpoint, catalog.supports(endpoint));
    }
    return new CatalogCheck(this.client.displayUri(), catalog.prefix(), endpoints, responseTime);
  }

  /** Closes the planner; a caller's view leaves it open for the others. */
  @Override
  public void close() {
    if (this.view != null) {
      return;
    }
    // Abandoned plans' DELETEs get a moment to go out, before the connections and threads they use go.
    Duration grace = CLOSE_GRACE.compareTo(this.settings.cancelTimeout()) < 0 ? CLOSE_GRACE
        : this.settings.cancelTimeout();
    try {
      this.client.close(grace);
      if (this.ownedConnections != null) {
        // the pool's own time to close its connections, not the DELETEs' grace
        this.ownedConnections.disposeLater().block(CLOSE_GRACE);
      }
    }
    catch (RuntimeException slowPool) {
      // best effort: the pool goes on closing in the background; the threads must stop regardless
    }
    finally {
      this.scheduler.dispose();
      if (this.ownedExecutor != null) {
        this.ownedExecutor.shutdownNow();
      }
    }
  }

  @Override
  public String toString() {
    return "RestScanPlanner[uri=" + this.client.displayUri() + ", maxConcurrency=" + this.settings.maxConcurrency()
        + (this.view != null ? ", as a caller" : this.callers != null ? ", as its callers" : "") + "]";
  }
}
