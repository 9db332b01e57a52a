package io.icebergscan.planning.auth;

import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.internal.http.CatalogErrors;
import io.icebergscan.planning.internal.http.PlannerScopedFilters;
import io.icebergscan.planning.internal.wire.JsonSyntaxErrors;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import org.springframework.security.core.Authentication;
import org.springframework.security.oauth2.client.AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.ClientCredentialsReactiveOAuth2AuthorizedClientProvider;
import org.springframework.security.oauth2.client.OAuth2AuthorizeRequest;
import org.springframework.security.oauth2.client.OAuth2AuthorizedClient;
import org.springframework.security.oauth2.client.ReactiveOAuth2AuthorizedClientManager;
import org.springframework.security.oauth2.client.ReactiveOAuth2AuthorizedClientService;
import org.springframework.security.oauth2.client.endpoint.WebClientReactiveClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.client.registration.InMemoryReactiveClientRegistrationRepository;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.security.oauth2.core.endpoint.OAuth2ParameterNames;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;
import tools.jackson.core.JacksonException;

/**
 * OAuth2 client-credentials authentication of every catalog request, on Spring Security's OAuth2 client.
 *
 * <p>The access token is obtained from the token endpoint on first use, kept, and obtained again once
 * it is within {@link Builder#refreshBefore refreshBefore} of its expiry. A token endpoint that gives no
 * {@code expires_in} gets {@link Builder#defaultLifetime defaultLifetime}. Requests that need a token at the
 * same time share one token request. When the catalog refuses a token (401, or the spec's 419 for an expired
 * one), the token is dropped unless another request has replaced it already, and the request is sent once
 * more with the current token; a second refusal is the catalog's answer. A token endpoint that refuses the
 * credentials ends the request with an {@link AuthenticationException}. Requires
 * {@code org.springframework.security:spring-security-oauth2-client}.
 *
 * <pre>{@code
 * ScanPlanner planner = ScanPlanner.builder()
 *     .uri("https://catalog.example.com/api/catalog")
 *     .filter(OAuth2ClientCredentials.builder()
 *         .tokenUri("https://catalog.example.com/api/catalog/v1/oauth/tokens")
 *         .clientId("planner").clientSecret(secret).scope("PRINCIPAL_ROLE:ALL")
 *         .build())
 *     .build();
 * }</pre>
 */
public final class OAuth2ClientCredentials implements ExchangeFilterFunction {

  static {
    PlannerScopedFilters.register((filter, plannersClient) -> filter instanceof OAuth2ClientCredentials credentials
        ? credentials.forPlanner(plannersClient) : null);
  }

  private static final String REGISTRATION_ID = "iceberg-catalog";

  private static final OAuth2AuthorizeRequest AUTHORIZE = OAuth2AuthorizeRequest
      .withClientRegistrationId(REGISTRATION_ID).principal("iceberg-scan-planning").build();

  /** Spring Security's error code for a token endpoint's answer it could not read. */
  private static final String INVALID_TOKEN_RESPONSE = "invalid_token_response";

  /** The members of a token answer, which a failure may name: names of the protocol's, never the answer's text. */
  private static final List<String> TOKEN_RESPONSE_MEMBERS = List.of(OAuth2ParameterNames.ACCESS_TOKEN,
      OAuth2ParameterNames.TOKEN_TYPE, OAuth2ParameterNames.EXPIRES_IN, OAuth2ParameterNames.REFRESH_TOKEN,
      OAuth2ParameterNames.SCOPE);

  /** 401, and 419 (AuthenticationTimeout), which the REST spec lets a catalog send for an expired token. */
  private static final Set<Integer> TOKEN_REFUSED = Set.of(401, 419);

  private final Registration registration;
  private final ReactiveOAuth2AuthorizedClientManager manager;
  private final KeptToken kept = new KeptToken();
  /** The token request in flight, which every request needing a token meanwhile waits for. */
  private final AtomicReference<@Nullable Mono<OAuth2AccessTokenResponse>> tokenRequest = new AtomicReference<>();

  /** What the builder collected, fixed when it built: planners copy it, never change it. */
  private record Registration(String tokenUri, String clientId, String clientSecret, Set<String> scopes,
      boolean secretInBody, Duration refreshBefore, Duration defaultLifetime, Clock clock,
      @Nullable WebClient webClient) {
  }

