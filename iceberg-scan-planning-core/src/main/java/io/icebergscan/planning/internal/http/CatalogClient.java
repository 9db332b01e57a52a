package io.icebergscan.planning.internal.http;

import java.net.URI;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.internal.http.CatalogRequest.Resend;
import io.icebergscan.planning.internal.wire.ConfigParser;
import io.icebergscan.planning.internal.wire.ErrorBodyParser;
import io.icebergscan.planning.internal.wire.LoadTableParser;
import io.icebergscan.planning.internal.wire.PlanResultParser;
import io.icebergscan.planning.internal.wire.ScanTasksParser;
import io.icebergscan.planning.internal.wire.WireTypes.LoadTableResult;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.MediaType;
import org.springframework.web.reactive.function.BodyExtractors;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

/**
 * The catalog's HTTP surface used by the planner: discovery, submit, poll, cancel and fetch for plans, and loading a
 * table, its credentials and reporting its metrics for the callers that read the planned files. Each call is a
 * {@link CatalogRequest} handed to the one {@link #exchange}; what a config means is {@link CatalogDiscovery}'s, paths
 * are {@link TablePaths}', failures {@link CatalogErrors}' and resending {@link RetryPolicy}'s.
 *
 * <p>Bodies are read as bytes on the network thread. A whole plan's small answers are parsed there, the rest on the
 * planner's executor ({@link Handoff}), so that an event loop never parses for long nor runs what may block;
 * nothing here blocks an event loop. Every failure leaves here typed: HTTP errors through
 * {@link CatalogErrors}, payloads through the message parsers of {@code internal.wire}, failures of the connection
 * (refused, reset, timed out) as a {@link TransportException}, an oversized answer as malformed, and anything else
 * as a plain {@link ScanPlanningException}, which is never retried.
 */
public final class CatalogClient {

  /** The header of {@code loadTable} asking for credentials to read the table's files with. */
  private static final String ACCESS_DELEGATION = "X-Iceberg-Access-Delegation";
  /**
   * The request attribute WebClient sets for {@code uri(String template, Object...)} and hands to its
   * observation as the URI template: the {@code uri} tag of {@code http.client.requests}. Requests here
   * are sent to URIs encoded by hand, so the template is set explicitly: without it the tag is
   * {@code none}, and a raw URI would carry table names and plan ids.
   */
  public static final String URI_TEMPLATE_ATTRIBUTE = WebClient.class.getName() + ".uriTemplate";
  private static final byte[] NO_BODY = new byte[0];
  /** The request attribute holding a caller's credentials; absent on the planner's own requests. */
  public static final String CALLER_ATTRIBUTE = CatalogClient.class.getName() + ".caller";
  /** How many callers' discoveries are kept: the least recently used one beyond is discovered again when needed. */
  static final int CALLERS_DISCOVERIES = 1024;
  /*
   * The request's header names in lower case, as HTTP/2 writes them (names are case-insensitive): Spring's
   * HttpHeaders lower-cases a name on every look-up, and WebClient copies each request's headers entry by entry,
   * which made a new String for every mixed-case name, every request: a fifth of what a fetch allocated.
   */
  private static final String ACCEPT = "accept";
  private static final String CONTENT_TYPE = "content-type";
  private static final String IDEMPOTENCY_KEY = "idempotency-key";
  private static final String JSON = MediaType.APPLICATION_JSON_VALUE;
  /**
   * With {@link Handoff#LARGE_ANSWERS}, answers up to this size are parsed on the Netty event loop that read them,
   * and what they start (the walk's next fetches) starts from there; larger ones are handed to the planner's
   * executor, so that a large answer does not hold up the other connections of its event loop. Why this size:
   * docs/benchmarks.md, "Where an answer is parsed".
   */
  public static final int PARSE_WHERE_READ_BYTES = 8 * 1024;

