package io.icebergscan.planning.autoconfigure;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.OAuth2ClientCredentials;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.exceptions.Redaction;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.health.ScanPlanningHealthIndicator;
import io.icebergscan.planning.TaskBatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import reactor.core.publisher.Flux;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Credentials in a URI are masked the one way ({@link Redaction}) on every surface that shows one: exception
 * messages, refusals of the builders, {@code toString()}s, health details, and the actuator's view of the
 * properties.
 */
class CredentialRedactionTests {

  private static final String USER = "alice";
  private static final String SECRET = "s3cr3t";

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
                "ICEBERG_REST_OAUTH2_TOKENURI", tokenUri)).getValue())));
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
  private record FailingPlanner(String message) implements ScanPlanner {

    @Override
    public ScanPlan plan(TableIdentifier table, ScanRequest request) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Flux<TaskBatch> planBatches(TableIdentifier table, ScanRequest request) {
      return Flux.empty();
    }

    @Override
    public int maxConcurrency() {
      return 1;
    }

    @Override
    public int requestsInFlight() {
      return 0;
    }

    @Override
    public CatalogCheck checkCatalog(Duration timeout) {
      throw new ScanPlanningException(this.message);
    }

    @Override
    public void close() {
    }
  }
}
