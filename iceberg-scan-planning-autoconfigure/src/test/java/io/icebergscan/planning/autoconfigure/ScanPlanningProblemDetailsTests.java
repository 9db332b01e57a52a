package io.icebergscan.planning.autoconfigure;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.icebergscan.planning.MockCatalog;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TestCatalogs;
import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchPlanIdException;
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
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
import io.icebergscan.planning.model.Endpoint;
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
import org.springframework.http.HttpStatus;
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
  private static final String INCLUDE_MESSAGE = "iceberg.rest.scan-planning.problem-details.include-message=true";
  private static final String INCLUDE_EXCEPTION = "iceberg.rest.scan-planning.problem-details.include-exception=true";

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

  /** Each failure, its status, and the detail its body has by default: the contract docs/operations.md states. */
  static Stream<Arguments> failures() {
    return Stream.of(
        Arguments.of(new NoSuchTableException(404, "NoSuchTableException", "Table does not exist: sales.orders", null),
            404, "No such table"),
        Arguments.of(new NoSuchNamespaceException(404, "NoSuchNamespaceException", "Namespace does not exist: sales",
            null), 404, "No such namespace"),
        Arguments.of(new RestException(400, "BadRequestException", "Cannot find field 'amout'", null), 400,
            "The Iceberg catalog rejected the request as invalid"),
        Arguments.of(new RestException(422, "ValidationException", "Cannot find field 'amout'", null), 400,
            "The Iceberg catalog rejected the request as invalid"),
        Arguments.of(new RestException(403, "ForbiddenException", "Not authorized to read sales.orders", null), 502,
            "The Iceberg catalog answered with an error"),
        Arguments.of(new RestException(503, "ServiceUnavailableException", "Slow down", null), 503,
            "The Iceberg catalog is unavailable"),
        Arguments.of(new RestException(429, "TooManyRequests", "Slow down", null), 503,
            "The Iceberg catalog is unavailable"),
        Arguments.of(new RestException(500, "ServerError", "Internal error", null), 502,
            "The Iceberg catalog answered with an error"),
        Arguments.of(new NoSuchPlanTaskException(404, "NoSuchPlanTaskException", "plan-task expired", "h1"), 502,
            "The Iceberg catalog answered with an error"),
        Arguments.of(new NoSuchPlanIdException(404, "NoSuchPlanIdException", "plan expired", null), 502,
            "The Iceberg catalog answered with an error"),
        Arguments.of(new AuthenticationException("POST /v1/oauth/tokens answered 401", null, null), 502,
            "The application could not authenticate to the Iceberg catalog"),
        Arguments.of(new MissingCallerException("plan() of sales.orders"), 401,
            "The request has no authenticated caller"),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_grant", "invalid_grant"), 401, "The caller's token was refused"),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_token", "invalid_token"), 401, "The caller's token was refused"),
        // the application's own client, or its request, refused: not its caller's to fix
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_client", "invalid_client"), 502,
            "The application could not authenticate to the Iceberg catalog"),
        Arguments.of(new TokenExchangeException("the token exchange at https://idp.example.com/token was refused: "
            + "invalid_request", "invalid_request"), 502,
            "The application could not authenticate to the Iceberg catalog"),
        Arguments.of(new TransportException("GET /v1/config failed: connection refused", null,
            new ConnectException("Connection refused")), 503, "The Iceberg catalog could not be reached"),
        Arguments.of(new TransportException("POST /plan got no complete answer within the request timeout", null,
            new TimeoutException("request timeout")), 504, "The Iceberg catalog did not answer in time"),
        Arguments.of(new PlanTimeoutException("the plan took longer than 5m"), 504,
            "Planning the scan took longer than allowed"),
        Arguments.of(new PlanCancelledException("the plan was cancelled"), 503, "Planning the scan was cancelled"),
        Arguments.of(new PlanFailedException("the catalog failed the plan", "ValidationException"), 502,
            "The Iceberg catalog failed to plan the scan"),
        Arguments.of(new MalformedResponseException("plan-tasks is not an array", "plan-tasks", null), 502,
            "The Iceberg catalog's answer was malformed"),
        Arguments.of(new UnsupportedEndpointException(Endpoint.SUBMIT_PLAN), 502,
            "The Iceberg catalog does not offer what the request needs"),
        Arguments.of(new RestrictedReadException("sales.orders", "IcebergScanPlan.tasks()", "its files are raw"), 403,
            "The table's read restrictions refuse this way of reading it"),
        // the catalog refused the caller: its token (401, 419), or what it asked (403)
        Arguments.of(new CallerRefusedException(401, "NotAuthorizedException", "not authorized", null, null), 401,
            "The caller's token was refused"),
        Arguments.of(new CallerRefusedException(419, "AuthenticationTimeoutException", "expired", null, null), 401,
            "The caller's token was refused"),
        Arguments.of(new CallerRefusedException(403, "ForbiddenException", "not granted", null, null), 403,
            "The Iceberg catalog does not allow the caller this request"),
        // the application read one caller's table as another: its own bug, which no client can fix
        Arguments.of(new CallerMismatchException("sales.orders", "readRows()"), 500,
            "The table was read as another caller than it was loaded as"),
        Arguments.of(new InvalidReadRestrictionsException("sales.orders", 3, "an unknown action"), 502,
            "The table's read restrictions cannot be enforced"),
        Arguments.of(new ScanPlanningException("the planner is closed"), 502, "The table could not be planned or read"));
  }

  @ParameterizedTest
  @MethodSource("failures")
  void webFluxAnswersEachFailureWithItsStatusAndTheDetailOfItsKind(ScanPlanningException thrown, int status,
      String detail) {
    this.failure.set(() -> thrown);
    this.webFlux.withPropertyValues(ENABLED).run(context -> {
      WebTestClient client = WebTestClient.bindToApplicationContext(context).build();
      for (String path : List.of("/orders", "/reactive-orders")) {
        client.get().uri(path).exchange().expectStatus().isEqualTo(status)
            .expectHeader().contentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
            .expectBody()
            .jsonPath("$.status").isEqualTo(status)
            .jsonPath("$.title").isEqualTo(HttpStatus.valueOf(status).getReasonPhrase())
            .jsonPath("$.detail").isEqualTo(detail)
            .jsonPath("$.exception").doesNotExist();
        client.get().uri(path).exchange().expectHeader().values("WWW-Authenticate", challenge -> assertThat(challenge)
            .isEqualTo(challenge(thrown, status)));
      }
    });
  }

  @ParameterizedTest
  @MethodSource("failures")
  void springMvcAnswersEachFailureWithItsStatusAndTheDetailOfItsKind(ScanPlanningException thrown, int status,
      String detail) {
    this.failure.set(() -> thrown);
    this.mvc.withPropertyValues(ENABLED).run(context -> {
      MockMvcTester mvc = MockMvcTester.from((WebApplicationContext) context);
      assertThat(mvc.get().uri("/orders")).headers().satisfies(headers -> assertThat(
          headers.get("WWW-Authenticate")).isEqualTo(challenge(thrown, status)));
      assertThat(mvc.get().uri("/orders")).hasStatus(status)
          .hasContentTypeCompatibleWith(MediaType.APPLICATION_PROBLEM_JSON)
          .bodyJson().satisfies(body -> {
            body.assertThat().extractingPath("$.status").isEqualTo(status);
            body.assertThat().extractingPath("$.title").isEqualTo(HttpStatus.valueOf(status).getReasonPhrase());
            body.assertThat().extractingPath("$.detail").isEqualTo(detail);
            body.assertThat().doesNotHavePath("$.exception");
          });
    });
  }

  /** For development: the exception's message (without its plan-task handle) and its type, in both stacks. */
  @ParameterizedTest
  @MethodSource("failures")
  void theMessageAndTheTypeOnlyWhenAsked(ScanPlanningException thrown, int status) {
    this.failure.set(() -> thrown);
    String message = thrown.planTask() == null ? thrown.getMessage()
        : thrown.getMessage().substring(0, thrown.getMessage().indexOf(" [plan task '"));
    String type = thrown.getClass().getSimpleName();
    this.webFlux.withPropertyValues(ENABLED, INCLUDE_MESSAGE, INCLUDE_EXCEPTION).run(context ->
        WebTestClient.bindToApplicationContext(context).build().get().uri("/reactive-orders").exchange()
            .expectStatus().isEqualTo(status).expectBody()
            .jsonPath("$.detail").isEqualTo(message)
            .jsonPath("$.exception").isEqualTo(type));
    this.mvc.withPropertyValues(ENABLED, INCLUDE_MESSAGE).run(context -> assertThat(
        MockMvcTester.from((WebApplicationContext) context).get().uri("/orders")).hasStatus(status)
        .bodyJson().satisfies(body -> {
          body.assertThat().extractingPath("$.detail").isEqualTo(message);
          body.assertThat().doesNotHavePath("$.exception");
        }));
    this.mvc.withPropertyValues(ENABLED, INCLUDE_EXCEPTION).run(context -> assertThat(
        MockMvcTester.from((WebApplicationContext) context).get().uri("/orders")).hasStatus(status)
        .bodyJson().satisfies(body -> body.assertThat().extractingPath("$.exception").isEqualTo(type)));
  }

  /**
   * The catalog down, through a real planner: by default the client learns that, and nothing of where the catalog
   * is or what failed inside; with the development switches on, the message and the type say both.
   */
  @Test
  void aCatalogThatIsDownIsNamedWithoutItsAddressUnlessAsked() throws IOException {
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    String uri = "http://127.0.0.1:" + closed + "/catalog";
    ScanPlanner planner = this.catalog.planner(ScanPlanner.builder().uri(uri).maxRetries(0));
    TableIdentifier table = TableIdentifier.parse("sales.orders");
    this.failure.set(() -> planFailure(planner));
    List<String> internals = List.of("127.0.0.1", String.valueOf(closed), "/catalog", "/v1/config", "http:",
        "TransportException", "ConnectException", "Exception", "io.", "reactor.");
    for (boolean developing : List.of(false, true)) {
      String[] properties = developing ? new String[] { ENABLED, INCLUDE_MESSAGE, INCLUDE_EXCEPTION }
          : new String[] { ENABLED };
      List<String> bodies = new ArrayList<>();
      // Spring MVC: a blocking plan() on a servlet thread; WebFlux: the streamed plan, as its event loop needs
      this.mvc.withPropertyValues(properties).run(context -> bodies.add(MockMvcTester
          .from((WebApplicationContext) context).get().uri("/orders").exchange().getResponse()
          .getContentAsString()));
      this.webFlux.withPropertyValues(properties)
          .withBean(ReactiveOrdersController.class, () -> new ReactiveOrdersController(planner, table))
          .run(context -> bodies.add(WebTestClient.bindToApplicationContext(context).build().get().uri("/planned")
              .exchange().expectStatus().isEqualTo(503).expectBody(String.class).returnResult().getResponseBody()));
      assertThat(bodies).hasSize(2).allSatisfy(body -> {
        assertThat(body).contains("\"status\":503");
        if (developing) {
          assertThat(body).contains(uri + "/v1/config", "\"exception\":\"TransportException\"");
        }
        else {
          assertThat(body).contains("\"detail\":\"The Iceberg catalog could not be reached\"");
          internals.forEach(internal -> assertThat(body).as(body).doesNotContain(internal));
        }
      });
    }
  }

  /**
   * From the planner itself: the catalog answers the plan with Iceberg's 404 for a table it lacks. The catalog's
   * message names the table as the catalog knows it, which need not be what the client asked for: by default the body
   * says only that there is no such table.
   */
  @Test
  void aRealPlannersFailuresBecomeTheirProblems() {
    String missing = "{\"error\":{\"message\":\"Table does not exist: warehouse_7.sales.orders\","
        + "\"type\":\"NoSuchTableException\",\"code\":404}}";
    this.catalog.enqueue(200, TestCatalogs.ALL_ENDPOINTS);
    this.catalog.enqueue(404, missing);
    this.catalog.enqueue(404, missing);
    ScanPlanner planner = this.catalog.planner(this.catalog.builder());
    this.failure.set(() -> planFailure(planner));
    // Spring MVC: a blocking plan() on a servlet thread, as WebFlux would refuse it on its event loop
    this.mvc.withPropertyValues(ENABLED).run(context -> assertThat(
        MockMvcTester.from((WebApplicationContext) context).get().uri("/orders")).hasStatus(404)
        .bodyJson().satisfies(body -> {
          body.assertThat().extractingPath("$.detail").isEqualTo("No such table");
          body.assertThat().doesNotHavePath("$.exception");
          assertThat(body.getJson()).doesNotContain("warehouse_7").doesNotContain("sales");
        }));
    this.mvc.withPropertyValues(ENABLED, INCLUDE_MESSAGE, INCLUDE_EXCEPTION).run(context -> assertThat(
        MockMvcTester.from((WebApplicationContext) context).get().uri("/orders")).hasStatus(404)
        .bodyJson().satisfies(body -> {
          body.assertThat().extractingPath("$.exception").isEqualTo("NoSuchTableException");
          body.assertThat().extractingPath("$.detail").asString().contains("warehouse_7.sales.orders");
        }));
  }

  /** A 401 challenges the client for a bearer token, an invalid one when it was refused; no other status does. */
  private static @Nullable List<String> challenge(ScanPlanningException thrown, int status) {
    if (status != 401) {
      return null;
    }
    return List.of(thrown instanceof MissingCallerException ? "Bearer" : "Bearer error=\"invalid_token\"");
  }

  /** Even for development, the user info of a URI in a message is masked. */
  @Test
  void credentialsInAMessageNeverReachTheBody() {
    this.failure.set(() -> new TransportException("GET https://app:s3cr3t@catalog.example.com/v1/config failed",
        null, new ConnectException("Connection refused")));
    this.webFlux.withPropertyValues(ENABLED, INCLUDE_MESSAGE).run(context -> {
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

  /** A WebFlux controller that streams a plan, as its event loop needs: {@code plan()} is refused there. */
  @RestController
  static class ReactiveOrdersController {

    private final ScanPlanner planner;
    private final TableIdentifier table;

    ReactiveOrdersController(ScanPlanner planner, TableIdentifier table) {
      this.planner = planner;
      this.table = table;
    }

    @GetMapping("/planned")
    Mono<Long> planned() {
      return this.planner.planTasks(this.table, ScanRequest.all()).count();
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