  /** Where an answer is parsed, and so on which thread what follows it runs. */
  public enum Handoff {
    /** Every answer on the planner's executor: for whatever may block after it, such as a stream's subscriber. */
    ALWAYS,
    /**
     * Answers up to {@link #PARSE_WHERE_READ_BYTES} on the Netty event loop that read them, larger ones on the
     * planner's executor: for a whole plan, whose walk goes on from there without blocking.
     */
    LARGE_ANSWERS
  }

  /** A successful answer and the delay the catalog asked for, if any. */
  public record Answer<T>(T value, @Nullable Duration retryAfter) {
  }

  private record Raw(int status, HttpHeaders headers, byte[] body) {
  }

  private final WebClient webClient;
  private final String baseUri;
  /** The base URI without user info or query: for health details, logs and the URI templates of metrics. */
  private final String displayUri;
  private final @Nullable String warehouse;
  private final @Nullable String prefix;
  private final ConfigParser configs;
  private final PlanResultParser plans;
  private final ScanTasksParser tasks;
  private final LoadTableParser tables;
  private final ErrorBodyParser errors;
  private final Scheduler parseScheduler;
  private final int maxResponseBytes;
  private final Duration requestTimeout;
  private final RetryPolicy retryPolicy;
  /** What every view of this client shares: open or closed, the requests sent in the background. */
  private final Lifecycle lifecycle;
  /** The credentials of the caller whose requests this view sends, {@code null} for the planner's own. */
  private final @Nullable Object caller;
  /** The catalog as this view's principal discovered it. */
  private final Mono<DiscoveredCatalog> discovery;
  /** The discoveries of callers, by principal: what a catalog answers one principal is never served to another. */
  private final Map<String, Mono<DiscoveredCatalog>> callersDiscoveries;

  /** Whether the client is closed, and the requests nobody waits for, which close() gives a grace period. */
  private static final class Lifecycle {

    final Set<CompletableFuture<Void>> background = ConcurrentHashMap.newKeySet();
    volatile boolean closed;
  }