  /** @param plannersClient the HTTP client of the planner this filter serves, unless one was given */
  private OAuth2ClientCredentials(Registration registration, @Nullable WebClient plannersClient) {
    this.registration = registration;
    ClientRegistration client = ClientRegistration.withRegistrationId(REGISTRATION_ID)
        .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS)
        .clientAuthenticationMethod(registration.secretInBody()
            ? ClientAuthenticationMethod.CLIENT_SECRET_POST
            : ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
        .clientId(registration.clientId())
        .clientSecret(registration.clientSecret())
        .tokenUri(registration.tokenUri())
        .scope(registration.scopes())
        .build();
    WebClientReactiveClientCredentialsTokenResponseClient tokenClient =
        new WebClientReactiveClientCredentialsTokenResponseClient();
    WebClient webClient = registration.webClient() != null ? registration.webClient() : plannersClient;
    if (webClient != null) {
      tokenClient.setWebClient(webClient);
    }
    ClientCredentialsReactiveOAuth2AuthorizedClientProvider provider =
        new ClientCredentialsReactiveOAuth2AuthorizedClientProvider();
    provider.setAccessTokenResponseClient(request -> shared(() -> tokenClient.getTokenResponse(request)
        .map(response -> withLifetime(response, registration.defaultLifetime()))));
    provider.setClockSkew(registration.refreshBefore());
    provider.setClock(registration.clock());
    AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager manager =
        new AuthorizedClientServiceReactiveOAuth2AuthorizedClientManager(
            new InMemoryReactiveClientRegistrationRepository(client), this.kept);
    manager.setAuthorizedClientProvider(provider);
    this.manager = manager;
  }

  public static Builder builder() {
    return new Builder();
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    if (CallerAuthentication.isCallers(request)) {
      // a caller's request carries the caller's credentials: no token of the planner's is fetched nor sent
      return next.exchange(request);
    }
    return token()
        .flatMap(token -> send(request, next, token)
            .flatMap(response -> !refused(response)
                ? Mono.just(response)
                // the same request (same Idempotency-Key) once more, with whatever token is current then
                : response.releaseBody()
                    .then(Mono.fromRunnable(() -> this.kept.dropIfKept(token)))
                    .then(Mono.defer(this::token))
                    .flatMap(current -> send(request, next, current))))
        .onErrorMap(OAuth2AuthorizationException.class, this::noToken);
  }

  /**
   * The access token this filter authenticates its requests with now: the kept one, or one obtained (shared with the
   * requests that need one meanwhile, renewed within {@link Builder#refreshBefore refreshBefore} of its expiry) as a
   * request would. For a service that presents its own identity beside a caller's, such as the actor of an OAuth2
   * token exchange. Fails as a request would: an {@link AuthenticationException} when the token endpoint refuses, a
   * {@link TransportException} when it cannot be reached.
   *
   * <p>A planner that is given this filter uses a copy of it bound to its own HTTP client, with a token of its own,
   * unless the filter has a {@link Builder#webClient webClient}: give it one to share its token with the planner.
   */
  public Mono<String> accessToken() {
    return token().map(OAuth2AccessToken::getTokenValue).onErrorMap(OAuth2AuthorizationException.class, this::noToken);
  }

  /**
   * The token endpoint refused the credentials, or answered what Spring Security could not read. Spring's
   * description of such an answer quotes it (a JSON decoder's message, an unsupported {@code token_type}), and the
   * answer may hold the token: it is described here in words that quote nothing, and Spring's exception, whose
   * message and causes quote it too, is not kept as the cause.
   */
  private AuthenticationException noToken(OAuth2AuthorizationException failure) {
    String from = "no access token from " + Redaction.maskUserInfo(this.registration.tokenUri()) + ": ";
    if (!INVALID_TOKEN_RESPONSE.equals(failure.getError().getErrorCode())) {
      return new AuthenticationException(from + failure.getMessage(), null, failure);
    }
    return new AuthenticationException(from + "[" + INVALID_TOKEN_RESPONSE + "] the answer is " + unreadable(failure),
        null, null);
  }

