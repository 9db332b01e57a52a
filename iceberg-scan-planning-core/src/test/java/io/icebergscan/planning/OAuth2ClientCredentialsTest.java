package io.icebergscan.planning;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.netty.http.client.HttpClient;

import static io.icebergscan.planning.ScriptedCatalog.ALL_ENDPOINTS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Client-credentials tokens: obtained once, kept, replaced before expiry, and replaced once on a 401. */
class OAuth2ClientCredentialsTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String SECRET = "s3cr3t-do-not-show";

  @RegisterExtension
  private final MockCatalog mock = new MockCatalog();

  private final MutableClock clock = new MutableClock();
  private final TokenAndCatalog catalog = new TokenAndCatalog(this.clock);
  private ScanPlanner planner;

  private ScanPlanner planner(OAuth2ClientCredentials.Builder credentials) {
    return planner(credentials, 4);
  }

  private ScanPlanner planner(OAuth2ClientCredentials.Builder credentials, int maxConcurrency) {
    this.mock.server().setDispatcher(this.catalog);
    this.planner = this.mock.planner(this.mock.builder().maxConcurrency(maxConcurrency)
        .maxRetries(0).planTimeout(Duration.ofSeconds(20)).filter(credentials.build()));
    return this.planner;
  }

  private OAuth2ClientCredentials.Builder credentials() {
    return OAuth2ClientCredentials.builder().tokenUri(this.mock.server().url("/oauth/token").toString())
        .clientId("planner").clientSecret(SECRET).scope("catalog").clock(this.clock);
  }

  @Test
  void everyCatalogRequestCarriesTheTokenObtainedOnceWithTheClientsCredentials() {
    ScanPlanner planner = planner(credentials());
    ScanPlan plan = planner.plan(TABLE);
    ScanPlan again = planner.plan(TABLE);

    assertThat(plan.tasks()).hasSize(4);
    assertThat(again.tasks()).hasSize(4);
    assertThat(this.catalog.tokenRequests).hasSize(1);
    RecordedRequest tokenRequest = this.catalog.tokenRequests.get(0);
    assertThat(tokenRequest.getBody().utf8()).contains("grant_type=client_credentials", "scope=catalog")
        .doesNotContain(SECRET);
    String credentials = Base64.getEncoder().encodeToString(("planner:" + SECRET).getBytes(StandardCharsets.UTF_8));
    assertThat(tokenRequest.getHeaders().get("Authorization")).isEqualTo("Basic " + credentials);
    assertThat(this.catalog.catalogAuthorizations).isNotEmpty().allMatch(value -> value.startsWith("Bearer tok-"));
  }

  @Test
  void theCatalogScopeIsRequestedUnlessScopesAreGivenAndAnEmptySetRequestsNone() {
    OAuth2ClientCredentials.Builder unscoped = OAuth2ClientCredentials.builder()
        .tokenUri(this.mock.server().url("/oauth/token").toString()).clientId("planner").clientSecret(SECRET)
        .clock(this.clock);
    planner(unscoped).plan(TABLE);
    assertThat(this.catalog.tokenRequests.get(0).getBody().utf8()).contains("scope=catalog");
    this.planner.close();

    planner(unscoped.scopes(List.of())).plan(TABLE);
    assertThat(this.catalog.tokenRequests.get(1).getBody().utf8()).contains("grant_type=client_credentials")
        .doesNotContain("scope=");
  }

  /**
   * Each planner takes the filter's settings, not the filter: a filter that planners shared ended up with the
   * last planner's HTTP client, so one planner's token requests went out with another's connection settings
   * (and through its pool, even after that planner closed).
   */
  @Test
  void oneFilterSharedByPlannersSendsEachPlannersTokenRequestsThroughItsOwnClient() {
    this.mock.server().setDispatcher(this.catalog);
    OAuth2ClientCredentials shared = credentials().build();
    try (ScanPlanner first = plannerNamed("first", shared)) {
      ScanPlanner second = plannerNamed("second", shared);
      assertThat(first.plan(TABLE).tasks()).hasSize(4);
      assertThat(second.plan(TABLE).tasks()).hasSize(4);
      second.close();
      // past the kept token's expiry: the first planner needs a token again
      this.clock.advance(Duration.ofHours(2));
      assertThat(first.plan(TABLE).tasks()).hasSize(4);
    }
    assertThat(this.catalog.tokenRequests).extracting(request -> request.getHeaders().get("X-Planner"))
        .containsExactly("first", "second", "first");
  }

  private ScanPlanner plannerNamed(String name, OAuth2ClientCredentials filter) {
    return ScanPlanner.builder().uri(this.mock.uri()).maxRetries(0)
        .httpClient(client -> client.headers(headers -> headers.set("X-Planner", name))).filter(filter).build();
  }

  @Test
  void theSecretCanTravelInTheFormAsApacheIcebergsClientsSendIt() {
    planner(credentials().secretInBody(true)).plan(TABLE);

    RecordedRequest tokenRequest = this.catalog.tokenRequests.get(0);
    assertThat(tokenRequest.getBody().utf8()).contains("client_id=planner", "client_secret=" + SECRET);
    assertThat(tokenRequest.getHeaders().get("Authorization")).isNull();
  }

  @Test
  void aKeptTokenIsReplacedBeforeItExpires() {
    this.catalog.expiresIn = 3600;
    ScanPlanner planner = planner(credentials().refreshBefore(Duration.ofMinutes(5)));
    planner.plan(TABLE);
    this.clock.advance(Duration.ofMinutes(54));
    planner.plan(TABLE);
    assertThat(this.catalog.tokenRequests).as("54 minutes into a 60-minute token: kept").hasSize(1);

    this.clock.advance(Duration.ofMinutes(2));
    planner.plan(TABLE);
    assertThat(this.catalog.tokenRequests).as("56 minutes: within 5 minutes of expiry, replaced").hasSize(2);
    assertThat(this.catalog.catalogAuthorizations.get(this.catalog.catalogAuthorizations.size() - 1))
        .isEqualTo("Bearer tok-2");
  }

  @Test
  void aTokenWithoutExpiresInIsKeptForTheDefaultLifetime() {
    this.catalog.expiresIn = null;
    ScanPlanner planner = planner(credentials().defaultLifetime(Duration.ofMinutes(30)));
    planner.plan(TABLE);
    planner.plan(TABLE);
    assertThat(this.catalog.tokenRequests).hasSize(1);

    this.clock.advance(Duration.ofSeconds(29 * 60 + 30));
    planner.plan(TABLE);
    // (every later token also lives 30 minutes from the real now, which this clock is ahead of: no exact count)
    assertThat(this.catalog.tokenRequests).as("within the refresh margin of the default lifetime").hasSizeGreaterThan(1);
    assertThat(this.catalog.catalogAuthorizations.get(this.catalog.catalogAuthorizations.size() - 1))
        .isNotEqualTo("Bearer tok-1");
  }

  @Test
  void aRevokedTokenIsReplacedOnceAndTheSameRequestIsSentAgain() {
    ScanPlanner planner = planner(credentials());
    planner.plan(TABLE);
    this.catalog.accepted.remove("tok-1");

    ScanPlan plan = planner.plan(TABLE);

    assertThat(plan.tasks()).hasSize(4);
    assertThat(this.catalog.tokenRequests).hasSize(2);
    assertThat(this.catalog.rejected.get()).isEqualTo(1);
    List<RecordedRequest> posts = this.catalog.catalogRequests.stream()
        .filter(request -> "POST".equals(request.getMethod())).toList();
    // the second plan's POSTs: the refused submission, the same one resent, then the fetches of h1, h2, h3
    List<RecordedRequest> secondPlan = posts.subList(posts.size() - 5, posts.size());
    RecordedRequest refused = secondPlan.get(0);
    RecordedRequest resent = secondPlan.get(1);
    assertThat(resent.getHeaders().get("Idempotency-Key")).isEqualTo(refused.getHeaders().get("Idempotency-Key"));
    assertThat(refused.getHeaders().get("Authorization")).isEqualTo("Bearer tok-1");
    assertThat(resent.getHeaders().get("Authorization")).isEqualTo("Bearer tok-2");
  }

  @Test
  void requestsRefusedTogetherShareOneTokenRequest() {
    ScanPlanner planner = planner(credentials(), 8);
    this.catalog.planTasks = List.of("g1", "g2", "g3", "g4", "g5", "g6", "g7", "g8");
    this.catalog.revokeAtPlan = true;
    // all eight fetches are refused together, once all have arrived (or after 5 s)
    this.catalog.holdRefusalsUntilFetched = new CountDownLatch(8);

    ScanPlan plan = planner.plan(TABLE);

    assertThat(plan.tasks()).hasSize(9);
    assertThat(this.catalog.rejected.get()).isEqualTo(8);
    assertThat(this.catalog.tokenRequests).as("the first token, then one for all eight refused fetches").hasSize(2);
  }

  @Test
  void aTokenRequestThatNeverAnswersHoldsUpOnlyTheRequestsWaitingForIt() {
    this.catalog.stallFirstToken = true;
    this.mock.server().setDispatcher(this.catalog);
    this.planner = this.mock.planner(this.mock.builder().maxRetries(0)
        .requestTimeout(Duration.ofSeconds(1)).planTimeout(Duration.ofSeconds(5)).filter(credentials().build())
        );

    // the first token request gets no answer: the first plan ends at its request timeout
    assertThatThrownBy(() -> this.planner.plan(TABLE)).isInstanceOf(TransportException.class)
        .hasMessageContaining("request timeout");
    // it was given up with its last waiter, so the next plan asks again
    assertThat(this.planner.plan(TABLE).tasks()).hasSize(4);
    assertThat(this.catalog.tokenRequests).hasSize(2);
  }

  @Test
  void aLateRefusalOfTheOldTokenDoesNotDropItsReplacement() {
    ScanPlanner planner = planner(credentials());
    this.catalog.revokeAtPlan = true;
    // h1's refusal of tok-1 arrives only after h2 was refused, got tok-2 and was accepted with it
    this.catalog.holdRefusalOfH1 = new CountDownLatch(1);

    ScanPlan plan = planner.plan(TABLE);

    assertThat(plan.tasks()).hasSize(4);
    assertThat(this.catalog.rejected.get()).isEqualTo(2);
    assertThat(this.catalog.tokenRequests).as("tok-2 is kept: it is not the token h1 was refused").hasSize(2);
    assertThat(this.catalog.catalogAuthorizations).doesNotContain("Bearer tok-3");
  }

  @ParameterizedTest
  @ValueSource(ints = { 419, 403 })
  void aTokenRefusedWith419OrA403InvalidTokenChallengeIsReplacedLikeA401(int status) {
    ScanPlanner planner = planner(credentials());
    planner.plan(TABLE);
    this.catalog.accepted.remove("tok-1");
    this.catalog.refusalStatus = status;

    assertThat(planner.plan(TABLE).tasks()).hasSize(4);
    assertThat(this.catalog.tokenRequests).hasSize(2);
    assertThat(this.catalog.rejected.get()).isEqualTo(1);
  }

  /** A 403 that does not say the token is invalid is the catalog's refusal of the request: no new token. */
  @Test
  void a403WithoutAnInvalidTokenChallengeIsTheCatalogsAnswer() {
    ScanPlanner planner = planner(credentials());
    planner.plan(TABLE);
    this.catalog.accepted.remove("tok-1");
    this.catalog.refusalStatus = 403;
    this.catalog.challenge = "Bearer error=\"insufficient_scope\"";

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(RestException.class)
        .satisfies(failure -> assertThat(((RestException) failure).statusCode()).isEqualTo(403));
    assertThat(this.catalog.tokenRequests).hasSize(1);
  }

  @Test
  void aSecond401IsTheCatalogsAnswerNotALoop() {
    ScanPlanner planner = planner(credentials());
    planner.plan(TABLE);
    this.catalog.acceptNone = true;

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(RestException.class)
        .satisfies(failure -> assertThat(((RestException) failure).statusCode()).isEqualTo(401))
        .hasMessageNotContaining("tok-");
    assertThat(this.catalog.tokenRequests).hasSize(2);
    assertThat(this.catalog.rejected.get()).isEqualTo(2);
  }

  @Test
  void refusedCredentialsAreAnAuthenticationErrorThatNamesTheEndpointButNotTheSecret() {
    this.catalog.refuseCredentials = true;
    ScanPlanner planner = planner(credentials());

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(AuthenticationException.class)
        .hasMessageContaining("/oauth/token").hasMessageContaining("invalid_client")
        .hasMessageNotContaining(SECRET);
    assertThat(this.catalog.catalogRequests).as("nothing reached the catalog without a token").isEmpty();
    assertThat(this.catalog.tokenRequests).as("refused credentials are not retried").hasSize(1);
  }

  /**
   * Spring Security's description of a token answer it cannot read quotes the answer, which may hold the token: the
   * failure says what broke, and where, in words of its own, and keeps no cause that would quote it.
   */
  @Test
  void anUnreadableTokenAnswerIsAnAuthenticationErrorThatQuotesNothingOfIt() {
    String token = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRET";
    ScanPlanner planner = planner(credentials());
    this.catalog.tokenAnswer = "{\"access_token\":" + token + ",\"token_type\":\"Bearer\"}";
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(AuthenticationException.class)
        .hasMessageEndingWith("/oauth/token: [invalid_token_response] the answer is not valid JSON "
            + "(an unrecognized token) at line 1, column 17")
        .hasMessageNotContaining(token).hasNoCause();

    this.catalog.tokenAnswer = "{\"access_token\":\"" + token + "\",\"token_type\":\"" + token + "\"}";
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(AuthenticationException.class)
        .hasMessageEndingWith("/oauth/token: [invalid_token_response] the answer is not a usable token response: "
            + "its token_type is missing or not usable")
        .hasMessageNotContaining(token).hasNoCause();
    assertThat(this.catalog.catalogRequests).as("nothing reached the catalog without a token").isEmpty();
  }

  /**
   * The description quotes the refused value after the member's name, and a value may itself read as a member's
   * name: the member named first in the description is the one refused, whatever order the members are looked for in.
   */
  @Test
  void aRefusedMemberIsNamedEvenWhenItsValueReadsAsAnotherMember() {
    ScanPlanner planner = planner(credentials());
    this.catalog.tokenAnswer = "{\"access_token\":\"t0k3n\",\"token_type\":\"access_token\"}";
    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(AuthenticationException.class)
        .hasMessageEndingWith("/oauth/token: [invalid_token_response] the answer is not a usable token response: "
            + "its token_type is missing or not usable");
  }

  @Test
  void aFetchThatCannotGetATokenNamesItsHandle() {
    ScanPlanner planner = planner(credentials());
    this.catalog.refuseCredentialsAfterPlan = true; // the token works for config and plan, then it is revoked

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(AuthenticationException.class)
        .satisfies(failure -> assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("h1"));
  }

  @Test
  void aTokenEndpointThatStopsAnsweringIsATransportFailureNamingTheHandle() {
    WebClient tokenClient = WebClient.builder().clientConnector(new ReactorClientHttpConnector(
        HttpClient.create().responseTimeout(Duration.ofMillis(300)))).build();
    ScanPlanner planner = planner(credentials().webClient(tokenClient));
    this.catalog.revokeAtPlan = true;
    this.catalog.stallTokens = true;

    assertThatThrownBy(() -> planner.plan(TABLE)).isInstanceOf(TransportException.class)
        .hasMessageContaining("POST " + this.mock.server().url("/oauth/token") + " failed: no response")
        .satisfies(failure -> assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("h1"));
  }

  @Test
  void incompleteRegistrationsAreRefusedWhenBuilt() {
    assertThatThrownBy(() -> OAuth2ClientCredentials.builder().tokenUri("http://idp/token").clientId("c").build())
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("clientSecret");
    assertThatThrownBy(() -> OAuth2ClientCredentials.builder().tokenUri("file:///etc/passwd").clientId("c")
        .clientSecret("s").build()).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("http(s)");
    assertThat(OAuth2ClientCredentials.builder().tokenUri("https://user:pw@idp/token").clientId("c")
        .clientSecret(SECRET).build().toString()).isEqualTo("OAuth2ClientCredentials[tokenUri=https://******@idp/token]");
    assertThatThrownBy(() -> OAuth2ClientCredentials.builder().defaultLifetime(Duration.ofSeconds(1)))
        .as("Spring Security's own reading of a missing expires_in").isInstanceOf(IllegalArgumentException.class);
    assertThat(OAuth2ClientCredentials.builder().defaultLifetime(Duration.ofMillis(1001))).isNotNull();
  }

  /** A token endpoint and a catalog that accepts only the tokens it issued and has not revoked. */
  private static final class TokenAndCatalog extends Dispatcher {

    final List<RecordedRequest> tokenRequests = new CopyOnWriteArrayList<>();
    final List<RecordedRequest> catalogRequests = new CopyOnWriteArrayList<>();
    final List<String> catalogAuthorizations = new CopyOnWriteArrayList<>();
    final Set<String> accepted = ConcurrentHashMap.newKeySet();
    final AtomicInteger rejected = new AtomicInteger();
    final AtomicInteger issued = new AtomicInteger();
    volatile Integer expiresIn = 3600;
    private final MutableClock clock;

    TokenAndCatalog(MutableClock clock) {
      this.clock = clock;
    }
    volatile boolean refuseCredentials;
    volatile boolean refuseCredentialsAfterPlan;
    volatile boolean acceptNone;
    volatile List<String> planTasks = List.of("h1", "h2");
    /** Revokes every token issued so far when the plan is answered. */
    volatile boolean revokeAtPlan;
    /** Once a first token was issued, token requests get no answer for 10 s. */
    volatile boolean stallTokens;
    /** The first token request gets no answer for 10 s. */
    volatile boolean stallFirstToken;
    volatile int refusalStatus = 401;
    /** What the token endpoint answers in place of a token. */
    volatile @Nullable String tokenAnswer;
    volatile String challenge = "Bearer error=\"invalid_token\"";
    volatile @Nullable CountDownLatch holdRefusalsUntilFetched;
    volatile @Nullable CountDownLatch holdRefusalOfH1;

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String path = request.getUrl().encodedPath();
      if (path.equals("/oauth/token")) {
        this.tokenRequests.add(request);
        if (this.stallTokens && this.issued.get() > 0 || this.stallFirstToken && this.tokenRequests.size() == 1) {
          return new MockResponse.Builder().headersDelay(10, TimeUnit.SECONDS).body("{}").build();
        }
        if (this.refuseCredentials) {
          return new MockResponse.Builder().code(401).setHeader("Content-Type", "application/json")
              .body("{\"error\":\"invalid_client\",\"error_description\":\"unknown client\"}").build();
        }
        String answer = this.tokenAnswer;
        if (answer != null) {
          return new MockResponse.Builder().setHeader("Content-Type", "application/json").body(answer).build();
        }
        String token = "tok-" + this.issued.incrementAndGet();
        this.accepted.add(token);
        return new MockResponse.Builder().setHeader("Content-Type", "application/json")
            .body("{\"access_token\":\"" + token + "\",\"token_type\":\"Bearer\""
                // valid expiresIn seconds from the test clock's now (the client adds it to the real now)
                + (this.expiresIn != null ? ",\"expires_in\":" + (this.expiresIn + this.clock.offsetSeconds()) : "")
                + "}")
            .build();
      }
      this.catalogRequests.add(request);
      String authorization = request.getHeaders().get("Authorization");
      this.catalogAuthorizations.add(String.valueOf(authorization));
      String body = request.getBody() == null ? "" : request.getBody().utf8();
      CountDownLatch fetched = this.holdRefusalsUntilFetched;
      if (fetched != null && path.endsWith("/tasks")) {
        fetched.countDown();
      }
      if (this.acceptNone || authorization == null || !this.accepted.contains(authorization.substring(7))) {
        this.rejected.incrementAndGet();
        if (fetched != null) {
          await(fetched);
        }
        CountDownLatch replacementAccepted = this.holdRefusalOfH1;
        if (replacementAccepted != null && body.contains("\"h1\"")) {
          await(replacementAccepted);
        }
        return new MockResponse.Builder().code(this.refusalStatus).setHeader("Content-Type", "application/json")
            .setHeader("WWW-Authenticate", this.challenge)
            .body("{\"error\":{\"message\":\"token expired\",\"type\":\"NotAuthorizedException\",\"code\":"
                + this.refusalStatus + "}}")
            .build();
      }
      CountDownLatch replacementAccepted = this.holdRefusalOfH1;
      if (replacementAccepted != null && !authorization.equals("Bearer tok-1")) {
        replacementAccepted.countDown();
      }
      if (path.equals("/v1/config")) {
        return json(ALL_ENDPOINTS);
      }
      if (path.endsWith("/plan")) {
        if (this.refuseCredentialsAfterPlan) {
          this.accepted.clear();
          this.refuseCredentials = true;
        }
        if (this.revokeAtPlan) {
          this.accepted.clear();
        }
        return json(ScriptedCatalog.completed("p", List.of("a"), this.planTasks));
      }
      return json(body.contains("\"h1\"")
          ? ScriptedCatalog.scanTasksJson(List.of("b"), List.of("h3"))
          : ScriptedCatalog.scanTasksJson(List.of(body.contains("\"h2\"") ? "c" : "d"), List.of()));
    }

    /** A bounded wait on the server's side: the fault being staged is an answer that comes late. */
    private static void await(CountDownLatch latch) {
      try {
        latch.await(5, TimeUnit.SECONDS);
      }
      catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
    }

    private static MockResponse json(String body) {
      return new MockResponse.Builder().setHeader("Content-Type", "application/json").body(body).build();
    }
  }

  /** A clock the test moves forward: token expiry is decided against it. */
  private static final class MutableClock extends Clock {

    private final AtomicReference<Duration> offset = new AtomicReference<>(Duration.ZERO);

    void advance(Duration duration) {
      this.offset.updateAndGet(offset -> offset.plus(duration));
    }

    long offsetSeconds() {
      return this.offset.get().toSeconds();
    }

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(this.offset.get());
    }
  }
}
