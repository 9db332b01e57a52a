package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the Iceberg REST catalog that plans scans.
 *
 * @param uri Base URI of the Iceberg REST catalog, the part before "/v1/...". No ScanPlanner bean is
 *     created without it.
 * @param warehouse Warehouse to request from the catalog's "GET /v1/config".
 * @param prefix Path prefix to use unless the catalog's configuration overrides it.
 * @param headers Static HTTP headers sent with every request to the catalog.
 * @param token Bearer token sent as "Authorization: Bearer ..." with every request. For tokens that
 *     expire, use "iceberg.rest.oauth2.*" instead.
 * @param oauth2 OAuth2 client-credentials authentication against the catalog.
 * @param ssl TLS settings of the connections to the catalog.
 * @param connectTimeout Time to establish a connection to the catalog.
 * @param responseTimeout Time to wait for each response of the catalog, and for each silence while a
 *     response is read.
 * @param requestTimeout Longest time one request may take, from sending it to the last byte of its
 *     answer, however the catalog spreads it out.
 * @param retry Retries of requests that failed transiently.
 * @param scanPlanning Settings of server-side scan planning.
 */
@ConfigurationProperties("iceberg.rest")
public record IcebergRestProperties(
    @Nullable String uri,
    @Nullable String warehouse,
    @Nullable String prefix,
    @DefaultValue Map<String, String> headers,
    @Nullable String token,
    @DefaultValue OAuth2 oauth2,
    @DefaultValue Ssl ssl,
    @DefaultValue("10s") Duration connectTimeout,
    @DefaultValue("60s") Duration responseTimeout,
    @DefaultValue("2m") Duration requestTimeout,
    @DefaultValue Retry retry,
    @DefaultValue ScanPlanning scanPlanning) {

  public IcebergRestProperties {
    headers = Map.copyOf(headers);
    positive(connectTimeout, "iceberg.rest.connect-timeout");
    positive(responseTimeout, "iceberg.rest.response-timeout");
    positive(requestTimeout, "iceberg.rest.request-timeout");
    if (token != null && oauth2.clientId() != null) {
      throw new IllegalArgumentException("iceberg.rest.token and iceberg.rest.oauth2.client-id are both set: "
          + "choose one way to authenticate");
    }
  }

  /** Never shows the token or header values: they often hold credentials. */
  @Override
  public String toString() {
    return "IcebergRestProperties[uri=" + maskedUserInfo(this.uri) + ", warehouse=" + this.warehouse + ", prefix=" + this.prefix
        + ", headers=" + new TreeMap<>(this.headers).keySet() + ", token=" + masked(this.token)
        + ", oauth2=" + this.oauth2 + ", ssl=" + this.ssl + ", connectTimeout=" + this.connectTimeout
        + ", responseTimeout=" + this.responseTimeout + ", requestTimeout=" + this.requestTimeout
        + ", retry=" + this.retry + ", scanPlanning=" + this.scanPlanning + "]";
  }

  private static @Nullable String masked(@Nullable String secret) {
    return secret != null ? "******" : null;
  }

  /** A URI with its user info, which may hold credentials, masked: for {@code toString} and the actuator. */
  static @Nullable String maskedUserInfo(@Nullable String uri) {
    return uri == null ? null : uri.replaceAll("(?i)^([a-z][a-z0-9+.-]*://)[^/?#@]*@", "$1******@");
  }

  /**
   * OAuth2 client-credentials authentication against the catalog, through Spring Security's OAuth2
   * client (add org.springframework.security:spring-security-oauth2-client). On when client-id is set.
   *
   * @param clientId Client id registered at the token endpoint.
   * @param clientSecret Client secret registered at the token endpoint.
   * @param tokenUri Token endpoint. Defaults to the catalog's own "{uri}/v1/oauth/tokens".
   * @param scopes Scopes to request.
   * @param clientAuthenticationMethod How the client authenticates at the token endpoint:
   *     "client_secret_basic" (an HTTP Basic header) or "client_secret_post" (form parameters, as
   *     Apache Iceberg's clients send them).
   * @param refreshBefore How long before its expiry a token is replaced.
   * @param defaultTokenLifetime Lifetime assumed for a token whose response has no "expires_in".
   */
  public record OAuth2(
      @Nullable String clientId,
      @Nullable String clientSecret,
      @Nullable String tokenUri,
      @DefaultValue("catalog") List<String> scopes,
      @DefaultValue("client_secret_basic") String clientAuthenticationMethod,
      @DefaultValue("60s") Duration refreshBefore,
      @DefaultValue("1h") Duration defaultTokenLifetime) {

    public OAuth2 {
      scopes = List.copyOf(scopes);
      if (clientId != null && (clientSecret == null || clientSecret.isEmpty())) {
        throw new IllegalArgumentException("iceberg.rest.oauth2.client-secret is required with "
            + "iceberg.rest.oauth2.client-id");
      }
      if (!clientAuthenticationMethod.equals("client_secret_basic")
          && !clientAuthenticationMethod.equals("client_secret_post")) {
        throw new IllegalArgumentException("iceberg.rest.oauth2.client-authentication-method must be "
            + "client_secret_basic or client_secret_post, but was " + clientAuthenticationMethod);
      }
      if (refreshBefore.isNegative()) {
        throw new IllegalArgumentException("iceberg.rest.oauth2.refresh-before must not be negative, but was "
            + refreshBefore);
      }
      positive(defaultTokenLifetime, "iceberg.rest.oauth2.default-token-lifetime");
    }

    /** Never shows the client secret. */
    @Override
    public String toString() {
      return "OAuth2[clientId=" + this.clientId + ", clientSecret=" + masked(this.clientSecret) + ", tokenUri="
          + maskedUserInfo(this.tokenUri) + ", scopes=" + this.scopes + ", clientAuthenticationMethod="
          + this.clientAuthenticationMethod + ", refreshBefore=" + this.refreshBefore + ", defaultTokenLifetime="
          + this.defaultTokenLifetime + "]";
    }
  }

  /**
   * TLS settings of the connections to the catalog (and its token endpoint).
   *
   * @param bundle Name of the Spring Boot SSL bundle ("spring.ssl.bundle.*") that holds the trusted
   *     certificates and, for mutual TLS, the client key.
   */
  public record Ssl(@Nullable String bundle) {
  }

  /**
   * Retries of requests that failed transiently: HTTP 429, 502, 503 and 504, and requests that got no
   * answer. POSTs keep their Idempotency-Key on every attempt.
   *
   * @param maxRetries How often a request is sent again; 0 turns retries off.
   * @param initialDelay First wait before a retry; it doubles per attempt, with jitter.
   * @param maxDelay Longest wait before a retry, also the cap on the catalog's Retry-After.
   */
  public record Retry(
      @DefaultValue("3") int maxRetries,
      @DefaultValue("100ms") Duration initialDelay,
      @DefaultValue("10s") Duration maxDelay) {

    public Retry {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("iceberg.rest.retry.max-retries must not be negative, but was " + maxRetries);
      }
      positive(initialDelay, "iceberg.rest.retry.initial-delay");
      positive(maxDelay, "iceberg.rest.retry.max-delay");
    }
  }

  /**
   * Settings of server-side scan planning.
   *
   * @param enabled Whether to auto-configure the ScanPlanner.
   * @param maxConcurrency Plan-task requests in flight at once across all plans of the planner, and the
   *     size of its executor; at least 1. Defaults to the number of available processors.
   * @param pollInitialDelay First wait before polling a plan the catalog answered "submitted".
   * @param pollMaxDelay Longest wait between two polls of a submitted plan.
   * @param planTimeout Longest time a whole plan may take: submission, polling and fetching its tasks.
   * @param cancelTimeout Longest time spent telling the catalog that a plan was abandoned.
   * @param streamBufferSize Fetched responses a streaming plan may hold ahead of its consumer.
   * @param maxResponseSize Largest catalog response accepted; a larger one fails the plan.
   * @param healthTimeout Longest time the health indicator waits for the catalog.
   */
  public record ScanPlanning(
      @DefaultValue("true") boolean enabled,
      @Nullable Integer maxConcurrency,
      @DefaultValue("100ms") Duration pollInitialDelay,
      @DefaultValue("5s") Duration pollMaxDelay,
      @DefaultValue("5m") Duration planTimeout,
      @DefaultValue("10s") Duration cancelTimeout,
      @DefaultValue("256") int streamBufferSize,
      @DefaultValue("64MB") DataSize maxResponseSize,
      @DefaultValue("2s") Duration healthTimeout) {

    public ScanPlanning {
      if (maxConcurrency == null) {
        maxConcurrency = Runtime.getRuntime().availableProcessors();
      }
      if (maxConcurrency < 1) {
        throw new IllegalArgumentException(
            "iceberg.rest.scan-planning.max-concurrency must be at least 1, but was " + maxConcurrency);
      }
      positive(pollInitialDelay, "iceberg.rest.scan-planning.poll-initial-delay");
      positive(pollMaxDelay, "iceberg.rest.scan-planning.poll-max-delay");
      positive(planTimeout, "iceberg.rest.scan-planning.plan-timeout");
      positive(cancelTimeout, "iceberg.rest.scan-planning.cancel-timeout");
      positive(healthTimeout, "iceberg.rest.scan-planning.health-timeout");
      if (streamBufferSize < 1) {
        throw new IllegalArgumentException(
            "iceberg.rest.scan-planning.stream-buffer-size must be at least 1, but was " + streamBufferSize);
      }
      if (maxResponseSize.toBytes() < 1 || maxResponseSize.toBytes() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("iceberg.rest.scan-planning.max-response-size must be between 1B and "
            + "2GB, but was " + maxResponseSize);
      }
    }

    /** The effective limit: never null once bound. */
    @Override
    public Integer maxConcurrency() {
      return this.maxConcurrency;
    }
  }

  private static void positive(Duration duration, String property) {
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(property + " must be positive, but was " + duration);
    }
  }
}
