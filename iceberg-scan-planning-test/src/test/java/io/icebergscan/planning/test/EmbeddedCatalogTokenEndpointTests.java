package io.icebergscan.planning.test;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.rest.RESTCatalog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.HttpHeaders;
import org.springframework.http.converter.FormHttpMessageConverter;
import org.springframework.security.oauth2.client.endpoint.DefaultOAuth2TokenRequestHeadersConverter;
import org.springframework.security.oauth2.client.endpoint.OAuth2ClientCredentialsGrantRequest;
import org.springframework.security.oauth2.client.endpoint.RestClientClientCredentialsTokenResponseClient;
import org.springframework.security.oauth2.client.endpoint.TokenExchangeGrantRequest;
import org.springframework.security.oauth2.client.http.OAuth2ErrorResponseErrorHandler;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.security.oauth2.core.endpoint.OAuth2ParameterNames;
import org.springframework.security.oauth2.core.http.converter.OAuth2AccessTokenResponseHttpMessageConverter;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.client.RestClient;

import static io.icebergscan.planning.test.EmbeddedCatalogPrincipalsTests.EVENTS;
import static io.icebergscan.planning.test.EmbeddedCatalogPrincipalsTests.EVENTS_PATH;
import static io.icebergscan.planning.test.EmbeddedCatalogPrincipalsTests.SECRET;
import static io.icebergscan.planning.test.EmbeddedCatalogPrincipalsTests.SECRET_PATH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * The embedded catalog's token endpoint while it has principals: client credentials and token exchange (RFC 8693),
 * the OAuth2 refusals, issued tokens' expiry, and the counts; over plain HTTP, and with Spring Security's and
 * Iceberg's own clients.
 */
class EmbeddedCatalogTokenEndpointTests {

  static final String TOKENS = "/v1/oauth/tokens";
  static final String CLIENT_CREDENTIALS = "client_credentials";
  static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
  static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
  static final String JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";
  /** A secret with characters that HTTP Basic credentials are form-encoded for. */
  static final String ALICE_SECRET = "s3cret +/=&%:";
  static final String ALICES_JWT = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.";
  static final Instant START = Instant.parse("2026-01-01T00:00:00Z");

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();
  private RawHttp http;

  @BeforeEach
  void start() {
    this.catalog.start();
    this.catalog.createTable(EVENTS, Tables.SCHEMA).appendDataFiles(1);
    this.catalog.createTable(SECRET, Tables.SCHEMA).appendDataFiles(1);
    this.http = new RawHttp(this.catalog);
  }

  @AfterEach
  void close() {
    this.catalog.close();
  }

  /** Alice may use the events table only, with a client and a token to exchange; the planner service any table. */
  private void aliceAndTheService() {
    this.catalog.principal("alice").grant("alice", EVENTS).clientCredentials("alice", "alice-client", ALICE_SECRET)
        .tokenExchange(ALICES_JWT, "alice").principal("planner", "planner-token")
        .clientCredentials("planner", "planner-client", "planner-secret");
  }

  @Test
  void clientCredentialsWithBasicOrInTheBodyIssueANewTokenOfThePrincipalEachTime() {
    aliceAndTheService();

    JsonNode basic = this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", basic("alice-client", ALICE_SECRET)).json();
    JsonNode again = this.http.postForm(TOKENS, "grant_type=client_credentials&scope=catalog",
        "Authorization", basic("alice-client", ALICE_SECRET)).json();
    JsonNode inTheBody = this.http.postForm(TOKENS, "grant_type=client_credentials&client_id=alice-client"
        + "&client_secret=" + URLEncoder.encode(ALICE_SECRET, StandardCharsets.UTF_8)).json();

    assertThat(basic.path("token_type").asText()).isEqualTo("Bearer");
    assertThat(basic.path("expires_in").asLong()).isEqualTo(3600);
    assertThat(basic.has("issued_token_type")).isFalse();
    String token = basic.path("access_token").asText();
    assertThat(token).isNotBlank().isNotEqualTo(again.path("access_token").asText())
        .isNotEqualTo(inTheBody.path("access_token").asText());
    assertIsAlices(token);
    assertIsAlices(inTheBody.path("access_token").asText());
    assertThat(this.catalog.tokenRequests(CLIENT_CREDENTIALS)).isEqualTo(3);
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isZero();
  }

