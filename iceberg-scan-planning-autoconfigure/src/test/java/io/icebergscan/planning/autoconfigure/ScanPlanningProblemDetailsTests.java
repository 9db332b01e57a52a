package io.icebergscan.planning.autoconfigure;

import java.net.ConnectException;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.icebergscan.planning.MockCatalog;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.TestCatalogs;
import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanFailedException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.MediaType;
import org.springframework.test.web.reactive.server.WebTestClient;
import org.springframework.test.web.servlet.assertj.MockMvcTester;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.WebApplicationContext;
import org.springframework.web.reactive.config.EnableWebFlux;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The planner's exceptions reach the application's HTTP clients as problem details when the application asks for it,
 * through a real WebFlux and a real Spring MVC dispatcher, each with a controller of the application's that fails as
 * its planner does.
 */
class ScanPlanningProblemDetailsTests {

  private static final String ENABLED = "iceberg.rest.scan-planning.problem-details.enabled=true";

  @RegisterExtension
  final MockCatalog catalog = new MockCatalog();

  /** What the controller's call fails with, the planner's failure the test puts here. */
  private final AtomicReference<Supplier<RuntimeException>> failure = new AtomicReference<>();

  private final ReactiveWebApplicationContextRunner webFlux = new ReactiveWebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningProblemDetailsAutoConfiguration.class))
      .withUserConfiguration(WebFluxApplication.class)
      .withBean(Failing.class, () -> new Failing(() -> this.failure.get().get()));

  private final WebApplicationContextRunner mvc = new WebApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningProblemDetailsAutoConfiguration.class))
      .withUserConfiguration(MvcApplication.class)
      .withBean(Failing.class, () -> new Failing(() -> this.failure.get().get()));

  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new NoSuchTableException(404, "NoSuchTableException", "Table does not exist: sales.orders", null),
            404),
        Arguments.of(new NoSuchNamespaceException(404, "NoSuchNamespaceException", "Namespace does not exist: sales",
            null), 404),
        Arguments.of(new RestException(400, "BadRequestException", "Cannot find field 'amout'", null), 400),
        Arguments.of(new RestException(403, "ForbiddenException", "Not authorized to read sales.orders", null), 502),
        Arguments.of(new RestException(503, "ServiceUnavailableException", "Slow down", null), 503),
        Arguments.of(new RestException(500, "ServerError", "Internal error", null), 502),
        Arguments.of(new NoSuchPlanTaskException(404, "NoSuchPlanTaskException", "plan-task expired", "h1"), 502),
        Arguments.of(new AuthenticationException("POST /v1/oauth/tokens answered 401", null, null), 502),
        Arguments.of(new MissingCallerException("plan() of sales.orders"), 401),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_grant", "invalid_grant"), 401),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_token", "invalid_token"), 401),
        // the application's own client, or its request, refused: not its caller's to fix
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_client", "invalid_client"), 502),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_request", "invalid_request"), 502),
        Arguments.of(new TransportException("GET /v1/config failed: connection refused", null,
            new ConnectException("Connection refused")), 503),
        Arguments.of(new TransportException("POST /plan got no complete answer within the request timeout", null,
            new TimeoutException("request timeout")), 504),
        Arguments.of(new PlanTimeoutException("the plan took longer than 5m"), 504),
        Arguments.of(new PlanCancelledException("the plan was cancelled"), 503),
        Arguments.of(new PlanFailedException("the catalog failed the plan", "ValidationException"), 502),
        Arguments.of(new MalformedResponseException("plan-tasks is not an array", "plan-tasks", null), 502),
        Arguments.of(new RestrictedReadException("sales.orders", "IcebergScanPlan.tasks()", "its files are raw"), 403),
        // the catalog refused the caller: its token (401, 419), or what it asked (403)
        Arguments.of(new CallerRefusedException(401, "NotAuthorizedException", "not authorized", null, null), 401),
        Arguments.of(new CallerRefusedException(419, "AuthenticationTimeoutException", "expired", null, null), 401),
        Arguments.of(new CallerRefusedException(403, "ForbiddenException", "not granted", null, null), 403),
        // the application read one caller's table as another: its own bug, which no client can fix
        Arguments.of(new CallerMismatchException("sales.orders", "readRows()"), 500),
        Arguments.of(new InvalidReadRestrictionsException("sales.orders", 3, "an unknown action"), 502),
        Arguments.of(new ScanPlanningException("the planner is closed"), 502));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void webFluxAnswersEachFailureWithItsStatusAsAProblem(ScanPlanningException thrown, int status) {
    this.failure.set(() -> thrown);
    this.webFlux.withPropertyValues(ENABLED).run(context -> {
      WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
      for (String path : List.of("/orders", "/reactive-orders")) {
        client.get().uri(path).exchange().expectStatus().isEqualTo(status)
            .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody()
            .jsonPath("$.status").isEqualTo(status)
            .jsonPath("$.detail").isEqualTo(thrown.getMessage())
            .jsonPath("$.exception").isEqualTo(thrown.getClass().getSimpleName());
        client.get().uri(path).exchange().expectHeader().values("WWW-Authenticate", challenge -> assertThat(challenge)
            .isEqualTo(challenge(thrown, status)));
      }
    });
  }

  @ParameterizedTest
  @MethodSource("failures")
  void springMvcAnswersEachFailureWithItsStatusAsAProblem(ScanPlanningException thrown, int status) {
    this.failure.set(() -> thrown);
    this.mvc.withPropertyValues(ENABLED).run(context -> {
      MockMvcTester mvc = MockMvcTester.from((WebApplicationContext) context);
      assertThat(mvc.get().uri("/orders")).headers().satisfies(headers -> assertThat(
          headers.get("WWW-Authenticate")).isEqualTo(challenge(thrown, status)));
      assertThat(mvc.get().uri("/orders")).hasStatus(status)
          .hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
          .bodyJson().satisfies(body -> {
            body.assertThat().extractingPath("$.status").isEqualTo(status);
            body.assertThat().extractingPath("$.detail").isEqualTo(thrown.getMessage());
            body.assertThat().extractingPath("$.exception").isEqualTo(thrown.getClass().getSimpleName());
          });
    });
  }

  /** From the planner itself: the catalog answers the plan with Iceberg's 404 for a table it lacks. */
  @Test
  void aRealPlannersFailuresBecomeTheirProblems() {
    this.catalog.enqueue(200, TestCatalogs.ALL_ENDPOINTS);
    this.catalog.enqueue(404, "{\"error\":{\"message\":\"Table does not exist: sales.orders\","
        + "\"type\":\"NoSuchTableException\",\"code\":404}}");
    ScanPlanner planner = this.catalog.planner(this.catalog.builder());
    this.failure.set(() -> planFailure(planner));
    // Spring MVC: a blocking plan() on a servlet thread, as WebFlux would refuse it on its event loop
    this.mvc.withPropertyValues(ENABLED).run(context -> assertThat(
        MockMvcTester.from((WebApplicationContext) context).get().uri("/orders")).hasStatus(404)
        .bodyJson().satisfies(body -> {
          body.assertThat().extractingPath("$.exception").isEqualTo("NoSuchTableException");
          body.assertThat().extractingPath("$.detail").asString().contains("sales.orders");
        }));
  }

  /** A 401 challenges the client for a bearer token, an invalid one when it was refused; no other status does. */
  private static @Nullable List<String> challenge(ScanPlanningException thrown, int status) {
    if (status != 401) {
      return null;
    }
    return List.of(thrown instanceof MissingCallerException ? "Bearer" : "Bearer error=\"invalid_token\"");
  }

  @Test
  void credentialsInAMessageNeverReachTheBody() {
    this.failure.set(() -> new TransportException("GET https://app:s3cr3t@catalog.example.com/v1/config failed",
        null, new ConnectException("Connection refused")));
    this.webFlux.withPropertyValues(ENABLED).run(context -> {
      String body = WebTestClient.bindToApplicationContext(context).build().get().uri("/orders").exchange()
          .expectStatus().isEqualTo(503).expectBody(String.class).returnResult().getResponseBody();
      assertThat(body).doesNotContain("s3cr3t").contains("https://******@catalog.example.com/v1/config");
    });
  }

  @Test
  void offUnlessEnabled() {
    this.failure.set(() -> new NoSuchTableException(404, "NoSuchTableException", "Table does not exist", null));
    this.webFlux.run(context -> {
      assertThat(context).doesNotHaveBean(ScanPlanningProblemDetails.class);
      WebTestClient.bindToApplicationContext(context).build().get().uri("/orders").exchange()
          .expectStatus().is5xxServerError();
    });
    this.mvc.run(context -> assertThat(context).doesNotHaveBean(ScanPlanningProblemDetails.class));
  }

  @Test
  void onlyInAWebApplication() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ScanPlanningProblemDetailsAutoConfiguration.class))
        .withPropertyValues(ENABLED)
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(ScanPlanningProblemDetails.class));
  }

  @Test
  void aBeanOfTheApplicationsOwnReplacesIt() {
    ScanPlanningProblemDetails own = new ScanPlanningProblemDetails();
    this.webFlux.withPropertyValues(ENABLED).withBean("own", ScanPlanningProblemDetails.class, () -> own)
        .run(context -> assertThat(context).getBean(ScanPlanningProblemDetails.class).isSameAs(own));
  }

  private static RuntimeException planFailure(ScanPlanner planner) {
    try {
      planner.plan(TableIdentifier.parse("sales.orders"));
      return new IllegalStateException("the plan did not fail");
    }
    catch (RuntimeException failed) {
      return failed;
    }
  }

  /** What the application's controller calls, failing as its planner would. */
  record Failing(Supplier<RuntimeException> failure) {

    String orders() {
      throw this.failure.get();
    }
  }

  @RestController
  static class OrdersController {

    private final Failing failing;

    OrdersController(Failing failing) {
      this.failing = failing;
    }

    @GetMapping("/orders")
    String orders() {
      return this.failing.orders();
    }

    @GetMapping("/reactive-orders")
    Mono<String> reactiveOrders() {
      return Mono.fromCallable(this.failing::orders);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableWebFlux
  static class WebFluxApplication {

    @Bean
    OrdersController ordersController(Failing failing) {
      return new OrdersController(failing);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableWebMvc
  static class MvcApplication {

    @Bean
    OrdersController ordersController(Failing failing) {
      return new OrdersController(failing);
    }
  }
}