  public CatalogClient(WebClient webClient, String baseUri, @Nullable String warehouse, @Nullable String prefix,
      JsonMapper mapper, Scheduler parseScheduler, int maxResponseBytes, Duration requestTimeout,
      RetryPolicy retryPolicy) {
    this.webClient = webClient;
    this.retryPolicy = retryPolicy;
    this.baseUri = baseUri.endsWith("/") ? baseUri.substring(0, baseUri.length() - 1) : baseUri;
    URI parsed = URI.create(this.baseUri);
    this.displayUri = parsed.getScheme() + "://" + parsed.getHost()
        + (parsed.getPort() >= 0 ? ":" + parsed.getPort() : "") + (parsed.getRawPath() != null ? parsed.getRawPath() : "");
    this.warehouse = warehouse;
    this.prefix = prefix;
    this.configs = new ConfigParser(mapper);
    this.plans = new PlanResultParser(mapper);
    this.tasks = new ScanTasksParser(mapper);
    this.tables = new LoadTableParser(mapper);
    this.errors = new ErrorBodyParser(mapper);
    this.parseScheduler = parseScheduler;
    this.maxResponseBytes = maxResponseBytes;
    this.requestTimeout = requestTimeout;
    // the Idempotency-Key generator is seeded here, on the thread building the planner, not on an event loop
    UuidV7.seed();
    this.lifecycle = new Lifecycle();
    this.caller = null;
    this.discovery = discovery();
    this.callersDiscoveries = Collections.synchronizedMap(new LinkedHashMap<>(16, 0.75f, true) {

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Mono<DiscoveredCatalog>> eldest) {
        return size() > CALLERS_DISCOVERIES;
      }
    });
  }

  /** A view of {@code of} whose requests are the caller's. */
  private CatalogClient(CatalogClient of, String principal, Object caller) {
    this.webClient = of.webClient;
    this.baseUri = of.baseUri;
    this.displayUri = of.displayUri;
    this.warehouse = of.warehouse;
    this.prefix = of.prefix;
    this.configs = of.configs;
    this.plans = of.plans;
    this.tasks = of.tasks;
    this.tables = of.tables;
    this.errors = of.errors;
    this.parseScheduler = of.parseScheduler;
    this.maxResponseBytes = of.maxResponseBytes;
    this.requestTimeout = of.requestTimeout;
    this.retryPolicy = of.retryPolicy;
    this.lifecycle = of.lifecycle;
    this.caller = caller;
    this.callersDiscoveries = of.callersDiscoveries;
    this.discovery = this.callersDiscoveries.computeIfAbsent(principal, key -> discovery());
  }

  /** Discovered once per principal; a failed discovery is not remembered, so the next plan tries again. */
  private Mono<DiscoveredCatalog> discovery() {
    return Mono.defer(() -> discover(Resend.AFTER_TRANSIENT_FAILURES))
        .cache(catalog -> Duration.ofMillis(Long.MAX_VALUE), failure -> Duration.ZERO, () -> Duration.ZERO);
  }

  /**
   * This client as a caller: every request it sends has the {@link #CALLER_ATTRIBUTE}, whose filter
   * ({@code auth.CallerAuthentication}) authenticates it with the caller's credentials instead of the planner's, and
   * the catalog's configuration is the one discovered for the caller's principal. Shares the connections, the
   * executor and the closing of this client.
   *
   * @param principal the key of the caller's principal ({@code CatalogCredentials#principal()})
   * @param credentials the caller's {@code CatalogCredentials}, the attribute's value
   */
  public CatalogClient as(String principal, Object credentials) {
    return new CatalogClient(this, Objects.requireNonNull(principal, "principal"),
        Objects.requireNonNull(credentials, "credentials"));
  }

  /** Whether this view sends a caller's requests rather than the planner's own. */
  public boolean forCaller() {
    return this.caller != null;
  }

  public Mono<DiscoveredCatalog> catalog() {
    return this.discovery;
  }

  /**
   * A fresh discovery, bypassing the cache and without retries: for health checks, which report what the
   * catalog answers now rather than wait out its Retry-After, and which are repeated anyway.
   */
  public Mono<DiscoveredCatalog> discoverNow() {
    return discover(Resend.NEVER);
  }

  /** The base URI without user info or query: safe to show in health details and logs. */
  public String displayUri() {
    return this.displayUri;
  }

  private Mono<DiscoveredCatalog> discover(Resend resend) {
    String uri = this.baseUri + Endpoint.CONFIG.path()
        + (this.warehouse != null ? "?warehouse=" + TablePaths.encode(this.warehouse) : "");
    return exchange(CatalogRequest.to(Endpoint.CONFIG, uri, this.displayUri + Endpoint.CONFIG.path()).resend(resend),
        raw -> CatalogDiscovery.read(this.configs.parse(raw.body), this.prefix));
  }

  /** @param namespace the table's namespace levels, outermost first */
  public TablePaths paths(DiscoveredCatalog catalog, List<String> namespace, String table) {
    return TablePaths.of(this.baseUri, this.displayUri, catalog, namespace, table);
  }

  /**
   * A submission creates a plan, so it is sent again after a failure that may have reached the catalog only
   * if the catalog honours {@code Idempotency-Key}s ({@link DiscoveredCatalog#idempotencyKeys()}); otherwise only
   * after answers that say it was not processed (429, 503) or a connection that was never made.
   */
  public Mono<Answer<PlanningResult>> submit(DiscoveredCatalog catalog, TablePaths paths, byte[] request,
      Handoff handoff) {
    return exchange(to(Endpoint.SUBMIT_PLAN, paths.plan(), paths).body(request, true)
            .resend(catalog.idempotencyKeys() ? Resend.AFTER_TRANSIENT_FAILURES : Resend.IF_NOT_PROCESSED),
        handoff, raw -> new Answer<>(this.plans.parse(raw.body, true), RetryPolicy.retryAfter(raw.headers)));
  }

  public Mono<Answer<PlanningResult>> poll(TablePaths paths, String planId, Handoff handoff) {
    return exchange(to(Endpoint.FETCH_PLAN, paths.plan(planId), paths), handoff,
        raw -> new Answer<>(this.plans.parse(raw.body, false), RetryPolicy.retryAfter(raw.headers)));
  }

  /**
   * Sends the DELETE of an abandoned plan without anyone waiting for it, bounded by {@code timeout};
   * {@link #close} gives such requests a grace period instead of cutting them off or leaking them.
   */
  public void cancelInBackground(TablePaths paths, String planId, Duration timeout) {
    if (this.lifecycle.closed) {
      return;
    }
    CompletableFuture<Void> done = cancel(paths, planId).timeout(timeout).onErrorResume(ignored -> Mono.empty())
        .toFuture();
    this.lifecycle.background.add(done);
    done.whenComplete((ignored, failure) -> this.lifecycle.background.remove(done));
    if (this.lifecycle.closed) {
      // close() may have taken its snapshot of the background requests before this one was added
      done.cancel(true);
    }
  }

  /** Whether {@link #close} was called: every request is refused from then on. */
  public boolean isClosed() {
    return this.lifecycle.closed;
  }

  /** Refuses new requests, lets background ones finish within {@code grace}, then cancels the rest. */
  public void close(Duration grace) {
    this.lifecycle.closed = true;
    CompletableFuture<?>[] pending = this.lifecycle.background.toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(pending).get(grace.toMillis(), TimeUnit.MILLISECONDS);
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
    catch (ExecutionException | TimeoutException notAllDone) {
      // best effort: what is left is cancelled below
    }
    this.lifecycle.background.forEach(request -> request.cancel(true));
  }

  public Mono<Void> cancel(TablePaths paths, String planId) {
    return exchange(to(Endpoint.CANCEL_PLAN, paths.plan(planId), paths), raw -> Boolean.TRUE).then();
  }

  /** @param quoting whether a rejection of the answer may quote it: not for a plan of a restricted read */
  public Mono<ScanTasks> fetchTasks(TablePaths paths, String planTask, byte[] request, Handoff handoff,
      boolean quoting) {
    // a fetch only reads: sending it again is safe whatever the catalog says about keys
    return exchange(to(Endpoint.FETCH_PLAN_TASKS, paths.tasks(), paths).body(request, true).planTask(planTask),
        handoff, raw -> this.tasks.parse(raw.body, planTask, quoting));
  }

  /**
   * {@code GET …/tables/{table}}: the table's metadata, config and credentials. A read, so sent again after any
   * transient failure.
   *
   * @param vendedCredentials whether to ask for credentials ({@code X-Iceberg-Access-Delegation: vended-credentials})
   */
  public Mono<LoadTableResult> loadTable(TablePaths paths, boolean vendedCredentials) {
    CatalogRequest request = to(Endpoint.LOAD_TABLE, paths.table(), paths);
    return exchange(vendedCredentials ? request.header(ACCESS_DELEGATION, "vended-credentials") : request,
        raw -> this.tables.table(raw.body));
  }

  /**
   * {@code HEAD …/tables/{table}}: whether the table exists, without loading it; a catalog that does not list it is
   * asked with {@code GET} instead, as Iceberg's client does. A read.
   */
  public Mono<Boolean> tableExists(DiscoveredCatalog catalog, TablePaths paths) {
    Mono<Boolean> asked = catalog.supports(Endpoint.TABLE_EXISTS)
        ? exchange(to(Endpoint.TABLE_EXISTS, paths.table(), paths), raw -> Boolean.TRUE)
        : loadTable(paths, false).thenReturn(Boolean.TRUE);
    return asked.onErrorResume(NoSuchTableException.class, absent -> Mono.just(Boolean.FALSE));
  }

  /** {@code GET …/tables/{table}/credentials[?planId=…]}: the table's current vended credentials. A read. */
  public Mono<List<StorageCredential>> loadCredentials(TablePaths paths, @Nullable String planId) {
    return exchange(to(Endpoint.LOAD_CREDENTIALS, paths.credentials(planId), paths),
        raw -> this.tables.credentials(raw.body));
  }

  /**
   * {@code POST …/tables/{table}/metrics}. A report is recorded once per request and the spec gives this endpoint
   * no {@code Idempotency-Key}, so none is sent, and the report is sent again only after failures that say it was
   * not acted on (429, 503, a connection never made), whatever the catalog says about keys: a duplicate report
   * would be counted twice.
   */
  public Mono<Void> reportMetrics(TablePaths paths, byte[] report) {
    return exchange(to(Endpoint.REPORT_METRICS, paths.metrics(), paths).body(report, false)
        .resend(Resend.IF_NOT_PROCESSED), raw -> Boolean.TRUE).then();
  }

  private static CatalogRequest to(Endpoint endpoint, String uri, TablePaths paths) {
    return CatalogRequest.to(endpoint, uri, paths.template(endpoint));
  }

  /** {@link #exchange(CatalogRequest, Handoff, Function)} with every answer parsed on the planner's executor. */
  private <T> Mono<T> exchange(CatalogRequest request, Function<Raw, T> onSuccess) {
    return exchange(request, Handoff.ALWAYS, onSuccess);
  }

  /**
   * Sends a request, each attempt counted for the plan whose context it runs in ({@link PlanRequests}), and turns
   * its answer into a value or a typed failure, on the thread {@code handoff} says.
   */
  private <T> Mono<T> exchange(CatalogRequest request, Handoff handoff, Function<Raw, T> onSuccess) {
    if (this.lifecycle.closed) {
      return Mono.error(new ScanPlanningException("the planner is closed", request.planTask(), null));
    }
    String planTask = request.planTask();
    // built once: every attempt sends the same request, its Idempotency-Key included
    Mono<Raw> attempts = send(request);
    Mono<T> attempt = Mono.deferContextual(context -> attempts.doOnSubscribe(sent -> PlanRequests.sending(context).run()))
        // the response timeout bounds each silence, not a body that trickles in: this bounds the whole
        .timeout(this.requestTimeout, Mono.error(() -> new TransportException(Redaction.maskUserInfo(
            request.described()) + " got no complete answer within the request timeout of " + this.requestTimeout,
            planTask, new TimeoutException("request timeout"))))
        // a failure of the exchange (a reset, a refused connection) is handed off as an answer would be
        .onErrorResume(failure -> handedOff(Mono.error(failure), handoff, 0))
        .flatMap(raw -> handedOff(Mono.fromCallable(() -> read(request, raw, onSuccess)), handoff, raw.body.length))
        .onErrorMap(failure -> !(failure instanceof ScanPlanningException),
            failure -> CatalogErrors.unexpected(request.described(), planTask, failure, this.maxResponseBytes))
        .onErrorMap(ScanPlanningException.class, failure -> planTask != null && failure.planTask() == null
            ? CatalogErrors.withPlanTask(failure, planTask) : failure);
    // each retry subscribes again
    return switch (request.resend()) {
      case AFTER_TRANSIENT_FAILURES -> this.retryPolicy.resending(attempt, true);
      case IF_NOT_PROCESSED -> this.retryPolicy.resending(attempt, false);
      case NEVER -> attempt;
    };
  }

  /**
   * {@code signal} subscribed where what follows an answer of {@code bytes} runs: on the planner's executor, or, for
   * a small answer of a whole plan, on the event loop that read it. Not inline there: an event loop hands out the
   * events of one {@code epoll_wait} by file descriptor number, so a connection closed and one opened while it does
   * (a failed plan cancelling its fetches, then its DELETE or the next fetch) can take the closed one's number and
   * be handed its stale events: the new connection fails with {@code NotYetConnectedException} or "prematurely
   * closed BEFORE response" (EventLoopFdReuseTest). As a task of the same loop it runs after those events, and no
   * thread is woken.
   */
  private <T> Mono<T> handedOff(Mono<T> signal, Handoff handoff, int bytes) {
    if (handoff == Handoff.ALWAYS || bytes > PARSE_WHERE_READ_BYTES) {
      return signal.subscribeOn(this.parseScheduler);
    }
    EventExecutor eventLoop = ThreadExecutorMap.currentExecutor();
    return eventLoop == null ? signal : signal.subscribeOn(Schedulers.fromExecutor(eventLoop));
  }

  private <T> T read(CatalogRequest request, Raw raw, Function<Raw, T> onSuccess) {
    if (raw.status >= 200 && raw.status < 300) {
      return onSuccess.apply(raw);
    }
    throw CatalogErrors.map(request.endpoint(), raw.status, this.errors.parse(raw.body), request.planTask(),
        RetryPolicy.retryAfter(raw.headers), this.caller != null);
  }

  /** The request's answer, status, headers and body read whole: sent again on each subscription. */
  private Mono<Raw> send(CatalogRequest request) {
    WebClient.RequestBodySpec spec = this.webClient.method(HttpMethod.valueOf(request.endpoint().method()))
        .uri(URI.create(request.uri())) // sent exactly as encoded here; the template only names it
        .attribute(URI_TEMPLATE_ATTRIBUTE, request.uriTemplate())
        .header(ACCEPT, JSON)
        .headers(request.headers());
    if (this.caller != null) {
      spec.attribute(CALLER_ATTRIBUTE, this.caller);
    }
    if (request.idempotencyKey()) {
      spec.header(IDEMPOTENCY_KEY, UuidV7.next().toString());
    }
    byte[] body = request.body();
    if (body != null) {
      // written as it is: bodyValue would look for a codec among all of WebClient's writers on every request
      spec.header(CONTENT_TYPE, JSON).body((message, context) -> {
        message.getHeaders().setContentLength(body.length);
        return message.writeWith(Mono.just(message.bufferFactory().wrap(body)));
      });
    }
    // The body is read as raw bytes whatever its Content-Type says: the parser reads JSON by its bytes, and a
    // decoder chosen by the header would turn an unparseable header (an answer) into a transport failure.
    return spec.exchangeToMono(response -> response.body(BodyExtractors.toDataBuffers())
        .collect(() -> new BodyBytes(response.headers().contentLength(), this.maxResponseBytes), BodyBytes::append)
        .map(read -> new Raw(response.statusCode().value(), response.headers().asHttpHeaders(), read.bytes()))
        // an error page over the limit is still its status (a 503 is retried): only its message is lost
        .onErrorResume(DataBufferLimitException.class, tooLarge -> response.statusCode().isError()
            ? Mono.just(new Raw(response.statusCode().value(), response.headers().asHttpHeaders(), NO_BODY))
            : Mono.error(tooLarge)));
  }

  /**
   * A body copied out of the network's buffers as they arrive, each released at once, into one array sized by the
   * answer's {@code Content-Length} when it has one: one copy, no list of retained buffers to join.
   */
  private static final class BodyBytes {

    private final int limit;
    private byte[] bytes;
    private int length;

    BodyBytes(OptionalLong contentLength, int limit) {
      this.limit = limit;
      long expected = contentLength.orElse(0);
      this.bytes = expected > 0 && expected <= limit ? new byte[(int) expected] : NO_BODY;
    }

    void append(DataBuffer buffer) {
      try {
        int count = buffer.readableByteCount();
        if (count > this.limit - this.length) {
          throw new DataBufferLimitException("Exceeded limit on max bytes to buffer : " + this.limit);
        }
        if (this.length + count > this.bytes.length) {
          this.bytes = Arrays.copyOf(this.bytes, Math.min(this.limit, Math.max(this.length + count,
              this.bytes.length * 2)));
        }
        buffer.read(this.bytes, this.length, count);
        this.length += count;
      }
      finally {
        DataBufferUtils.release(buffer);
      }
    }

    byte[] bytes() {
      return this.length == this.bytes.length ? this.bytes : Arrays.copyOf(this.bytes, this.length);
    }
  }
}
