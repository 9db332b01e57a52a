package io.icebergscan.planning.internal.http;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.Redaction;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.internal.http.CatalogErrors.Call;
import io.icebergscan.planning.internal.wire.ConfigParser;
import io.icebergscan.planning.internal.wire.ErrorBodyParser;
import io.icebergscan.planning.internal.wire.LoadTableParser;
import io.icebergscan.planning.internal.wire.PlanResultParser;
import io.icebergscan.planning.internal.wire.ScanTasksParser;
import io.icebergscan.planning.internal.wire.WireTypes.CatalogConfig;
import io.icebergscan.planning.internal.wire.WireTypes.LoadTableResult;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import io.netty.channel.ChannelException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.ReadTimeoutException;
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
import reactor.netty.channel.AbortedException;
import reactor.util.retry.Retry;
import tools.jackson.databind.json.JsonMapper;

/**
 * The catalog's HTTP surface used by the planner: discovery, submit, poll, cancel and fetch for plans, and loading a
 * table, its credentials and reporting its metrics for the callers that read the planned files.
 *
 * <p>Bodies are read as bytes on the network thread and parsed on the planner's executor, so
 * Netty's event loops never run JSON parsing or validation. Every failure leaves here typed: HTTP errors through
 * {@link CatalogErrors}, payloads through the message parsers of {@code internal.wire}, failures of the connection
 * (refused, reset, timed out) as a {@link TransportException}, an oversized answer as malformed, and anything else
 * as a plain {@link ScanPlanningException}, which is never retried.
 */
public final class CatalogClient {

