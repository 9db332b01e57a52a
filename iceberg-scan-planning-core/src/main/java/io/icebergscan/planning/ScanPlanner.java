package io.icebergscan.planning;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.function.UnaryOperator;

import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.internal.http.CatalogDiscovery;
import io.icebergscan.planning.internal.http.RetryPolicy;
import io.icebergscan.planning.internal.planner.Instrumentation;
import io.icebergscan.planning.internal.planner.PlannerSettings;
import io.icebergscan.planning.internal.planner.RestScanPlanner;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.PlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationDocumentation;
import io.micrometer.observation.ObservationRegistry;
import io.netty.handler.ssl.SslContext;
import org.jspecify.annotations.Nullable;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.netty.http.client.HttpClient;
import reactor.util.context.ContextView;

/**
 * Plans Apache Iceberg table scans on a REST catalog's server side.
 *
 * <p>Both forms return exactly what a one-at-a-time breadth-first walk of the plan-tasks would
 * return (same tasks, same order, or the same first error naming the same plan-task) given the catalog's answers to
 * that plan, while fetching plan-tasks concurrently: at most {@link #maxConcurrency()} fetches in flight across all
 * plans of this planner, each started as soon as it is known and a slot is free. The order is that of the answers: a
 * catalog may list the tasks of another plan of the same scan in another order.
 */
public interface ScanPlanner extends AutoCloseable {

  /**
   * Plans a scan and returns the whole plan.
   *
   * @throws ScanPlanningException (a subtype) when the plan fails, nothing partial is returned
   * @throws IllegalArgumentException when the request is invalid, before any request is made
   */
  ScanPlan plan(TableIdentifier table, ScanRequest request);

  /** Plans a scan of the table's current snapshot. */
  default ScanPlan plan(TableIdentifier table) {
    return plan(table, ScanRequest.all());
  }

  /**
   * Plans a scan and streams its tasks in walk order as soon as each one's prefix is settled, holding
   * a bounded number of responses; cancelling the subscription aborts the requests in flight and
   * abandons the plan. Nothing happens until subscription; each subscription is a new plan.
   */
  default Flux<FileScanTask> planTasks(TableIdentifier table, ScanRequest request) {
    return planBatches(table, request).flatMapIterable(TaskBatch::tasks, 1);
  }

  /**
   * Plans a scan and streams its tasks as {@link #planTasks} does, a batch per answer of the catalog that brought
   * any, each with the plan's id and vended credentials, which a reader of the first tasks needs before the plan
   * has ended. The same tasks in the same order as {@link #planTasks}.
   */
  Flux<TaskBatch> planBatches(TableIdentifier table, ScanRequest request);

  /**
   * The catalog's other calls, made through this planner's HTTP client (its filters, TLS, retries and error
   * mapping) and its discovery: loading a table and its credentials, sending a metrics report, and what the catalog
   * supports.
   */
  CatalogCalls catalog();

  /**
   * This planner as a caller: a view whose every request (discovery, loads, plans with their polls, fetches, retries
   * and abandoning DELETEs, credentials and reports) carries {@code caller}'s credentials instead of this planner's
   * own, such as the user a service serves. The view shares this planner's connections, executor and concurrency
   * bound, and the catalog's configuration it discovers is kept for the caller's principal alone. Closing a view does
   * nothing; a view of a view is a view of this planner as the new caller. Cheap: make one per call.
   */
  ScanPlanner as(CatalogCredentials caller);

  /**
   * The caller this planner's calls made on this thread now run as: a view's ({@link #as}); for a planner built with
   * {@link Builder#callers}, the current caller, {@code null} when there is none (and then its calls fail);
   * {@code null} for a planner that runs as its own identity.
   */
  default @Nullable CatalogCredentials caller() {
    return null;
  }

  /**
   * The caller a reactive call subscribed with {@code context} runs as, as {@link #caller()} finds it; empty for the
   * planner's own identity, or when a planner built with {@link Builder#callers} has none.
   */
  default Mono<CatalogCredentials> caller(ContextView context) {
    return Mono.justOrEmpty(caller());
  }

  /** The planner-wide bound on plan-task fetches in flight. */
  int maxConcurrency();

  /** Plan-task fetches in flight right now, across all plans. */
  int requestsInFlight();

