package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.icebergscan.planning.internal.Redaction;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.StringUtils;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the Iceberg REST catalog that plans scans. A setting left unset is not passed on, so the default
 * is the planner builder's ({@code ScanPlanner.Builder}), the one place defaults are written; the values are
 * checked there too. The configuration metadata documents those defaults, and a test holds the two together.
 *
 * @param uri Base URI of the Iceberg REST catalog, the part before "/v1/...". Without it (or an
 *     IcebergRestConnectionDetails bean), no ScanPlanner bean is created.
 * @param warehouse Warehouse to request from the catalog's "GET /v1/config"; empty for none.
 * @param prefix Path prefix to use unless the catalog's configuration overrides it; empty for none.
 * @param headers Static HTTP headers sent with every request to the catalog.
 * @param token Bearer token sent as "Authorization: Bearer ..." with every request; an empty one sends
 *     none. For tokens that expire, use "iceberg.rest.oauth2.*" instead.
 * @param oauth2 OAuth2 client-credentials authentication against the catalog.
 * @param identity Whose identity the catalog's requests carry: "service", the application's own (the token or
 *     OAuth2 client above), or "caller", the caller of each call: the bearer token (JWT or opaque) that authenticated
 *     the current request to the application's Spring Security resource server. A call without one fails before
 *     anything is sent (a 401 problem detail). With "caller", the application's own identity only checks the
 *     catalog's health.
 * @param caller How a caller's identity reaches the catalog, with identity "caller".
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
    @DefaultValue("service") Identity identity,
    @DefaultValue Caller caller,
    @DefaultValue Ssl ssl,
    @Nullable Duration connectTimeout,
    @Nullable Duration responseTimeout,
    @Nullable Duration requestTimeout,
    @DefaultValue Retry retry,
    @DefaultValue ScanPlanning scanPlanning) {

  public IcebergRestProperties {
    headers = Map.copyOf(headers);
    token = unlessEmpty(token);
    if (token != null && oauth2.clientId() != null) {
      throw new IllegalArgumentException("iceberg.rest.token and iceberg.rest.oauth2.client-id are both set: "
          + "choose one way to authenticate");
    }
    if (caller.mode() == Caller.Mode.TOKEN_EXCHANGE && identity != Identity.CALLER) {
      throw new IllegalArgumentException("iceberg.rest.caller.mode is token-exchange, which exchanges the tokens of "
          + "callers, but iceberg.rest.identity is " + identity.name().toLowerCase(Locale.ROOT)
          + ": set iceberg.rest.identity=caller too");
    }
  }

  /** Never shows the token or header values: they often hold credentials. */
  @Override
  public String toString() {
    return "IcebergRestProperties[uri=" + Redaction.maskUserInfo(this.uri) + ", warehouse=" + this.warehouse
        + ", prefix=" + this.prefix + ", headers=" + new TreeMap<>(this.headers).keySet() + ", token=" + masked(this.token)
        + ", oauth2=" + this.oauth2 + ", identity=" + this.identity + ", caller=" + this.caller + ", ssl=" + this.ssl
        + ", connectTimeout=" + this.connectTimeout
        + ", responseTimeout=" + this.responseTimeout + ", requestTimeout=" + this.requestTimeout
        + ", retry=" + this.retry + ", scanPlanning=" + this.scanPlanning + "]";
  }

  private static @Nullable String masked(@Nullable String secret) {
    return secret != null ? "******" : null;
  }

  /**
   * An empty value is an unset one: {@code token: ${ICEBERG_TOKEN:}} with the variable unset means no token (no
   * {@code Authorization} header), as an empty {@code uri} means no catalog.
   */
  private static @Nullable String unlessEmpty(@Nullable String value) {
    return StringUtils.hasText(value) ? value : null;
  }

  /**
   * OAuth2 client-credentials authentication against the catalog, through Spring Security's OAuth2
   * client (add org.springframework.security:spring-security-oauth2-client). On when client-id is set and not empty.
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
      @Nullable List<String> scopes,
      @Nullable String clientAuthenticationMethod,
      @Nullable Duration refreshBefore,
      @Nullable Duration defaultTokenLifetime) {

    public OAuth2 {
      clientId = unlessEmpty(clientId);
      scopes = scopes == null ? null : List.copyOf(scopes);
      if (clientId != null && (clientSecret == null || clientSecret.isEmpty())) {
        throw new IllegalArgumentException("iceberg.rest.oauth2.client-secret is required with "
            + "iceberg.rest.oauth2.client-id");
      }
      if (clientAuthenticationMethod != null && !clientAuthenticationMethod.equals("client_secret_basic")
          && !clientAuthenticationMethod.equals("client_secret_post")) {
        throw new IllegalArgumentException("iceberg.rest.oauth2.client-authentication-method must be "
            + "client_secret_basic or client_secret_post, but was " + clientAuthenticationMethod);
      }
    }

    /** Whether the client sends its id and secret as form parameters ({@code client_secret_post}). */
    boolean secretInBody() {
      return "client_secret_post".equals(this.clientAuthenticationMethod);
    }

    /** Never shows the client secret. */
    @Override
    public String toString() {
      return "OAuth2[clientId=" + this.clientId + ", clientSecret=" + masked(this.clientSecret) + ", tokenUri="
          + Redaction.maskUserInfo(this.tokenUri) + ", scopes=" + this.scopes + ", clientAuthenticationMethod="
          + this.clientAuthenticationMethod + ", refreshBefore=" + this.refreshBefore + ", defaultTokenLifetime="
          + this.defaultTokenLifetime + "]";
    }
  }

  /** Whose identity the catalog's requests carry. */
  public enum Identity {

    /** The application's own: its token or OAuth2 client credentials. */
    SERVICE,

    /** The caller of each call, from Spring Security's {@code Authentication} (or a {@code Callers} bean). */
    CALLER
  }

  /**
   * How a caller's identity reaches the catalog, with {@code iceberg.rest.identity=caller}.
   *
   * @param mode How the caller's bearer token reaches the catalog: "pass-through" sends it as it is; "token-exchange"
   *     exchanges it (RFC 8693) at an OAuth2 token endpoint for a token of the catalog, the application's own
   *     client-credentials token ("iceberg.rest.oauth2.*") being the actor.
   * @param tokenExchange The exchange of callers' tokens, with mode "token-exchange".
   */
  public record Caller(
      @DefaultValue("pass-through") Mode mode,
      @DefaultValue TokenExchange tokenExchange) {

    /** How a caller's bearer token reaches the catalog. */
    public enum Mode {

      /** Sent to the catalog as it is. */
      PASS_THROUGH,

      /** Exchanged for a token of the catalog (RFC 8693), with the application as the actor. */
      TOKEN_EXCHANGE
    }
  }

  /**
   * The exchange of callers' tokens for tokens of the catalog (OAuth 2.0 token exchange, RFC 8693): the caller's token
   * is the subject token, the application's own client-credentials token ("iceberg.rest.oauth2.*") the actor token.
   * Each caller's catalog token is kept until shortly before it expires (or until the catalog refuses it), for the
   * most recently active callers.
   *
   * @param tokenUri Token endpoint of the exchange. Defaults to the one of the application's OAuth2 client
   *     credentials ("iceberg.rest.oauth2.token-uri", else the catalog's "{uri}/v1/oauth/tokens").
   * @param clientId Client id that authenticates the exchange at its token endpoint. Defaults to the application's own
   *     ("iceberg.rest.oauth2.client-id"), whose client-credentials token is the actor token either way.
   * @param clientSecret Client secret of the client that authenticates the exchange. Defaults to the application's
   *     own ("iceberg.rest.oauth2.client-secret").
   * @param requestedTokenType Type of token to request ("requested_token_type").
   * @param scopes Scopes to request for the catalog token; none by default.
   * @param audience Audience to request for the catalog token ("audience"), such as the catalog's name at the identity
   *     provider; none by default.
   * @param refreshBefore How long before its expiry a caller's catalog token is exchanged anew.
   * @param cacheSize Callers whose catalog tokens are kept, at least 1: the least recently active one beyond is
   *     exchanged anew when it comes back.
   */
  public record TokenExchange(
      @Nullable String tokenUri,
      @Nullable String clientId,
      @Nullable String clientSecret,
      @Nullable String requestedTokenType,
      @Nullable List<String> scopes,
      @Nullable String audience,
      @Nullable Duration refreshBefore,
      @Nullable Integer cacheSize) {

    public TokenExchange {
      tokenUri = unlessEmpty(tokenUri);
      clientId = unlessEmpty(clientId);
      clientSecret = unlessEmpty(clientSecret);
      requestedTokenType = unlessEmpty(requestedTokenType);
      audience = unlessEmpty(audience);
      scopes = scopes == null ? null : List.copyOf(scopes);
      if ((clientId == null) != (clientSecret == null)) {
        throw new IllegalArgumentException("iceberg.rest.caller.token-exchange.client-id and client-secret go "
            + "together: set both, or neither to authenticate as iceberg.rest.oauth2.client-id");
      }
      if (refreshBefore != null && refreshBefore.isNegative()) {
        throw new IllegalArgumentException("iceberg.rest.caller.token-exchange.refresh-before must not be negative, "
            + "but was " + refreshBefore);
      }
      if (cacheSize != null && cacheSize < 1) {
        throw new IllegalArgumentException("iceberg.rest.caller.token-exchange.cache-size must be at least 1, but was "
            + cacheSize);
      }
    }

    /** Never shows the client secret, nor credentials in the token URI. */
    @Override
    public String toString() {
      return "TokenExchange[tokenUri=" + Redaction.maskUserInfo(this.tokenUri) + ", clientId=" + this.clientId
          + ", clientSecret=" + masked(this.clientSecret) + ", requestedTokenType=" + this.requestedTokenType
          + ", scopes=" + this.scopes + ", audience=" + this.audience + ", refreshBefore=" + this.refreshBefore
          + ", cacheSize=" + this.cacheSize + "]";
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
      @Nullable Integer maxRetries,
      @Nullable Duration initialDelay,
      @Nullable Duration maxDelay) {
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
   * @param replans How often a plan may start over when the catalog forgot it or one of its plan-tasks
   *     (expired, or a replica restarted); a stream starts over only while it has emitted nothing. 0 never does.
   */
  public record ScanPlanning(
      @Nullable Boolean enabled,
      @Nullable Integer maxConcurrency,
      @Nullable Duration pollInitialDelay,
      @Nullable Duration pollMaxDelay,
      @Nullable Duration planTimeout,
      @Nullable Duration cancelTimeout,
      @Nullable Integer streamBufferSize,
      @Nullable DataSize maxResponseSize,
      @Nullable Duration healthTimeout,
      @Nullable Integer replans) {
  }
}