  private static String unreadable(OAuth2AuthorizationException failure) {
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof JacksonException json) {
        return JsonSyntaxErrors.describe(json);
      }
    }
    // well-formed but refused: Spring names the refused member before any value it quotes ("Unsupported
    // token_type: …"), so the first member named is the one
    String description = String.valueOf(failure.getError().getDescription());
    String named = null;
    for (String member : TOKEN_RESPONSE_MEMBERS) {
      int at = description.indexOf(member);
      if (at >= 0 && (named == null || at < description.indexOf(named))) {
        named = member;
      }
    }
    return "not a usable token response" + (named == null ? "" : ": its " + named + " is missing or not usable");
  }

  /**
   * For a planner: a filter with this one's registration whose token requests go through the planner's client,
   * and whose token is the planner's own; this filter is not changed. A filter given a {@link Builder#webClient}
   * of its own serves every planner as it is.
   */
  private ExchangeFilterFunction forPlanner(WebClient plannersClient) {
    return this.registration.webClient() != null ? this : new OAuth2ClientCredentials(this.registration,
        plannersClient);
  }

  /** 401 or 419; or, as RFC 6750 allows, 403 with an {@code invalid_token} challenge. */
  private static boolean refused(ClientResponse response) {
    int status = response.statusCode().value();
    if (status != 403) {
      return TOKEN_REFUSED.contains(status);
    }
    String challenge = response.headers().asHttpHeaders().getFirst(HttpHeaders.WWW_AUTHENTICATE);
    return challenge != null && challenge.contains("invalid_token");
  }

  private Mono<OAuth2AccessToken> token() {
    return this.manager.authorize(AUTHORIZE).map(OAuth2AuthorizedClient::getAccessToken)
        // no answer from the token endpoint (refused, reset, timed out): a transport failure there, not here
        .onErrorMap(failure -> !(failure instanceof OAuth2AuthorizationException),
            failure -> new TransportException("POST " + Redaction.maskUserInfo(this.registration.tokenUri())
                + " failed: " + CatalogErrors.cause(failure), null, failure));
  }

  private static Mono<ClientResponse> send(ClientRequest request, ExchangeFunction next, OAuth2AccessToken token) {
    return next.exchange(ClientRequest.from(request)
        .headers(headers -> headers.setBearerAuth(token.getTokenValue()))
        .build());
  }

  /**
   * The token request in flight if there is one, else a new one from {@code fetch}, shared until it ends.
   * It is cancelled when every request waiting for it has gone (each bounded by its request timeout), so a
   * token endpoint that never answers holds up only the requests of that moment, not every later one.
   */
  private Mono<OAuth2AccessTokenResponse> shared(Supplier<Mono<OAuth2AccessTokenResponse>> fetch) {
    // only the request in the slot is ever subscribed, so when it ends the slot is its own to clear
    return Mono.defer(() -> this.tokenRequest.updateAndGet(inFlight -> inFlight != null ? inFlight
        : fetch.get().doFinally(signal -> this.tokenRequest.set(null)).flux().publish().refCount(1).next()));
  }

  /** A response without {@code expires_in} reads as one second in Spring Security: give it the default lifetime. */
  private static OAuth2AccessTokenResponse withLifetime(OAuth2AccessTokenResponse response, Duration lifetime) {
    var token = response.getAccessToken();
    if (token.getIssuedAt() == null || token.getExpiresAt() == null
        || Duration.between(token.getIssuedAt(), token.getExpiresAt()).compareTo(Duration.ofSeconds(1)) > 0) {
      return response;
    }
    return OAuth2AccessTokenResponse.withResponse(response).expiresIn(lifetime.toSeconds()).build();
  }

  @Override
  public String toString() {
    return "OAuth2ClientCredentials[tokenUri=" + Redaction.maskUserInfo(this.registration.tokenUri()) + "]";
  }

  /** The one kept token: a single registration and principal, so a single slot. */
  private static final class KeptToken implements ReactiveOAuth2AuthorizedClientService {

    private final AtomicReference<@Nullable OAuth2AuthorizedClient> client = new AtomicReference<>();

    @Override
    @SuppressWarnings("unchecked")
    public <T extends OAuth2AuthorizedClient> Mono<T> loadAuthorizedClient(String registrationId,
        String principalName) {
      return Mono.fromSupplier(() -> (T) this.client.get());
    }

    @Override
    public Mono<Void> saveAuthorizedClient(OAuth2AuthorizedClient authorizedClient, Authentication principal) {
      return Mono.fromRunnable(() -> this.client.set(authorizedClient));
    }

    @Override
    public Mono<Void> removeAuthorizedClient(String registrationId, String principalName) {
      return Mono.fromRunnable(() -> this.client.set(null));
    }

    /** A refused token goes; a token that already replaced it (a late refusal of the old one) stays. */
    void dropIfKept(OAuth2AccessToken refused) {
      this.client.updateAndGet(client -> client != null
          && client.getAccessToken().getTokenValue().equals(refused.getTokenValue()) ? null : client);
    }
  }

  /** Collects the client's registration at the token endpoint; each setter checks its value. */
  public static final class Builder {

    /** The scope requested when none is added, as Apache Iceberg's clients ask for. */
    public static final String DEFAULT_SCOPE = "catalog";
    /** Default time before its expiry when a token is replaced. */
    public static final Duration DEFAULT_REFRESH_BEFORE = Duration.ofSeconds(60);
    /** Default lifetime of a token whose response has no {@code expires_in}. */
    public static final Duration DEFAULT_LIFETIME = Duration.ofHours(1);

    private @Nullable String tokenUri;
    private @Nullable String clientId;
    private @Nullable String clientSecret;
    /** {@code null} until a scope is added or the scopes are set: then {@link #DEFAULT_SCOPE} is asked for. */
    private @Nullable Set<String> scopes;
    private boolean secretInBody;
    private Duration refreshBefore = DEFAULT_REFRESH_BEFORE;
    private Duration defaultLifetime = DEFAULT_LIFETIME;
    private Clock clock = Clock.systemUTC();
    private @Nullable WebClient webClient;

    private Builder() {
    }

    /** The token endpoint, e.g. the catalog's {@code …/v1/oauth/tokens} or an identity provider's. */
    public Builder tokenUri(String tokenUri) {
      if (!tokenUri.startsWith("http://") && !tokenUri.startsWith("https://")) {
        throw new IllegalArgumentException("the token uri '" + Redaction.maskUserInfo(tokenUri)
            + "' must be an absolute http(s) URI");
      }
      this.tokenUri = tokenUri;
      return this;
    }

    public Builder clientId(String clientId) {
      this.clientId = clientId;
      return this;
    }

    public Builder clientSecret(String clientSecret) {
      this.clientSecret = clientSecret;
      return this;
    }

    /** Adds a scope to request; without any added or {@linkplain #scopes set}, {@value #DEFAULT_SCOPE} is requested. */
    public Builder scope(String scope) {
      if (this.scopes == null) {
        this.scopes = new LinkedHashSet<>();
      }
      this.scopes.add(Objects.requireNonNull(scope, "scope"));
      return this;
    }

    /** The scopes to request, replacing any added; an empty collection requests none (no {@code scope}). */
    public Builder scopes(Collection<String> scopes) {
      this.scopes = new LinkedHashSet<>(scopes);
      return this;
    }

    /**
     * Sends the client id and secret as form parameters ({@code client_secret_post}, what Apache Iceberg's
     * clients do) instead of an HTTP Basic header ({@code client_secret_basic}, the default).
     */
    public Builder secretInBody(boolean secretInBody) {
      this.secretInBody = secretInBody;
      return this;
    }

    /** How long before its expiry a token is replaced; default 60 seconds. */
    public Builder refreshBefore(Duration refreshBefore) {
      if (refreshBefore.isNegative()) {
        throw new IllegalArgumentException("refreshBefore must not be negative: " + refreshBefore);
      }
      this.refreshBefore = refreshBefore;
      return this;
    }

    /** The lifetime assumed for a token whose response has no {@code expires_in}; default one hour. */
    public Builder defaultLifetime(Duration defaultLifetime) {
      if (defaultLifetime.compareTo(Duration.ofSeconds(1)) <= 0) {
        throw new IllegalArgumentException("defaultLifetime must be longer than one second: " + defaultLifetime);
      }
      this.defaultLifetime = defaultLifetime;
      return this;
    }

    /** The clock that decides whether a kept token is due for refresh. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * The WebClient for token requests. Default: the planner's own HTTP client (its timeouts, TLS settings
     * and {@code httpClient} customizations), or a plain one where this filter is not a planner's.
     */
    public Builder webClient(WebClient webClient) {
      this.webClient = webClient;
      return this;
    }

    public OAuth2ClientCredentials build() {
      // in the order given: the scope parameter is sent as written
      Set<String> scopes = this.scopes != null ? Collections.unmodifiableSet(new LinkedHashSet<>(this.scopes))
          : Set.of(DEFAULT_SCOPE);
      return new OAuth2ClientCredentials(new Registration(required(this.tokenUri, "tokenUri"),
          required(this.clientId, "clientId"), required(this.clientSecret, "clientSecret"), scopes,
          this.secretInBody, this.refreshBefore, this.defaultLifetime, this.clock, this.webClient), null);
    }

    private static String required(@Nullable String value, String name) {
      if (value == null || value.isBlank()) {
        throw new IllegalStateException(name + " is required for OAuth2 client credentials");
      }
      return value;
    }
  }
}