  /**
   * Asks the catalog for its configuration afresh (not the cached discovery plans use), as the planner's own
   * identity, even on a caller's view: it is the health indicator's.
   *
   * @throws ScanPlanningException when the catalog cannot be reached, answers with an error, or takes
   *     longer than {@code timeout}
   */
  CatalogCheck checkCatalog(Duration timeout);

  /** Releases the executor and connections the planner created itself (not ones it was given). */
  @Override
  void close();

  static Builder builder() {
    return new Builder();
  }

  /**
   * Builds a {@link ScanPlanner}. Only {@link #uri(String)} is required. The defaults here are the only ones:
   * Spring Boot's properties set only what is configured. Each setter checks its value when it is called, so a
   * bad value fails where it is given; {@link #build()} checks only the rules between settings.
   */
  final class Builder {

    /** Default plan timeout: submission, polling and walk together. */
    public static final Duration DEFAULT_PLAN_TIMEOUT = Duration.ofMinutes(5);
    /** Default first wait between polls of a submitted plan. */
    public static final Duration DEFAULT_POLL_INITIAL_DELAY = Duration.ofMillis(100);
    /** Default longest wait between polls. */
    public static final Duration DEFAULT_POLL_MAX_DELAY = Duration.ofSeconds(5);
    /** Default bound on the best-effort DELETE of an abandoned plan. */
    public static final Duration DEFAULT_CANCEL_TIMEOUT = Duration.ofSeconds(10);
    /** Default connect timeout of the planner's own HTTP client. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default time to wait for a response of the planner's own HTTP client. */
    public static final Duration DEFAULT_RESPONSE_TIMEOUT = Duration.ofSeconds(60);
    /** Default longest time one request may take, from sending it to the last byte of its answer. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofMinutes(2);
    /** Default number of fetched responses a stream may hold ahead of its consumer. */
    public static final int DEFAULT_STREAM_BUFFER_SIZE = 256;
    /** Default number of times a request failing transiently (429, 502, 503, 504, no answer) is sent again. */
    public static final int DEFAULT_MAX_RETRIES = 3;
    /** Default first wait before a retry. */
    public static final Duration DEFAULT_RETRY_INITIAL_DELAY = Duration.ofMillis(100);
    /** Default longest wait before a retry, also the cap on the catalog's {@code Retry-After}. */
    public static final Duration DEFAULT_RETRY_MAX_DELAY = Duration.ofSeconds(10);
    /** Default largest response body accepted. */
    public static final int DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
    /** Default number of times a plan starts over after the catalog forgot it: never, as the spec leaves it. */
    public static final int DEFAULT_REPLANS = 0;

    private @Nullable String uri;
    private @Nullable String warehouse;
    private @Nullable String prefix;
    private final Map<String, String> headers = new LinkedHashMap<>();
    private int maxConcurrency = defaultMaxConcurrency();
    private @Nullable WebClient webClient;
    private WebClient.@Nullable Builder webClientBuilder;
    private final List<ExchangeFilterFunction> filters = new ArrayList<>();
    private @Nullable SslContext sslContext;
    private @Nullable UnaryOperator<HttpClient> httpClient;
    private @Nullable Executor executor;
    private Duration planTimeout = DEFAULT_PLAN_TIMEOUT;
    private Duration pollInitialDelay = DEFAULT_POLL_INITIAL_DELAY;
    private Duration pollMaxDelay = DEFAULT_POLL_MAX_DELAY;
    private Duration cancelTimeout = DEFAULT_CANCEL_TIMEOUT;
    private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
    private Duration responseTimeout = DEFAULT_RESPONSE_TIMEOUT;
    private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
    private int streamBufferSize = DEFAULT_STREAM_BUFFER_SIZE;
    private int maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES;
    private int maxRetries = DEFAULT_MAX_RETRIES;
    private int replans = DEFAULT_REPLANS;
    private Duration retryInitialDelay = DEFAULT_RETRY_INITIAL_DELAY;
    private Duration retryMaxDelay = DEFAULT_RETRY_MAX_DELAY;
    private ObservationRegistry observationRegistry = ObservationRegistry.NOOP;
    private @Nullable Callers callers;
    private @Nullable ScanPlanningObservationConvention observationConvention;
    private @Nullable PlanTaskFetchObservationConvention fetchObservationConvention;

    Builder() {
    }

