package io.icebergscan.planning.autoconfigure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.health.ScanPlanningHealthIndicator;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import mockwebserver3.junit5.StartStop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Credentials in a URI are masked the one way ({@link Redaction}) on every surface that shows one: exception
 * messages, refusals of the builders, {@code toString()}s, health details, and the actuator's view of the
 * properties. And no rejection of a catalog answer that may carry secrets (its config, a table, credentials, a
 * plan, a token) quotes any of its text.
 */
class CredentialRedactionTests {

  private static final String USER = "alice";
  private static final String SECRET = "s3cr3t";

  /** A secret in an answer, where the JSON breaks or as a value of the wrong type. */
  private static final String BODY_SECRET = "wJalrXUtnFEMIK7MDENGbPxRfiCYSECRET";
  /** A secret that is all digits: a rejection naming "the number ..." would quote it. */
  private static final String NUMERIC_SECRET = "31415926535897932384626433832795";
  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final String TABLE_PATH = "/v1/namespaces/db/tables/t";
  private static final String ENDPOINTS = "{\"endpoints\":[\"" + Endpoint.LOAD_TABLE + "\",\""
      + Endpoint.LOAD_CREDENTIALS + "\",\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
      + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}";

  @StartStop
  private final MockWebServer server = new MockWebServer();

  @Test
  void masksTheUserInfoOfEveryUriInATextAndNothingElse() {
    assertThat(Redaction.maskUserInfo("GET https://alice:s3cr3t@catalog.example.com/v1/config failed, see "
        + "http://bob@idp.example.com:8443/token?x=a@b and HTTP://u:p@h"))
        .isEqualTo("GET https://******@catalog.example.com/v1/config failed, see "
            + "http://******@idp.example.com:8443/token?x=a@b and HTTP://******@h");
    assertThat(Redaction.maskUserInfo("mailto:alice@example.com, https://catalog.example.com/api"))
        .isEqualTo("mailto:alice@example.com, https://catalog.example.com/api");
    assertThat(Redaction.maskUserInfo(null)).isNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("surfaces")
  void everySurfaceMasksTheCatalogsCredentials(String surface, Supplier<String> shown) {
    assertThat(shown.get()).as(surface).contains("://" + Redaction.MASK + "@").doesNotContain(SECRET)
        .doesNotContain(USER);
  }

  static Stream<Arguments> surfaces() throws Exception {
    int closed;
    try (ServerSocket socket = new ServerSocket(0)) {
      closed = socket.getLocalPort();
    }
    String catalog = "http://" + USER + ":" + SECRET + "@127.0.0.1:" + closed + "/catalog";
    String tokenUri = "https://" + USER + ":" + SECRET + "@idp.example.com/token";
    return Stream.of(
        Arguments.of("a planner's failure", (Supplier<String>) () -> {
          try (ScanPlanner planner = ScanPlanner.builder().uri(catalog).maxRetries(0).build()) {
            return catchThrowable(() -> planner.plan(TableIdentifier.of("db", "t"))).getMessage();
          }
        }),
        Arguments.of("the builder refusing a catalog uri", (Supplier<String>) () ->
            catchThrowable(() -> ScanPlanner.builder().uri("ftp://" + USER + ":" + SECRET + "@catalog")).getMessage()),
        Arguments.of("the OAuth2 builder refusing a token uri", (Supplier<String>) () ->
            catchThrowable(() -> OAuth2ClientCredentials.builder().tokenUri("ftp://" + USER + ":" + SECRET + "@idp"))
                .getMessage()),
        Arguments.of("the OAuth2 filter's toString", (Supplier<String>) () -> OAuth2ClientCredentials.builder()
            .tokenUri(tokenUri).clientId("planner").clientSecret("client-secret").build().toString()),
        Arguments.of("the health indicator's error", (Supplier<String>) () -> String.valueOf(
            new ScanPlanningHealthIndicator(new FailingPlanner("GET " + catalog + "/v1/config failed"))
                .health(true).getDetails().get("error"))),
        Arguments.of("the properties' toString", (Supplier<String>) () -> properties(
            "iceberg.rest.uri=" + catalog, "iceberg.rest.oauth2.client-id=planner",
            "iceberg.rest.oauth2.client-secret=client-secret", "iceberg.rest.oauth2.token-uri=" + tokenUri)),
        Arguments.of("the actuator's catalog uri", (Supplier<String>) () -> String.valueOf(
            ScanPlanningSanitizingAutoConfiguration.sanitize(new SanitizableData(null, "iceberg.rest.uri", catalog))
                .getValue())),
        Arguments.of("the actuator's token uri", (Supplier<String>) () -> String.valueOf(
            ScanPlanningSanitizingAutoConfiguration.sanitize(new SanitizableData(null,
                "ICEBERG_REST_OAUTH2_TOKENURI", tokenUri)).getValue())),
        Arguments.of("the properties' toString, with a token exchange", (Supplier<String>) () -> properties(
            "iceberg.rest.uri=https://catalog.example.com", "iceberg.rest.identity=caller",
            "iceberg.rest.caller.mode=token-exchange", "iceberg.rest.oauth2.client-id=planner",
            "iceberg.rest.oauth2.client-secret=client-secret", "iceberg.rest.caller.token-exchange.client-id=exchanger",
            "iceberg.rest.caller.token-exchange.client-secret=" + SECRET,
            "iceberg.rest.caller.token-exchange.token-uri=" + tokenUri)),
        Arguments.of("the actuator's token exchange uri", (Supplier<String>) () -> String.valueOf(
            ScanPlanningSanitizingAutoConfiguration.sanitize(new SanitizableData(null,
                "iceberg.rest.caller.token-exchange.token-uri", tokenUri)).getValue())),
        Arguments.of("a token exchange's toString", (Supplier<String>) () -> new TokenExchangeGrant(tokenUri,
            "exchanger", SECRET, false, List.of(), CallerTokenExchange.DEFAULT_REQUESTED_TOKEN_TYPE, null,
            WebClient.create()).toString()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("answersThatMayCarrySecrets")
  void noRejectionOfAnAnswerThatMayCarrySecretsShowsThem(String answer, Call call, String path, String body) {
    SecretBearingCatalog catalog = new SecretBearingCatalog(path, body);
    this.server.setDispatcher(catalog);
    ScanPlanner.Builder builder = ScanPlanner.builder().uri(this.server.url("/").toString()).maxRetries(0);
    if (call == Call.WITH_OAUTH2) {
      builder.filter(OAuth2ClientCredentials.builder().tokenUri(this.server.url("/oauth/token").toString())
          .clientId("planner").clientSecret("client-secret").build());
    }
    Throwable failure;
    try (ScanPlanner planner = builder.build()) {
      failure = catchThrowable(() -> call.on.apply(planner));
    }

    assertThat(catalog.served).as("the answer was served").isTrue();
    assertThat(failure).as(answer).isInstanceOf(call == Call.WITH_OAUTH2 ? AuthenticationException.class
        : MalformedResponseException.class);
    StringWriter printed = new StringWriter();
    failure.printStackTrace(new PrintWriter(printed));
    assertThat(failure.getMessage()).doesNotContain(BODY_SECRET).doesNotContain(NUMERIC_SECRET);
    assertThat(printed.toString()).as("the stack trace, causes included").doesNotContain(BODY_SECRET)
        .doesNotContain(NUMERIC_SECRET);
  }

  static Stream<Arguments> answersThatMayCarrySecrets() {
    String credential = "{\"prefix\":\"s3://b/\",\"config\":{\"s3.secret-access-key\":%s}}";
    String broken = credential.formatted(BODY_SECRET);
    String numeric = credential.formatted(NUMERIC_SECRET);
    return Stream.of(
        Arguments.of("config, broken at the secret", Call.CONFIG, "/v1/config",
            "{\"defaults\":{\"s3.secret-access-key\":" + BODY_SECRET + "}}"),
        Arguments.of("config, a number for its defaults", Call.CONFIG, "/v1/config",
            "{\"defaults\":" + NUMERIC_SECRET + "}"),
        Arguments.of("config, the secret in a list", Call.CONFIG, "/v1/config",
            "{\"overrides\":{\"token\":[\"" + BODY_SECRET + "\"]}}"),
        Arguments.of("table, broken at the secret", Call.LOAD_TABLE, TABLE_PATH,
            "{\"metadata\":{},\"config\":{\"s3.secret-access-key\":" + BODY_SECRET + "}}"),
        Arguments.of("table, a number for a config value", Call.LOAD_TABLE, TABLE_PATH,
            "{\"metadata\":{},\"config\":{\"s3.secret-access-key\":" + NUMERIC_SECRET + "}}"),
        Arguments.of("table, a number for its config", Call.LOAD_TABLE, TABLE_PATH,
            "{\"metadata\":{},\"config\":" + NUMERIC_SECRET + "}"),
        Arguments.of("table, broken in its credentials", Call.LOAD_TABLE, TABLE_PATH,
            "{\"metadata\":{},\"storage-credentials\":[" + broken + "]}"),
        Arguments.of("credentials, broken at the secret", Call.LOAD_CREDENTIALS, TABLE_PATH + "/credentials",
            "{\"storage-credentials\":[" + broken + "]}"),
        Arguments.of("credentials, a number for a config value", Call.LOAD_CREDENTIALS, TABLE_PATH + "/credentials",
            "{\"storage-credentials\":[" + numeric + "]}"),
        Arguments.of("credentials, a number for a credential", Call.LOAD_CREDENTIALS, TABLE_PATH + "/credentials",
            "{\"storage-credentials\":[" + NUMERIC_SECRET + "]}"),
        Arguments.of("plan, broken in its credentials", Call.PLAN, TABLE_PATH + "/plan",
            "{\"status\":\"completed\",\"plan-id\":\"p\",\"storage-credentials\":[" + broken + "]}"),
        Arguments.of("plan, a number for a credential", Call.PLAN, TABLE_PATH + "/plan",
            "{\"status\":\"completed\",\"plan-id\":\"p\",\"storage-credentials\":[" + NUMERIC_SECRET + "]}"),
        Arguments.of("token, broken at the token", Call.WITH_OAUTH2, "/oauth/token",
            "{\"access_token\":" + BODY_SECRET + ",\"token_type\":\"bearer\",\"expires_in\":3600}"),
        Arguments.of("token, broken after the token", Call.WITH_OAUTH2, "/oauth/token",
            "{\"access_token\":\"" + BODY_SECRET + "\",\"token_type\":\"bearer\",\"expires_in\":}"),
        Arguments.of("token, a list for the token", Call.WITH_OAUTH2, "/oauth/token",
            "{\"access_token\":[\"" + BODY_SECRET + "\"],\"token_type\":\"bearer\",\"expires_in\":3600}"),
        Arguments.of("token, without its type", Call.WITH_OAUTH2, "/oauth/token",
            "{\"access_token\":\"" + BODY_SECRET + "\",\"expires_in\":3600}"),
        Arguments.of("token, of an unsupported type", Call.WITH_OAUTH2, "/oauth/token",
            "{\"access_token\":\"tok\",\"token_type\":\"" + BODY_SECRET + "\",\"expires_in\":3600}"));
  }

  /** What the planner is asked for, through which the answer is read. */
  enum Call {
    CONFIG(planner -> planner.catalog().properties()),
    LOAD_TABLE(planner -> planner.catalog().loadTable(TABLE, true)),
    LOAD_CREDENTIALS(planner -> planner.catalog().loadCredentials(TABLE, null)),
    PLAN(planner -> planner.plan(TABLE)),
    /** The catalog's config, over OAuth2: the token endpoint answers first. */
    WITH_OAUTH2(planner -> planner.catalog().properties());

    final Function<ScanPlanner, Object> on;

    Call(Function<ScanPlanner, Object> on) {
      this.on = on;
    }
  }

  /** A catalog and token endpoint that answer {@code body} at {@code path}, and what a planner needs elsewhere. */
  private static final class SecretBearingCatalog extends Dispatcher {

    private final String path;
    private final String body;
    volatile boolean served;

    SecretBearingCatalog(String path, String body) {
      this.path = path;
      this.body = body;
    }

    @Override
    public MockResponse dispatch(RecordedRequest request) {
      String requested = request.getUrl().encodedPath();
      if (requested.equals(this.path)) {
        this.served = true;
        return json(this.body);
      }
      return json(switch (requested) {
        case "/v1/config" -> ENDPOINTS;
        case "/oauth/token" -> "{\"access_token\":\"tok\",\"token_type\":\"bearer\",\"expires_in\":3600}";
        default -> "{}";
      });
    }

    private static MockResponse json(String body) {
      return new MockResponse.Builder().setHeader("Content-Type", "application/json").body(body).build();
    }
  }

  private static String properties(String... values) {
    StringBuilder shown = new StringBuilder();
    new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class))
        .withPropertyValues(values)
        .withPropertyValues("iceberg.rest.scan-planning.enabled=true")
        .run(context -> shown.append(context.getBean(IcebergRestProperties.class)));
    return shown.toString();
  }

  /** A planner of someone else's whose failures quote credentials: the indicator masks them all the same. */
  private static final class FailingPlanner extends StubPlanner {

    private final String message;

    FailingPlanner(String message) {
      this.message = message;
    }

    @Override
    public CatalogCheck checkCatalog(Duration timeout) {
      throw new ScanPlanningException(this.message);
    }
  }
}