  /**
   * What Apache Iceberg's client ({@code RESTSessionCatalog.DEFAULT_ENDPOINTS}) assumes of a catalog whose config
   * lists no endpoints (absent or empty): the endpoints older than the list. Neither planning nor credentials are
   * among them.
   */
  public static final Set<Endpoint> DEFAULT_ENDPOINTS = Set.of(
      new Endpoint("GET", "/v1/{prefix}/namespaces"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}"),
      new Endpoint("POST", "/v1/{prefix}/namespaces"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/properties"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/tables"),
      Endpoint.LOAD_TABLE,
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/tables"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"),
      new Endpoint("POST", "/v1/{prefix}/tables/rename"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/register"),
      Endpoint.REPORT_METRICS,
      new Endpoint("POST", "/v1/{prefix}/transactions/commit"));
  /** Added to the defaults, as Iceberg's client does, when the merged {@code view-endpoints-supported} is true. */
  private static final Set<Endpoint> VIEW_ENDPOINTS = Set.of(
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/views"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("POST", "/v1/{prefix}/views/rename"));
  /** The header of {@code loadTable} asking for credentials to read the table's files with. */
  private static final String ACCESS_DELEGATION = "X-Iceberg-Access-Delegation";

  private static final String DEFAULT_NAMESPACE_SEPARATOR = "%1F";
  /**
   * The request attribute WebClient sets for {@code uri(String template, Object...)} and hands to its
   * observation as the URI template: the {@code uri} tag of {@code http.client.requests}. Requests here
   * are sent to URIs encoded by hand, so the template is set explicitly: without it the tag is
   * {@code none}, and a raw URI would carry table names and plan ids.
   */
  public static final String URI_TEMPLATE_ATTRIBUTE = WebClient.class.getName() + ".uriTemplate";
  private static final byte[] NO_BODY = new byte[0];
  /**
   * Discovery (shared by a planner's plans), the DELETE of an abandoned plan and the table calls made outside any
   * plan belong to no plan's count.
   */
  private static final Runnable NOT_COUNTED = () -> {
  };
  private static final Consumer<HttpHeaders> NO_HEADERS = headers -> {
  };

  /**
   * What discovery tells about the catalog; paths are built from it.
   *
   * @param endpoints the advertised endpoints, or {@link CatalogClient#DEFAULT_ENDPOINTS} (and the view endpoints,
   *     if so configured) when the catalog listed none
   * @param properties the catalog's {@code defaults} with its {@code overrides} over them
   */
  public record Catalog(@Nullable String prefix, String namespaceSeparator, Set<Endpoint> endpoints,
      boolean idempotencyKeys, Map<String, String> properties) {

    public Catalog {
      endpoints = Set.copyOf(endpoints);
      properties = Map.copyOf(properties);
    }

    public void require(Endpoint endpoint) {
      if (!supports(endpoint)) {
        throw new UnsupportedEndpointException(endpoint);
      }
    }

    public boolean supports(Endpoint endpoint) {
      return this.endpoints.contains(endpoint);
    }
  }

  /**
   * The resource paths of one table, and their URI templates (no table names or ids: for metrics).
   *
   * @param table the table's URI, encoded
   * @param tableTemplate its template, {@code …/v1/{prefix}/namespaces/{namespace}/tables/{table}}
   */
  public record TablePaths(String table, String tableTemplate) {

    public String plan() {
      return this.table + "/plan";
    }

    public String planTemplate() {
      return this.tableTemplate + "/plan";
    }

    public String plan(String planId) {
      return plan() + "/" + encode(planId);
    }

    public String planIdTemplate() {
      return planTemplate() + "/{plan-id}";
    }

    public String tasks() {
      return this.table + "/tasks";
    }

    public String tasksTemplate() {
      return this.tableTemplate + "/tasks";
    }

    public String credentials(@Nullable String planId) {
      return this.table + "/credentials" + (planId != null ? "?planId=" + encode(planId) : "");
    }

    public String credentialsTemplate() {
      return this.tableTemplate + "/credentials";
    }

    public String metrics() {
      return this.table + "/metrics";
    }

    public String metricsTemplate() {
      return this.tableTemplate + "/metrics";
    }
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
  /** Retries for requests that are safe to send again: reads, DELETEs, and submissions where keys are honoured. */
  private final Retry retries;
  private final Set<CompletableFuture<Void>> background = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;
  private final Mono<Catalog> discovery;

  public CatalogClient(WebClient webClient, String baseUri, @Nullable String warehouse, @Nullable String prefix,
      JsonMapper mapper, Scheduler parseScheduler, int maxResponseBytes, Duration requestTimeout,
      RetryPolicy retryPolicy) {
    this.webClient = webClient;
    this.retryPolicy = retryPolicy;
    this.retries = retryPolicy.retry(true);
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
    // Discovered once per planner; a failed discovery is not remembered, so the next plan tries again.
    this.discovery = Mono.defer(() -> discover(this.retries)).cache(catalog -> Duration.ofMillis(Long.MAX_VALUE),
        failure -> Duration.ZERO, () -> Duration.ZERO);
  }

  public Mono<Catalog> catalog() {
    return this.discovery;
  }

  /**
   * A fresh discovery, bypassing the cache and without retries: for health checks, which report what the
   * catalog answers now rather than wait out its Retry-After, and which are repeated anyway.
   */
  public Mono<Catalog> discoverNow() {
    // (not Retry.max(0), which would wrap the failure in a RetryExhaustedException)
    return discover(Retry.from(signals -> signals.concatMap(signal -> Mono.error(signal.failure()))));
  }

  /** The base URI without user info or query: safe to show in health details and logs. */
  public String displayUri() {
    return this.displayUri;
  }

  private Mono<Catalog> discover(Retry retry) {
    String uri = this.baseUri + "/v1/config"
        + (this.warehouse != null ? "?warehouse=" + encode(this.warehouse) : "");
    return exchange(HttpMethod.GET, uri, this.displayUri + "/v1/config", null, Call.CONFIG, null, NOT_COUNTED, retry,
        raw -> {
      CatalogConfig config = this.configs.parse(raw.body);
      String mergedPrefix = merged(config, "prefix", this.prefix);
      String separator = merged(config, "namespace-separator", null);
      Catalog catalog = new Catalog(mergedPrefix == null || mergedPrefix.isEmpty() ? null : mergedPrefix,
          separator == null || separator.isEmpty() ? DEFAULT_NAMESPACE_SEPARATOR : separator, endpoints(config),
          config.idempotencyKeyLifetime() != null, properties(config));
      requireUsableInPath(config, "prefix", catalog.prefix(), true);
      requireUsableInPath(config, "namespace-separator", catalog.namespaceSeparator(), false);
      return catalog;
    });
  }

  private static Map<String, String> properties(CatalogConfig config) {
    Map<String, String> properties = new LinkedHashMap<>(config.defaults());
    properties.putAll(config.overrides());
    return properties;
  }

  /**
   * The advertised endpoints, or what Iceberg's client assumes when there are none: an empty list is no list to
   * its client either ({@code RESTSessionCatalog.initialize}), so a catalog that sends one is read the same way by
   * both.
   */
  private static Set<Endpoint> endpoints(CatalogConfig config) {
    if (config.endpoints() != null && !config.endpoints().isEmpty()) {
      return config.endpoints();
    }
    if (!"true".equalsIgnoreCase(merged(config, "view-endpoints-supported", null))) {
      return DEFAULT_ENDPOINTS;
    }
    Set<Endpoint> withViews = new HashSet<>(DEFAULT_ENDPOINTS);
    withViews.addAll(VIEW_ENDPOINTS);
    return withViews;
  }

  /**
   * The prefix and the separator go into request paths as they are (both are sent already encoded): one a URI
   * cannot hold, or one that would end the path ({@code ?}, {@code #}), is a broken config, reported as such
   * rather than as whatever building the request would throw.
   */
  private void requireUsableInPath(CatalogConfig config, String key, @Nullable String value, boolean slashAllowed) {
    if (value == null || usableInPath(value, slashAllowed)) {
      return;
    }
    // the client's own prefix was checked when the planner was built, so a bad value is the catalog's
    String field = (config.overrides().containsKey(key) ? "overrides." : "defaults.") + key;
    String shown = value.length() <= 100 ? value : value.substring(0, 100) + "…";
    throw new MalformedResponseException("'" + shown + "' cannot be used in a request path", field, null);
  }

  /**
   * Whether {@code value} is an encoded path part: only URI path characters, and a slash only if allowed. A
   * value with slashes (a prefix) must not hold a {@code .} or {@code ..} segment, encoded or not, which would
   * move the request to another path; a separator only ever joins namespace levels within one segment.
   */
  public static boolean usableInPath(String value, boolean slashAllowed) {
    if (value.indexOf('?') >= 0 || value.indexOf('#') >= 0 || !slashAllowed && value.indexOf('/') >= 0) {
      return false;
    }
    if (slashAllowed && Arrays.stream(value.split("/", -1)).map(segment -> segment.replaceAll("(?i)%2E", "."))
        .anyMatch(segment -> segment.equals(".") || segment.equals(".."))) {
      return false;
    }
    try {
      return ("/" + value).equals(new URI("http://h/" + value).getRawPath());
    }
    catch (URISyntaxException notAPath) {
      return false;
    }
  }

  /** Defaults, then the client's setting, then overrides: the last one present wins. */
  private static @Nullable String merged(CatalogConfig config, String key, @Nullable String clientValue) {
    String value = config.overrides().get(key);
    if (value == null) {
      value = clientValue;
    }
    if (value == null) {
      value = config.defaults().get(key);
    }
    return value;
  }

  /** @param namespace the table's namespace levels, outermost first */
  public TablePaths paths(Catalog catalog, List<String> namespace, String table) {
    StringJoiner levels = new StringJoiner(catalog.namespaceSeparator());
    namespace.forEach(level -> levels.add(encode(level)));
    String tableUri = this.baseUri + "/v1/" + (catalog.prefix() != null ? catalog.prefix() + "/" : "")
        + "namespaces/" + levels + "/tables/" + encode(table);
    String tableTemplate = this.displayUri + "/v1/" + (catalog.prefix() != null ? "{prefix}/" : "")
        + "namespaces/{namespace}/tables/{table}";
    return new TablePaths(tableUri, tableTemplate);
  }

  /**
   * A submission creates a plan, so it is sent again after a failure that may have reached the catalog only
   * if the catalog honours {@code Idempotency-Key}s ({@link Catalog#idempotencyKeys()}); otherwise only after
   * answers that say it was not processed (429, 503) or a connection that was never made.
   */
  public Mono<Answer<PlanningResult>> submit(Catalog catalog, TablePaths paths, byte[] request,
      @Nullable String defaultResidual, Runnable sending) {
    return exchange(HttpMethod.POST, paths.plan(), paths.planTemplate(), request, Call.SUBMIT, null, sending,
        catalog.idempotencyKeys() ? this.retries : this.retryPolicy.retry(false),
        raw -> new Answer<>(this.plans.parse(raw.body, true, defaultResidual), retryAfter(raw.headers)));
  }

  public Mono<Answer<PlanningResult>> poll(TablePaths paths, String planId, @Nullable String defaultResidual,
      Runnable sending) {
    return exchange(HttpMethod.GET, paths.plan(planId), paths.planIdTemplate(), null, Call.POLL, null, sending,
        this.retries,
        raw -> new Answer<>(this.plans.parse(raw.body, false, defaultResidual), retryAfter(raw.headers)));
  }

  /**
   * Sends the DELETE of an abandoned plan without anyone waiting for it, bounded by {@code timeout};
   * {@link #close} gives such requests a grace period instead of cutting them off or leaking them.
   */
  public void cancelInBackground(TablePaths paths, String planId, Duration timeout) {
    if (this.closed) {
      return;
    }
    CompletableFuture<Void> done = cancel(paths, planId).timeout(timeout).onErrorResume(ignored -> Mono.empty())
        .toFuture();
    this.background.add(done);
    done.whenComplete((ignored, failure) -> this.background.remove(done));
    if (this.closed) {
      // close() may have taken its snapshot of the background requests before this one was added
      done.cancel(true);
    }
  }

  /** Whether {@link #close} was called: every request is refused from then on. */
  public boolean isClosed() {
    return this.closed;
  }

  /** Refuses new requests, lets background ones finish within {@code grace}, then cancels the rest. */
  public void close(Duration grace) {
    this.closed = true;
    CompletableFuture<?>[] pending = this.background.toArray(CompletableFuture[]::new);
    try {
      CompletableFuture.allOf(pending).get(grace.toMillis(), TimeUnit.MILLISECONDS);
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
    }
    catch (ExecutionException | TimeoutException notAllDone) {
      // best effort: what is left is cancelled below
    }
    this.background.forEach(request -> request.cancel(true));
  }

  public Mono<Void> cancel(TablePaths paths, String planId) {
    return exchange(HttpMethod.DELETE, paths.plan(planId), paths.planIdTemplate(), null, Call.CANCEL, null,
        NOT_COUNTED, this.retries,
        raw -> Boolean.TRUE).then();
  }

  public Mono<ScanTasks> fetchTasks(TablePaths paths, String planTask, byte[] request, @Nullable String defaultResidual,
      Runnable sending) {
    // a fetch only reads: sending it again is safe whatever the catalog says about keys
    return exchange(HttpMethod.POST, paths.tasks(), paths.tasksTemplate(), request, Call.FETCH_TASKS, planTask,
        sending, this.retries,
        raw -> this.tasks.parse(raw.body, planTask, defaultResidual));
  }

  /**
   * {@code GET …/tables/{table}}: the table's metadata, config and credentials. A read, so sent again after any
   * transient failure.
   *
   * @param vendedCredentials whether to ask for credentials ({@code X-Iceberg-Access-Delegation: vended-credentials})
   */
  public Mono<LoadTableResult> loadTable(TablePaths paths, boolean vendedCredentials) {
    Consumer<HttpHeaders> delegation = vendedCredentials
        ? headers -> headers.set(ACCESS_DELEGATION, "vended-credentials")
        : NO_HEADERS;
    return exchange(HttpMethod.GET, paths.table(), paths.tableTemplate(), null, false, delegation, Call.LOAD_TABLE,
        null, NOT_COUNTED, this.retries, raw -> this.tables.table(raw.body));
  }

  /** {@code GET …/tables/{table}/credentials[?planId=…]}: the table's current vended credentials. A read. */
  public Mono<List<StorageCredential>> loadCredentials(TablePaths paths, @Nullable String planId) {
    return exchange(HttpMethod.GET, paths.credentials(planId), paths.credentialsTemplate(), null, false, NO_HEADERS,
        Call.LOAD_CREDENTIALS, null, NOT_COUNTED, this.retries, raw -> this.tables.credentials(raw.body));
  }

  /**
   * {@code POST …/tables/{table}/metrics}. A report is recorded once per request and the spec gives this endpoint
   * no {@code Idempotency-Key}, so none is sent, and the report is sent again only after failures that say it was
   * not acted on (429, 503, a connection never made), whatever the catalog says about keys: a duplicate report
   * would be counted twice.
   */
  public Mono<Void> reportMetrics(TablePaths paths, byte[] report) {
    return exchange(HttpMethod.POST, paths.metrics(), paths.metricsTemplate(), report, false, NO_HEADERS,
        Call.REPORT_METRICS, null, NOT_COUNTED, this.retryPolicy.retry(false), raw -> Boolean.TRUE).then();
  }

  /** @param sending run as each attempt is sent, retries included: what a plan counts as its requests */
  private <T> Mono<T> exchange(HttpMethod method, String uri, String uriTemplate, byte @Nullable [] body, Call call,
      @Nullable String planTask, Runnable sending, Retry retry, Function<Raw, T> onSuccess) {
    // the planning POSTs carry keys: a retry of a submission or a fetch is then known as one
    return exchange(method, uri, uriTemplate, body, body != null, NO_HEADERS, call, planTask, sending, retry,
        onSuccess);
  }

  /**
   * @param idempotencyKey whether the request carries an {@code Idempotency-Key}, the same on every attempt
   * @param headers sets the request's own headers, besides the planner's
   * @param sending run as each attempt is sent, retries included: what a plan counts as its requests
   */
  private <T> Mono<T> exchange(HttpMethod method, String uri, String uriTemplate, byte @Nullable [] body,
      boolean idempotencyKey, Consumer<HttpHeaders> headers, Call call, @Nullable String planTask, Runnable sending,
      Retry retry, Function<Raw, T> onSuccess) {
    if (this.closed) {
      return Mono.error(new ScanPlanningException("the planner is closed", planTask, null));
    }
    WebClient.RequestBodySpec spec = this.webClient.method(method)
        .uri(URI.create(uri)) // sent exactly as encoded here; the template only names it
        .attribute(URI_TEMPLATE_ATTRIBUTE, uriTemplate)
        .accept(MediaType.APPLICATION_JSON)
        .headers(headers);
    if (idempotencyKey) {
      spec.header("Idempotency-Key", UuidV7.next().toString());
    }
    if (body != null) {
      spec.contentType(MediaType.APPLICATION_JSON).bodyValue(body);
    }
    // The body is read as raw bytes whatever its Content-Type says: the parser reads JSON by its bytes, and a
    // decoder chosen by the header would turn an unparseable header (an answer) into a transport failure.
    return spec.exchangeToMono(response -> DataBufferUtils.join(response.body(BodyExtractors.toDataBuffers()),
            this.maxResponseBytes)
            .map(CatalogClient::bytes)
            // an error page over the limit is still its status (a 503 is retried): only its message is lost
            .onErrorResume(DataBufferLimitException.class, tooLarge -> response.statusCode().isError()
                ? Mono.just(NO_BODY) : Mono.error(tooLarge))
            .defaultIfEmpty(NO_BODY)
            .map(bytes -> new Raw(response.statusCode().value(), response.headers().asHttpHeaders(), bytes)))
        // each retry subscribes again
        .doOnSubscribe(attempt -> sending.run())
        // the response timeout bounds each silence, not a body that trickles in: this bounds the whole
        .timeout(this.requestTimeout, Mono.error(() -> new TransportException(Redaction.maskUserInfo(method + " " + uri)
            + " got no complete answer within the request timeout of " + this.requestTimeout, planTask,
            new TimeoutException("request timeout"))))
        .publishOn(this.parseScheduler)
        .map(raw -> {
          if (raw.status >= 200 && raw.status < 300) {
            return onSuccess.apply(raw);
          }
          throw CatalogErrors.map(call, raw.status, this.errors.parse(raw.body), planTask, retryAfter(raw.headers));
        })
        .onErrorMap(failure -> !(failure instanceof ScanPlanningException),
            failure -> failed(method, uri, planTask, failure))
        .onErrorMap(failure -> planTask != null && failure instanceof ScanPlanningException known
            && known.planTask() == null, failure -> withPlanTask((ScanPlanningException) failure, planTask))
        .retryWhen(retry);
  }

  /** A failure of a filter (getting a token) knows no handle: a fetch's failure names its own. */
  private static ScanPlanningException withPlanTask(ScanPlanningException failure, String planTask) {
    if (failure instanceof AuthenticationException) {
      return new AuthenticationException(failure.getMessage(), planTask, failure.getCause());
    }
    if (failure instanceof TransportException) {
      return new TransportException(failure.getMessage(), planTask, failure.getCause());
    }
    return failure;
  }

  private static byte[] bytes(DataBuffer buffer) {
    try {
      byte[] bytes = new byte[buffer.readableByteCount()];
      buffer.read(bytes);
      return bytes;
    }
    finally {
      DataBufferUtils.release(buffer);
    }
  }

  /**
   * A failure that is not yet a planning exception: an answer over the size limit is malformed, a failure of the
   * connection or the exchange a {@link TransportException} (retryable), and anything else (a bug in a filter or
   * in handling an answer) a plain {@link ScanPlanningException}, which is never retried.
   */
  private ScanPlanningException failed(HttpMethod method, String uri, @Nullable String planTask, Throwable failure) {
    String shown = Redaction.maskUserInfo(uri);
    if (failure instanceof DataBufferLimitException
        || failure.getCause() instanceof DataBufferLimitException) {
      return new MalformedResponseException("the response to " + method + " " + shown + " is larger than the limit of "
          + this.maxResponseBytes + " bytes", null, planTask);
    }
    String message = Redaction.maskUserInfo(method + " " + uri + " failed: " + cause(failure));
    return transport(failure) ? new TransportException(message, planTask, failure)
        : new ScanPlanningException(message, planTask, failure);
  }

  /** Failures of the connection or the exchange: I/O, TLS, timeouts, HTTP framing, a closed or aborted channel. */
  static boolean transport(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException || cause instanceof java.util.concurrent.TimeoutException
          || cause instanceof ChannelException || cause instanceof DecoderException
          || cause instanceof AbortedException) {
        return true;
      }
    }
    return false;
  }

  /** What failed below WebClient, whose own exception may say no more than its class name. */
  public static String cause(Throwable failure) {
    Throwable root = failure;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ReadTimeoutException) {
        return "no response within the response timeout";
      }
      root = cause;
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }

  /** Seconds or an HTTP-date (RFC 9110); anything else is ignored. */
  public static @Nullable Duration retryAfter(HttpHeaders headers) {
    String value = headers.getFirst(HttpHeaders.RETRY_AFTER);
    if (value == null || value.isBlank()) {
      return null;
    }
    String trimmed = value.trim();
    try {
      long seconds = Long.parseLong(trimmed);
      return seconds < 0 ? null : Duration.ofSeconds(seconds);
    }
    catch (NumberFormatException notSeconds) {
      try {
        Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(trimmed,
            DateTimeFormatter.RFC_1123_DATE_TIME));
        return until.isNegative() ? Duration.ZERO : until;
      }
      catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }

  /** RFC 3986 percent-encoding of one path segment or query value: only unreserved characters stay. */
  public static String encode(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append((char) c);
      }
      else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return out.toString();
  }
}