    /** The default {@link #maxConcurrency}: the number of available processors. */
    public static int defaultMaxConcurrency() {
      return Runtime.getRuntime().availableProcessors();
    }

    /**
     * The catalog's base URI, the part before {@code /v1/…}, e.g. {@code https://catalog.example.com/api/catalog}:
     * an absolute http(s) URI.
     */
    public Builder uri(String uri) {
      Objects.requireNonNull(uri, "uri");
      URI parsed;
      try {
        parsed = new URI(uri.strip());
      }
      catch (URISyntaxException invalid) {
        // the reason and where, not the exception: its message quotes the text, credentials included
        throw new IllegalArgumentException("the catalog uri '" + Redaction.maskUserInfo(uri) + "' is not a URI: "
            + invalid.getReason() + " at index " + invalid.getIndex());
      }
      if (!"http".equalsIgnoreCase(parsed.getScheme()) && !"https".equalsIgnoreCase(parsed.getScheme())
          || parsed.getHost() == null) {
        throw new IllegalArgumentException("the catalog uri '" + Redaction.maskUserInfo(uri)
            + "' must be an absolute http(s) URI");
      }
      this.uri = parsed.toString();
      return this;
    }

    /**
     * The warehouse sent to {@code GET /v1/config}; {@code null}, empty or blank for none (what
     * {@code ${ICEBERG_WAREHOUSE:}} gives when the variable is not set), as for an empty token.
     */
    public Builder warehouse(@Nullable String warehouse) {
      this.warehouse = unsetIfBlank(warehouse);
      return this;
    }

    /**
     * A path prefix, percent-encoded as it goes into paths, to use unless the catalog's config overrides it;
     * {@code null}, empty or blank for none.
     */
    public Builder prefix(@Nullable String prefix) {
      prefix = unsetIfBlank(prefix);
      if (prefix != null && !CatalogDiscovery.usableInPath(prefix, true)) {
        throw new IllegalArgumentException("the prefix '" + prefix + "' cannot be used in a request path: "
            + "it must be percent-encoded, without '?' or '#'");
      }
      this.prefix = prefix;
      return this;
    }

    /** A header sent with every request (e.g. a tenant id); values must not contain CR or LF. */
    public Builder header(String name, String value) {
      if (name.isBlank() || name.indexOf('\r') >= 0 || name.indexOf('\n') >= 0
          || value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
        throw new IllegalArgumentException("header '" + name.strip() + "' has a blank name or a CR/LF character");
      }
      this.headers.put(name, value);
      return this;
    }

    /** Plan-task fetches in flight across all plans of the planner; default: available processors. */
    public Builder maxConcurrency(int maxConcurrency) {
      this.maxConcurrency = atLeast(1, maxConcurrency, "maxConcurrency");
      return this;
    }

    /** A WebClient to send requests with, e.g. one with authentication filters; the caller owns its resources. */
    public Builder webClient(WebClient webClient) {
      this.webClient = webClient;
      return this;
    }

    /**
     * A WebClient builder (such as Spring Boot's, with its customizers and codecs) to build the planner's
     * WebClient from; the planner gives it a Reactor Netty connector with a pool sized for
     * {@code maxConcurrency} and the connect and response timeouts.
     */
    public Builder webClientBuilder(WebClient.Builder webClientBuilder) {
      this.webClientBuilder = webClientBuilder;
      return this;
    }

    /**
     * Adds a filter to every catalog request, after the planner's own headers are set: authentication
     * such as {@link OAuth2ClientCredentials}, tracing, logging. Filters run in the order added.
     */
    public Builder filter(ExchangeFilterFunction filter) {
      this.filters.add(Objects.requireNonNull(filter, "filter"));
      return this;
    }

    /**
     * Plans and calls as each call's caller, which {@code callers} finds (the user a service serves), instead of as
     * this planner's own identity: each call runs as {@link ScanPlanner#as} the caller would. A call that finds no
     * caller fails with a {@link io.icebergscan.planning.exceptions.MissingCallerException} before anything is sent.
     * The planner's own identity (its headers and filters) then serves only {@link ScanPlanner#checkCatalog}.
     */
    public Builder callers(Callers callers) {
      this.callers = Objects.requireNonNull(callers, "callers");
      return this;
    }

