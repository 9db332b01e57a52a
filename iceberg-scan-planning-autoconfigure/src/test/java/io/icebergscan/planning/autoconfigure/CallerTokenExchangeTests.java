package io.icebergscan.planning.autoconfigure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2Token;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The exchange of callers' tokens for catalog tokens, against an identity provider: one exchange per caller, shared by
 * the requests that need it at once, kept until shortly before it expires, for the most recently active callers;
 * dropped when the catalog refuses it; refusals typed and quoting no token.
 */
class CallerTokenExchangeTests {

  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final OAuth2Token ALICE = token("alice-token-0f3c");
  private static final OAuth2Token BOB = token("bob-token-77a1");
  private static final OAuth2Token CAROL = token("carol-token-1b9e");

  @StartStop
  private final MockWebServer server = new MockWebServer();

  private final IdentityProvider idp = new IdentityProvider().subjectTokenType(IdentityProvider.ACCESS_TOKEN_TYPE)
      .subject(ALICE.getTokenValue(), "alice").subject(BOB.getTokenValue(), "bob")
      .subject(CAROL.getTokenValue(), "carol");

  private final MutableClock clock = new MutableClock(Instant.now());

  @BeforeEach
  void serve() {
    this.server.setDispatcher(this.idp);
  }

  private static OAuth2Token token(String value) {
    return new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, value, Instant.now(),
        Instant.now().plus(Duration.ofHours(1)));
  }

  private CallerTokenExchange exchange(int cacheSize) {
    return exchange(cacheSize, this.server.url("/token").toString());
  }

  private CallerTokenExchange exchange(int cacheSize, String exchangeUri) {
    WebClient client = WebClient.create();
    OAuth2ClientCredentials service = OAuth2ClientCredentials.builder()
        .tokenUri(this.server.url("/token").toString()).clientId(IdentityProvider.CLIENT_ID)
        .clientSecret(IdentityProvider.CLIENT_SECRET).webClient(client).build();
    TokenExchangeGrant grant = new TokenExchangeGrant(exchangeUri, IdentityProvider.CLIENT_ID,
        IdentityProvider.CLIENT_SECRET, false, List.of(), CallerTokenExchange.DEFAULT_REQUESTED_TOKEN_TYPE, null,
        client);
    return new CallerTokenExchange(grant, service, CallerTokenExchange.DEFAULT_REFRESH_BEFORE, Duration.ofHours(1),
        cacheSize, this.clock);
  }

  private static String authorization(CallerTokenExchange exchange, OAuth2Token subject) {
    return exchange.credentials(subject).authorization().block(BOUND);
  }

  @Test
  void theRequestsOfOneCallerThatNeedATokenAtOnceShareOneExchange() throws Exception {
    CallerTokenExchange exchange = exchange(10);
    CountDownLatch release = new CountDownLatch(1);
    this.idp.hold(release);
    List<CompletableFuture<String>> requests = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      // a fresh credentials per request, as the callers make one per call
      requests.add(exchange.credentials(ALICE).authorization().toFuture());
    }
    await().atMost(BOUND).until(() -> this.idp.exchanges.size() == 1);
    release.countDown();

    for (CompletableFuture<String> request : requests) {
      assertThat(request.get(10, TimeUnit.SECONDS)).isEqualTo("Bearer catalog-alice-1");
    }
    assertThat(this.idp.exchangesOf("alice")).isOne();
    assertThat(this.idp.serviceTokens.get()).as("the actor's own token, obtained once").isOne();
    assertThat(exchange.statistics()).isEqualTo(new CallerTokenExchange.Statistics(8, 1, 1, 0, 0, 0, 1));
    assertThat(exchange.statistics().hits()).isEqualTo(7);
    assertThat(this.idp.violations).isEmpty();
  }

  @Test
  void eachCallerHasAnExchangeOfItsOwnAndKeepsItsToken() {
    CallerTokenExchange exchange = exchange(10);
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-1");
    assertThat(authorization(exchange, BOB)).isEqualTo("Bearer catalog-bob-1");
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-1");

    assertThat(this.idp.exchanges).extracting(form -> form.get("subject_token"))
        .containsExactly(ALICE.getTokenValue(), BOB.getTokenValue());
    assertThat(exchange.statistics().hitRate()).isEqualTo(1.0 / 3);
    assertThat(this.idp.violations).isEmpty();
  }

  /**
   * A token is exchanged anew 60 seconds (refresh-before) before its expiry: one of 600 seconds is kept at 500 seconds
   * and replaced at 560; one whose answer has no expires_in lives the default hour.
   */
  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{\"access_token\":\"%s\",\"token_type\":\"Bearer\",\"expires_in\":600} | PT500S | PT560S",
      "{\"access_token\":\"%s\",\"token_type\":\"Bearer\"}                     | PT30M  | PT61M" })
  void aTokenIsExchangedAnewRefreshBeforeItsExpiry(String answer, Duration kept, Duration replaced) {
    this.idp.answer(answer);
    CallerTokenExchange exchange = exchange(10);
    Instant start = this.clock.instant();
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-1");
    this.clock.set(start.plus(kept));
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-1");
    this.clock.set(start.plus(replaced));
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-2");
    assertThat(this.idp.exchangesOf("alice")).isEqualTo(2);
  }

  @Test
  void theLeastRecentlyActiveCallerBeyondTheCacheSizeIsExchangedAnew() {
    CallerTokenExchange exchange = exchange(2);
    authorization(exchange, ALICE);
    authorization(exchange, BOB);
    authorization(exchange, ALICE);
    // carol's token pushes out bob's, the least recently used; alice's stays
    authorization(exchange, CAROL);
    assertThat(authorization(exchange, ALICE)).isEqualTo("Bearer catalog-alice-1");
    assertThat(authorization(exchange, BOB)).isEqualTo("Bearer catalog-bob-2");

    assertThat(this.idp.exchangesOf("alice")).isOne();
    assertThat(this.idp.exchangesOf("carol")).isOne();
    assertThat(exchange.statistics().cached()).isEqualTo(2);
  }

  @Test
  void aTokenTheCatalogRefusedIsDroppedUnlessItWasReplacedMeanwhile() {
    CallerTokenExchange exchange = exchange(10);
    CatalogCredentials alice = exchange.credentials(ALICE);
    assertThat(alice.authorization().block(BOUND)).isEqualTo("Bearer catalog-alice-1");

    assertThat(alice.refused("Bearer catalog-alice-1")).as("worth sending once more").isTrue();
    assertThat(alice.authorization().block(BOUND)).isEqualTo("Bearer catalog-alice-2");
    // a late refusal of the old token, from a request that was sent with it before: the new one stays
    assertThat(alice.refused("Bearer catalog-alice-1")).isTrue();
    assertThat(exchange.credentials(ALICE).authorization().block(BOUND)).isEqualTo("Bearer catalog-alice-2");

    assertThat(this.idp.exchangesOf("alice")).isEqualTo(2);
    assertThat(exchange.statistics().catalogRefusals()).isEqualTo(2);
  }

  @Test
  void aCallersPrincipalIsADigestOfItsTokenAndNothingShowsTheToken() {
    CallerTokenExchange exchange = exchange(10);
    CatalogCredentials alice = exchange.credentials(ALICE);
    assertThat(alice.principal()).isEqualTo("exchange:" + CatalogCredentials.digest(ALICE.getTokenValue()))
        .isEqualTo(exchange.credentials(token(ALICE.getTokenValue())).principal())
        .isNotEqualTo(exchange.credentials(BOB).principal());
    assertThat(alice).hasToString("CatalogCredentials.exchange[" + alice.principal() + "]");
    assertThat(exchange.toString()).doesNotContain(IdentityProvider.CLIENT_SECRET)
        .contains(IdentityProvider.CLIENT_ID);
  }

  @Test
  void anExchangeTheProviderRefusesIsTypedAndQuotesNoToken() throws Exception {
    this.idp.refuse(ALICE.getTokenValue());
    String uri = this.server.url("/token").toString().replace("://", "://idp-user:idp-password@");
    CallerTokenExchange exchange = exchange(10, uri);

    Throwable failure = catchThrowable(() -> authorization(exchange, ALICE));

    assertThat(failure).isInstanceOf(TokenExchangeException.class);
    TokenExchangeException refused = (TokenExchangeException) failure;
    assertThat(refused.errorCode()).isEqualTo("invalid_grant");
    assertThat(refused.callersTokenRefused()).isTrue();
    assertThat(refused.getMessage()).contains(IdentityProvider.GRANT, "invalid_grant",
        this.server.url("/token").toString().replace("://", "://******@"));
    assertQuotesNoSecret(refused);
    assertThat(exchange.statistics().exchangesRefused()).isOne();
    // not kept: the next request exchanges again
    authorization(exchange, BOB);
    assertThat(catchThrowable(() -> authorization(exchange, ALICE))).isInstanceOf(TokenExchangeException.class);
    assertThat(this.idp.exchanges).hasSize(3);
  }

  @Test
  void aRefusalOfTheServicesOwnClientIsNotTheCallers() {
    this.server.setDispatcher(new Dispatcher() {

      @Override
      public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
        return request.getBody().utf8().contains("client_credentials") ? CallerTokenExchangeTests.this.idp
            .dispatch(request) : json(401, "{\"error\":\"invalid_client\",\"error_description\":\"client "
                + IdentityProvider.CLIENT_SECRET + " unknown\"}");
      }
    });
    TokenExchangeException refused = (TokenExchangeException) catchThrowable(() -> authorization(exchange(10),
        ALICE));
    assertThat(refused.errorCode()).isEqualTo("invalid_client");
    assertThat(refused.callersTokenRefused()).isFalse();
    assertQuotesNoSecret(refused);
  }

  @Test
  void anAnswerWithNoUsableTokenIsRefusedWithoutQuotingIt() {
    for (String answer : List.of("{\"token_type\":\"Bearer\",\"note\":\"%s\"}", "<html>%s</html>")) {
      this.idp.answer(answer);
      TokenExchangeException refused = (TokenExchangeException) catchThrowable(() -> authorization(exchange(10),
          ALICE));
      // Spring Security reads an answer without an access token as an error answer without a code: server_error
      assertThat(refused.errorCode()).as(answer).isIn("invalid_token_response", "server_error");
      assertThat(refused.callersTokenRefused()).isFalse();
      assertThat(refused.getMessage()).as(answer).doesNotContain("catalog-alice");
      assertQuotesNoSecret(refused);
    }
  }

  @Test
  void aTokenNoHeaderCanCarryIsRefusedRatherThanSent() {
    this.idp.answer("{\"access_token\":\"%s\\r\\nX-Injected: yes\",\"token_type\":\"Bearer\",\"expires_in\":60}");
    TokenExchangeException refused = (TokenExchangeException) catchThrowable(() -> authorization(exchange(10),
        ALICE));
    assertThat(refused.errorCode()).isEqualTo("invalid_token_response");
    assertThat(refused.getMessage()).contains("no Authorization header can carry").doesNotContain("catalog-alice")
        .doesNotContain("Injected");
    assertQuotesNoSecret(refused);
  }

  @Test
  void aTokenEndpointThatCannotBeReachedIsATransportFailure() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    CallerTokenExchange exchange = exchange(10, "http://idp-user:idp-password@127.0.0.1:" + closed + "/token");
    Throwable failure = catchThrowable(() -> authorization(exchange, ALICE));
    assertThat(failure).isInstanceOf(TransportException.class)
        .hasMessageContaining("http://******@127.0.0.1:" + closed + "/token").hasMessageNotContaining("idp-password");
    assertThat(exchange.statistics().exchangesFailed()).isOne();
  }

  /** Neither the message nor the stack trace, causes included, quotes a token, the secret or the description. */
  private void assertQuotesNoSecret(Throwable failure) {
    StringWriter printed = new StringWriter();
    failure.printStackTrace(new PrintWriter(printed));
    for (String text : List.of(String.valueOf(failure.getMessage()), printed.toString())) {
      assertThat(text).doesNotContain(ALICE.getTokenValue()).doesNotContain("service-token")
          .doesNotContain(IdentityProvider.CLIENT_SECRET).doesNotContain("may not be exchanged")
          .doesNotContain("idp-password");
    }
  }

  private static MockResponse json(int status, String body) {
    return new MockResponse.Builder().code(status).setHeader("Content-Type", "application/json").body(body).build();
  }

  /** A clock the test moves. */
  private static final class MutableClock extends Clock {

    private final AtomicReference<Instant> now;

    MutableClock(Instant now) {
      this.now = new AtomicReference<>(now);
    }

    void set(Instant instant) {
      this.now.set(instant);
    }

    @Override
    public Instant instant() {
      return this.now.get();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }
}