  @Test
  void aWrongSecretAnUnknownClientOrNoClientAuthenticationIsInvalidClient() {
    aliceAndTheService();

    RawHttp.Response wrongBasic = this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", basic("alice-client", "guess"));
    assertOAuthError(wrongBasic, 401, "invalid_client");
    assertThat(wrongBasic.body()).doesNotContain("guess");
    assertOAuthError(this.http.postForm(TOKENS,
        "grant_type=client_credentials&client_id=alice-client&client_secret=guess"), 401, "invalid_client");
    assertOAuthError(this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", basic("mallory", ALICE_SECRET)), 401, "invalid_client");
    assertOAuthError(this.http.postForm(TOKENS, "grant_type=client_credentials&client_id=alice-client"), 401,
        "invalid_client");
    assertOAuthError(this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", "Basic not-base64"), 401, "invalid_client");
    assertOAuthError(this.http.postForm(TOKENS, "grant_type=refresh_token&refresh_token=r"), 400,
        "unsupported_grant_type");
    assertOAuthError(this.http.postForm(TOKENS, "client_id=alice-client"), 400, "invalid_request");
    assertThat(this.catalog.tokenRequests(CLIENT_CREDENTIALS)).as("refusals are not counted").isZero();
  }

  @Test
  void withoutPrincipalsIcebergsAdapterIssuesATokenForAnyClientCredentials() {
    RawHttp.Response answer = this.http.postForm(TOKENS,
        "grant_type=client_credentials&client_id=anyone&client_secret=anything");

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.json().path("access_token").asText()).contains("anyone");
    assertThat(this.catalog.tokenRequests(CLIENT_CREDENTIALS)).isZero();
  }

  @Test
  void springSecuritysClientCredentialsClientGetsATokenWithBasicAuthentication() {
    aliceAndTheService();
    ClientRegistration registration = ClientRegistration.withRegistrationId("catalog")
        .tokenUri(this.catalog.uri() + TOKENS).clientId("alice-client").clientSecret(ALICE_SECRET)
        .clientAuthenticationMethod(ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
        .authorizationGrantType(AuthorizationGrantType.CLIENT_CREDENTIALS).build();

    OAuth2AccessTokenResponse response = new RestClientClientCredentialsTokenResponseClient()
        .getTokenResponse(new OAuth2ClientCredentialsGrantRequest(registration));

    assertThat(response.getAccessToken().getTokenType()).isEqualTo(OAuth2AccessToken.TokenType.BEARER);
    assertIsAlices(response.getAccessToken().getTokenValue());
  }

  @Test
  void icebergsOwnClientAuthenticatesWithClientCredentialsAsThePrincipal() throws IOException {
    aliceAndTheService();

    try (RESTCatalog client = new RESTCatalog()) {
      client.initialize("alice", Map.of("uri", this.catalog.uri(), "credential", "alice-client:" + ALICE_SECRET));
      assertThat(client.loadTable(EVENTS).name()).endsWith("events");
      assertThatExceptionOfType(ForbiddenException.class).isThrownBy(() -> client.loadTable(SECRET))
          .withMessageContaining("db.secret");
    }
    assertThat(this.catalog.tokenRequests(CLIENT_CREDENTIALS)).isEqualTo(1);
  }

  @Test
  void aSubjectTokenIsExchangedForANewTokenOfItsPrincipalWithTheServicesTokenAsActor() {
    aliceAndTheService();

    JsonNode jwt = exchange(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token").json();
    JsonNode asAccessToken = this.http.postForm(TOKENS, exchangeForm(ALICES_JWT, ACCESS_TOKEN_TYPE, "planner-token")
        + "&requested_token_type=" + ACCESS_TOKEN_TYPE, "Authorization", basic("planner-client", "planner-secret"))
        .json();

    assertThat(jwt.path("issued_token_type").asText()).isEqualTo(ACCESS_TOKEN_TYPE);
    assertThat(jwt.path("token_type").asText()).isEqualTo("Bearer");
    assertThat(jwt.path("expires_in").asLong()).isEqualTo(3600);
    assertThat(jwt.path("access_token").asText()).isNotEqualTo(asAccessToken.path("access_token").asText());
    assertIsAlices(jwt.path("access_token").asText());
    assertIsAlices(asAccessToken.path("access_token").asText());
    // an issued token acts as well as a given one
    String issued = this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", basic("planner-client", "planner-secret")).json().path("access_token").asText();
    assertIsAlices(exchange(ALICES_JWT, JWT_TOKEN_TYPE, issued).json().path("access_token").asText());
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isEqualTo(3);
    assertThat(this.catalog.tokenRequests(CLIENT_CREDENTIALS)).isEqualTo(1);
  }

  @Test
  void anUnknownSubjectIsAnInvalidGrantThatDoesNotQuoteIt() {
    aliceAndTheService();

    RawHttp.Response unknown = exchange("someone-elses-jwt", JWT_TOKEN_TYPE, "planner-token");

    assertOAuthError(unknown, 400, "invalid_grant");
    assertThat(unknown.json().path("error_description").asText()).contains("subject_token");
    assertThat(unknown.body()).doesNotContain("someone-elses-jwt");
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isZero();
  }

  @Test
  void anExchangeWithoutAValidActorOrWithAWrongClientIsRefused() {
    aliceAndTheService();

    RawHttp.Response noActor = this.http.postForm(TOKENS, "grant_type=" + TOKEN_EXCHANGE + "&subject_token="
        + ALICES_JWT + "&subject_token_type=" + JWT_TOKEN_TYPE);
    assertOAuthError(noActor, 400, "invalid_request");
    assertThat(noActor.json().path("error_description").asText()).contains("actor_token");
    RawHttp.Response unknownActor = exchange(ALICES_JWT, JWT_TOKEN_TYPE, "forged-token");
    assertOAuthError(unknownActor, 400, "invalid_request");
    assertThat(unknownActor.body()).doesNotContain("forged-token").doesNotContain(ALICES_JWT);
    assertOAuthError(this.http.postForm(TOKENS, exchangeForm(ALICES_JWT, ACCESS_TOKEN_TYPE, "planner-token")
        .replace("&actor_token_type=" + ACCESS_TOKEN_TYPE, "")), 400, "invalid_request");
    assertOAuthError(exchange(ALICES_JWT, "urn:ietf:params:oauth:token-type:saml2", "planner-token"), 400,
        "invalid_request");
    assertOAuthError(this.http.postForm(TOKENS, exchangeForm(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token"),
        "Authorization", basic("planner-client", "guess")), 401, "invalid_client");
    assertOAuthError(this.http.postForm(TOKENS, exchangeForm(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token")
        + "&client_id=planner-client&client_secret=guess"), 401, "invalid_client");
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isZero();
  }

  /**
   * Spring Security's token exchange, as far as it runs on this class path: its {@code RestClientTokenExchange…} and
   * {@code WebClientReactiveTokenExchangeTokenResponseClient} build the body with
   * {@code TokenExchangeGrantRequest.defaultParameters}, which asks whether each token is a
   * {@code org.springframework.security.oauth2.jwt.Jwt}, a class of spring-security-oauth2-jose, which an application
   * doing token exchange has and this module's tests do not. So the body is built here as that method builds it for
   * access tokens and a {@code client_secret_basic} client, and everything else is Spring's own: the grant request,
   * the headers converter (HTTP Basic with the form-encoded id and secret), and a {@code RestClient} set up as the
   * response clients set theirs up, whose converter reads the token answer and whose error handler reads the
   * refusals.
   */
  @Test
  void springSecuritysTokenExchangeRequestGetsATokenAndItsErrorHandlerReadsTheRefusals() {
    aliceAndTheService();
    ClientRegistration registration = ClientRegistration.withRegistrationId("catalog")
        .tokenUri(this.catalog.uri() + TOKENS).clientId("planner-client").clientSecret("planner-secret")
        .authorizationGrantType(AuthorizationGrantType.TOKEN_EXCHANGE).build();
    OAuth2AccessToken actor = bearer("planner-token");

    OAuth2AccessTokenResponse response = springTokenExchange(
        new TokenExchangeGrantRequest(registration, bearer(ALICES_JWT), actor));

    assertThat(response.getAccessToken().getTokenType()).isEqualTo(OAuth2AccessToken.TokenType.BEARER);
    assertThat(response.getAccessToken().getExpiresAt()).isNotNull();
    assertThat(response.getAdditionalParameters()).containsEntry("issued_token_type", ACCESS_TOKEN_TYPE);
    assertIsAlices(response.getAccessToken().getTokenValue());
    assertThatExceptionOfType(OAuth2AuthorizationException.class)
        .isThrownBy(() -> springTokenExchange(new TokenExchangeGrantRequest(registration, bearer("unknown-jwt"),
            actor)))
        .satisfies(refused -> assertThat(refused.getError().getErrorCode()).isEqualTo("invalid_grant"));
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isEqualTo(1);
  }

  /** What Spring Security's {@code RestClientTokenExchangeTokenResponseClient} does with the grant request. */
  private static OAuth2AccessTokenResponse springTokenExchange(TokenExchangeGrantRequest grant) {
    RestClient restClient = RestClient.builder()
        .configureMessageConverters(converters -> converters.addCustomConverter(new FormHttpMessageConverter())
            .addCustomConverter(new OAuth2AccessTokenResponseHttpMessageConverter()))
        .defaultStatusHandler(new OAuth2ErrorResponseErrorHandler()).build();
    HttpHeaders headers = new DefaultOAuth2TokenRequestHeadersConverter<TokenExchangeGrantRequest>().convert(grant);
    // TokenExchangeGrantRequest.defaultParameters, for tokens that are not JWTs and a client_secret_basic client
    MultiValueMap<String, String> parameters = new LinkedMultiValueMap<>();
    parameters.set(OAuth2ParameterNames.GRANT_TYPE, grant.getGrantType().getValue());
    parameters.set(OAuth2ParameterNames.REQUESTED_TOKEN_TYPE, ACCESS_TOKEN_TYPE);
    parameters.set(OAuth2ParameterNames.SUBJECT_TOKEN, grant.getSubjectToken().getTokenValue());
    parameters.set(OAuth2ParameterNames.SUBJECT_TOKEN_TYPE, ACCESS_TOKEN_TYPE);
    parameters.set(OAuth2ParameterNames.ACTOR_TOKEN, grant.getActorToken().getTokenValue());
    parameters.set(OAuth2ParameterNames.ACTOR_TOKEN_TYPE, ACCESS_TOKEN_TYPE);
    return restClient.post().uri(grant.getClientRegistration().getProviderDetails().getTokenUri())
        .headers(sent -> sent.addAll(headers)).body(parameters).retrieve().body(OAuth2AccessTokenResponse.class);
  }

  @Test
  void issuedTokensExpireAfterTheirLifetimeOnTheCatalogsClock() {
    aliceAndTheService();
    this.catalog.clock(Clock.fixed(START, ZoneOffset.UTC)).issuedTokenLifetime(Duration.ofMinutes(10));
    JsonNode issued = this.http.postForm(TOKENS, "grant_type=client_credentials",
        "Authorization", basic("planner-client", "planner-secret")).json();
    String token = issued.path("access_token").asText();
    assertThat(issued.path("expires_in").asLong()).isEqualTo(600);

    this.catalog.clock(Clock.fixed(START.plus(Duration.ofMinutes(10)).minusMillis(1), ZoneOffset.UTC));
    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer " + token).status()).isEqualTo(200);

    this.catalog.clock(Clock.fixed(START.plus(Duration.ofMinutes(10)), ZoneOffset.UTC));
    RawHttp.Response expired = this.http.get(EVENTS_PATH, "Authorization", "Bearer " + token);
    assertThat(expired.status()).isEqualTo(401);
    assertThat(expired.json().path("error").path("type").asText()).isEqualTo("NotAuthorizedException");
    assertThat(expired.body()).doesNotContain(token);
    assertOAuthError(exchange(ALICES_JWT, JWT_TOKEN_TYPE, token), 400, "invalid_request");
    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer planner-token").status())
        .as("a given token does not expire").isEqualTo(200);
  }

  @Test
  void expireTokenRefusesAnIssuedOrAGivenTokenAtOnce() {
    aliceAndTheService();
    String issued = exchange(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token").json().path("access_token").asText();
    String other = exchange(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token").json().path("access_token").asText();
    assertIsAlices(issued);

    this.catalog.expireToken(issued).expireToken("planner-token");

    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer " + issued).status()).isEqualTo(401);
    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer planner-token").status()).isEqualTo(401);
    assertIsAlices(other);
    assertThatIllegalArgumentException().isThrownBy(() -> this.catalog.expireToken("never-issued"))
        .withMessageNotContaining("never-issued");
  }

  @Test
  void theCountsStartAgainWithTheRequestCounts() {
    aliceAndTheService();
    exchange(ALICES_JWT, JWT_TOKEN_TYPE, "planner-token");
    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isEqualTo(1);

    this.catalog.resetRequestCounts();

    assertThat(this.catalog.tokenRequests(TOKEN_EXCHANGE)).isZero();
    assertThat(this.catalog.tokenRequests("password")).isZero();
  }

  /** The token is alice's: it loads the table she was granted and no other. */
  private void assertIsAlices(String token) {
    assertThat(this.http.get(EVENTS_PATH, "Authorization", "Bearer " + token).status()).isEqualTo(200);
    assertThat(this.http.get(SECRET_PATH, "Authorization", "Bearer " + token).status()).isEqualTo(403);
  }

  private RawHttp.Response exchange(String subjectToken, String subjectTokenType, String actorToken) {
    return this.http.postForm(TOKENS, exchangeForm(subjectToken, subjectTokenType, actorToken));
  }

  private static String exchangeForm(String subjectToken, String subjectTokenType, String actorToken) {
    return "grant_type=" + TOKEN_EXCHANGE + "&subject_token=" + subjectToken + "&subject_token_type="
        + subjectTokenType + "&actor_token=" + actorToken + "&actor_token_type=" + ACCESS_TOKEN_TYPE;
  }

  /** HTTP Basic credentials as RFC 6749 section 2.3.1 wants them: id and secret form-encoded first. */
  private static String basic(String clientId, String clientSecret) {
    String credentials = URLEncoder.encode(clientId, StandardCharsets.UTF_8) + ":"
        + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8);
    return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
  }

  private static OAuth2AccessToken bearer(String token) {
    return new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, token, START, START.plus(Duration.ofHours(1)));
  }

  private static void assertOAuthError(RawHttp.Response refused, int status, String error) {
    assertThat(refused.status()).isEqualTo(status);
    assertThat(refused.json().path("error").asText()).isEqualTo(error);
    assertThat(refused.json().path("error_description").asText()).isNotBlank();
  }
}