    /**
     * The TLS settings of the planner's own HTTP client (trusted certificates, client key), e.g. from a
     * Spring Boot SSL bundle; default: the JDK's trust store. Not combinable with {@link #webClient}.
     */
    public Builder sslContext(SslContext sslContext) {
      this.sslContext = Objects.requireNonNull(sslContext, "sslContext");
      return this;
    }

    /**
     * Adjusts the Reactor Netty {@code HttpClient} the planner creates for its connections, after its pool,
     * connect timeout and TLS are set: a proxy, a wiretap, socket options. A response timeout set here replaces
     * {@link #responseTimeout}. Calls add up, in order. Not combinable with {@link #webClient}.
     */
    public Builder httpClient(UnaryOperator<HttpClient> customizer) {
      Objects.requireNonNull(customizer, "customizer");
      UnaryOperator<HttpClient> previous = this.httpClient;
      this.httpClient = previous == null ? customizer : client -> customizer.apply(previous.apply(client));
      return this;
    }

    /**
     * The executor that parses and validates responses and drives the walk (a
     * {@code ThreadPoolTaskExecutor} in a Spring application); it never blocks on I/O. Default: a pool of
     * {@code maxConcurrency} daemon threads owned by the planner, ended when idle.
     */
    public Builder executor(Executor executor) {
      this.executor = executor;
      return this;
    }

    /** The longest time a whole plan may take: submission, polling and the walk. */
    public Builder planTimeout(Duration planTimeout) {
      this.planTimeout = positive(planTimeout, "planTimeout");
      return this;
    }

    /** The first wait before polling a plan the catalog answered {@code submitted}. */
    public Builder pollInitialDelay(Duration pollInitialDelay) {
      this.pollInitialDelay = positive(pollInitialDelay, "pollInitialDelay");
      return this;
    }

    /** The longest wait between two polls of a submitted plan. */
    public Builder pollMaxDelay(Duration pollMaxDelay) {
      this.pollMaxDelay = positive(pollMaxDelay, "pollMaxDelay");
      return this;
    }

    /** The bound on the best-effort {@code DELETE} that tells the catalog a plan was abandoned. */
    public Builder cancelTimeout(Duration cancelTimeout) {
      this.cancelTimeout = positive(cancelTimeout, "cancelTimeout");
      return this;
    }

    /** Connect timeout of the planner's own HTTP client (not applied to a WebClient you pass). */
    public Builder connectTimeout(Duration connectTimeout) {
      this.connectTimeout = positive(connectTimeout, "connectTimeout");
      return this;
    }

    /** Response timeout of the planner's own HTTP client (not applied to a WebClient you pass). */
    public Builder responseTimeout(Duration responseTimeout) {
      this.responseTimeout = positive(responseTimeout, "responseTimeout");
      return this;
    }

    /**
     * The longest time one request may take, from sending it to the last byte of its answer, whatever
     * the response timeout lets through (a body that trickles in byte by byte); not retried. Also the longest a
     * call of {@link ScanPlanner#catalog()} blocks, its retries included.
     */
    public Builder requestTimeout(Duration requestTimeout) {
      this.requestTimeout = positive(requestTimeout, "requestTimeout");
      return this;
    }

    /** Fetched responses a {@link #planTasks} stream may hold ahead of its consumer (at least the concurrency). */
    public Builder streamBufferSize(int streamBufferSize) {
      this.streamBufferSize = atLeast(1, streamBufferSize, "streamBufferSize");
      return this;
    }

    /** The largest response body accepted; a larger one fails the plan with a clear error. */
    public Builder maxResponseBytes(int maxResponseBytes) {
      this.maxResponseBytes = atLeast(1, maxResponseBytes, "maxResponseBytes");
      return this;
    }

    /**
     * How often a request that failed transiently (429, 502, 503, 504, or no answer at all) is sent
     * again; 0 turns retries off. POSTs keep their {@code Idempotency-Key} across attempts.
     */
    public Builder maxRetries(int maxRetries) {
      this.maxRetries = atLeast(0, maxRetries, "maxRetries");
      return this;
    }

    /**
     * How often a plan may start over when the catalog forgot it or one of its handles ({@code NoSuchPlanIdException},
     * {@code NoSuchPlanTaskException}: they expire, or a replica restarts). The abandoned plan gets its
     * {@code DELETE}, its partial result is dropped, and the same request is submitted again: the same snapshot or
     * range when it named one, else the table's current snapshot. A {@link ScanPlanner#planTasks stream} starts
     * over only while it has emitted nothing. 0, the default, never does.
     */
    public Builder replans(int replans) {
      this.replans = atLeast(0, replans, "replans");
      return this;
    }

    /** The first wait before a retry; it doubles per attempt, with jitter, up to {@link #retryMaxDelay}. */
    public Builder retryInitialDelay(Duration retryInitialDelay) {
      this.retryInitialDelay = positive(retryInitialDelay, "retryInitialDelay");
      return this;
    }

    /** The longest wait before a retry, also the cap on a catalog's {@code Retry-After}. */
    public Builder retryMaxDelay(Duration retryMaxDelay) {
      this.retryMaxDelay = positive(retryMaxDelay, "retryMaxDelay");
      return this;
    }

    /**
     * Where plans and their fetches report their observations ({@link ScanPlanningObservationDocumentation});
     * default: none. A planner that builds its own WebClient gives it this registry too, for its
     * {@code http.client.requests} observations.
     */
    public Builder observationRegistry(ObservationRegistry observationRegistry) {
      this.observationRegistry = Objects.requireNonNull(observationRegistry, "observationRegistry");
      return this;
    }

    /** Replaces the plan observation's default name and tags. */
    public Builder observationConvention(ScanPlanningObservationConvention observationConvention) {
      this.observationConvention = observationConvention;
      return this;
    }

    /** Replaces the plan-task fetch observation's default name and tags. */
    public Builder fetchObservationConvention(PlanTaskFetchObservationConvention fetchObservationConvention) {
      this.fetchObservationConvention = fetchObservationConvention;
      return this;
    }

    public ScanPlanner build() {
      if (this.uri == null) {
        throw new IllegalStateException("the catalog uri is required");
      }
      if (this.webClient != null && this.httpClient != null) {
        throw new IllegalStateException("httpClient(…) adjusts the planner's own HTTP client: configure the "
            + "given WebClient's connector instead");
      }
      if (this.webClient != null && this.sslContext != null) {
        throw new IllegalStateException("sslContext applies to the planner's own HTTP client: configure TLS on the "
            + "WebClient passed to webClient(...) instead, or pass a webClientBuilder");
      }
      notShorter(this.pollMaxDelay, "pollMaxDelay", this.pollInitialDelay, "pollInitialDelay");
      notShorter(this.retryMaxDelay, "retryMaxDelay", this.retryInitialDelay, "retryInitialDelay");
      PlannerSettings settings = new PlannerSettings(this.maxConcurrency, this.planTimeout, this.pollInitialDelay,
          this.pollMaxDelay, this.cancelTimeout, this.streamBufferSize, this.replans);
      return new RestScanPlanner(new RestScanPlanner.Connection(this.uri, this.warehouse, this.prefix,
          Map.copyOf(this.headers), List.copyOf(this.filters), this.webClient, this.webClientBuilder,
          this.sslContext, this.httpClient != null ? this.httpClient : UnaryOperator.identity(), this.executor,
          this.connectTimeout, this.responseTimeout, this.requestTimeout,
          this.maxResponseBytes,
          new RetryPolicy(this.maxRetries, this.retryInitialDelay, this.retryMaxDelay), this.callers), settings,
          new Instrumentation(this.observationRegistry, this.observationConvention, this.fetchObservationConvention));
    }

    private static @Nullable String unsetIfBlank(@Nullable String value) {
      return value == null || value.isBlank() ? null : value;
    }

    private static Duration positive(Duration duration, String name) {
      Objects.requireNonNull(duration, name);
      if (duration.isNegative() || duration.isZero()) {
        throw new IllegalArgumentException(name + " must be positive: " + duration);
      }
      return duration;
    }

    /** A backoff's cap is not below its first wait. */
    private static void notShorter(Duration max, String maxName, Duration initial, String initialName) {
      if (max.compareTo(initial) < 0) {
        throw new IllegalArgumentException(maxName + " " + max + " is shorter than " + initialName + " " + initial);
      }
    }

    private static int atLeast(int minimum, int value, String name) {
      if (value < minimum) {
        throw new IllegalArgumentException(name + (minimum == 0 ? " must not be negative: " : " must be at least "
            + minimum + ": ") + value);
      }
      return value;
    }
  }
}
