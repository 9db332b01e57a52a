package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TestTasks;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.security.authentication.AnonymousAuthenticationToken;
import org.springframework.security.authentication.UsernamePasswordAuthenticationToken;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.authority.AuthorityUtils;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.DefaultOAuth2AuthenticatedPrincipal;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.server.resource.authentication.BearerTokenAuthentication;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code iceberg.rest.identity} and {@code iceberg.rest.caller.*}: the planner plans as the service by default, and as
 * the Spring Security caller of each call with {@code identity=caller}, passing the caller's bearer token through or
 * exchanging it with the planner's own client-credentials token as the actor; misconfigurations fail start-up naming
 * the property, and Spring Security stays optional.
 */
class CallerIdentityAutoConfigurationTests {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final String ALICE_TOKEN = "alice-opaque-5c2d";
  private static final String BOB_TOKEN = "bob-opaque-3e8f";

  @StartStop
  private final MockWebServer catalogServer = new MockWebServer();

  @StartStop
  private final MockWebServer idpServer = new MockWebServer();

  private final CallerCatalog catalog = new CallerCatalog().accept("service-token", "service")
      .accept(ALICE_TOKEN, "alice").accept(BOB_TOKEN, "bob");

  private final IdentityProvider idp = new IdentityProvider().subjectTokenType(IdentityProvider.ACCESS_TOKEN_TYPE)
      .subject(ALICE_TOKEN, "alice").subject(BOB_TOKEN, "bob");

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class, WebClientAutoConfiguration.class,
          TaskExecutionAutoConfiguration.class));

  @BeforeEach
  void serve() {
    this.catalogServer.setDispatcher(this.catalog);
    this.idpServer.setDispatcher(this.idp);
  }

  @AfterEach
  void forgetTheCaller() {
    SecurityContextHolder.clearContext();
  }

  private String uri() {
    return "iceberg.rest.uri=" + this.catalogServer.url("/").toString();
  }

  private String[] tokenExchange(String... more) {
    List<String> properties = new java.util.ArrayList<>(List.of(uri(), "iceberg.rest.identity=caller",
        "iceberg.rest.caller.mode=token-exchange", "iceberg.rest.oauth2.client-id=" + IdentityProvider.CLIENT_ID,
        "iceberg.rest.oauth2.client-secret=" + IdentityProvider.CLIENT_SECRET,
        "iceberg.rest.oauth2.token-uri=" + this.idpServer.url("/token")));
    properties.addAll(List.of(more));
    return properties.toArray(String[]::new);
  }

  private static Authentication bearer(String token) {
    OAuth2AccessToken accessToken = new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, token, Instant.now(),
        Instant.now().plusSeconds(3600));
    return new BearerTokenAuthentication(new DefaultOAuth2AuthenticatedPrincipal(token.substring(0, 3),
        Map.of("sub", token.substring(0, 3)), AuthorityUtils.NO_AUTHORITIES), accessToken,
        AuthorityUtils.NO_AUTHORITIES);
  }

  /** The files of a blocking plan made while {@code caller} is the thread's authentication. */
  private static List<String> planAs(@Nullable Authentication caller, ScanPlanner planner) {
    SecurityContextHolder.getContext().setAuthentication(caller);
    try {
      return TestTasks.paths(planner.plan(TABLE).tasks());
    }
    finally {
      SecurityContextHolder.clearContext();
    }
  }

  @Test
  void byDefaultThePlannerPlansAsTheServiceWhoeverIsAuthenticated() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.token=service-token").run(context -> {
      assertThat(context).doesNotHaveBean(Callers.class).doesNotHaveBean(CallerTokenExchange.class);
      ScanPlanner planner = context.getBean(ScanPlanner.class);
      assertThat(planAs(bearer(ALICE_TOKEN), planner))
          .allSatisfy(path -> assertThat(path).startsWith("s3://b/service-"));
      assertThat(this.catalog.authorizations()).containsOnly("Bearer service-token");
      assertThat(context.getBean(IcebergRestProperties.class).identity())
          .isEqualTo(IcebergRestProperties.Identity.SERVICE);
    });
  }

  @Test
  void asCallersThePlannerPlansAsTheBearerTokenOfEachCall() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.token=service-token", "iceberg.rest.identity=caller")
        .run(context -> {
          assertThat(context).getBean(Callers.class).isInstanceOf(SpringSecurityCallers.class)
              .hasToString("SpringSecurityCallers[pass-through]");
          ScanPlanner planner = context.getBean(ScanPlanner.class);

          assertThat(planAs(bearer(ALICE_TOKEN), planner)).hasSize(3)
              .allSatisfy(path -> assertThat(path).startsWith("s3://b/alice-"));
          // reactive: the caller in the subscriber's context, as WebFlux's security puts it there
          List<FileScanTask> bobs = planner.planTasks(TABLE, ScanRequest.all())
              .contextWrite(ReactiveSecurityContextHolder.withAuthentication(bearer(BOB_TOKEN))).collectList()
              .block(BOUND);
          assertThat(TestTasks.paths(bobs)).hasSize(3).allSatisfy(path -> assertThat(path).startsWith("s3://b/bob-"));
          assertThat(this.catalog.authorizations()).containsExactly("Bearer " + ALICE_TOKEN, "Bearer " + ALICE_TOKEN,
              "Bearer " + ALICE_TOKEN, "Bearer " + ALICE_TOKEN, "Bearer " + BOB_TOKEN, "Bearer " + BOB_TOKEN,
              "Bearer " + BOB_TOKEN, "Bearer " + BOB_TOKEN);
          assertThat(this.catalog.violations).isEmpty();

          SecurityContextHolder.getContext().setAuthentication(bearer(ALICE_TOKEN));
          assertThat(planner.caller()).isNotNull().extracting(CatalogCredentials::principal)
              .isEqualTo(CatalogCredentials.bearer(ALICE_TOKEN).principal());
          SecurityContextHolder.clearContext();
        });
  }

  @Test
  void anAnonymousOrANonBearerAuthenticationIsNoCallerAndNothingIsSent() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.token=service-token", "iceberg.rest.identity=caller")
        .run(context -> {
          ScanPlanner planner = context.getBean(ScanPlanner.class);
          List<Authentication> noCallers = List.of(
              new AnonymousAuthenticationToken("key", "anonymousUser",
                  AuthorityUtils.createAuthorityList("ROLE_ANONYMOUS")),
              UsernamePasswordAuthenticationToken.authenticated("alice", "password", AuthorityUtils.NO_AUTHORITIES));
          for (Authentication noCaller : noCallers) {
            assertThatThrownBy(() -> planAs(noCaller, planner)).isInstanceOf(MissingCallerException.class);
            assertThatThrownBy(() -> planner.planTasks(TABLE, ScanRequest.all())
                .contextWrite(ReactiveSecurityContextHolder.withAuthentication(noCaller)).blockLast(BOUND))
                .isInstanceOf(MissingCallerException.class);
          }
          assertThatThrownBy(() -> planAs(null, planner)).isInstanceOf(MissingCallerException.class);
          assertThat(this.catalog.seen).isEmpty();
        });
  }

  @Test
  void callersOfTheApplicationsOwnReplaceSpringSecuritysWithoutSpringSecurity() {
    Callers bob = new Callers() {

      @Override
      public CatalogCredentials current() {
        return CatalogCredentials.bearer(BOB_TOKEN);
      }

      @Override
      public Mono<CatalogCredentials> current(ContextView context) {
        return Mono.just(current());
      }
    };
    this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security"))
        .withPropertyValues(uri(), "iceberg.rest.identity=caller").withBean(Callers.class, () -> bob)
        .run(context -> {
          assertThat(context).getBean(Callers.class).isSameAs(bob);
          assertThat(TestTasks.paths(context.getBean(ScanPlanner.class).plan(TABLE).tasks()))
              .allSatisfy(path -> assertThat(path).startsWith("s3://b/bob-"));
        });
  }

  @Test
  void exchangedCallersTokensActWithThePlannersOwnToken() {
    this.runner.withPropertyValues(tokenExchange()).run(context -> {
      assertThat(context).hasSingleBean(CallerTokenExchange.class).getBean(Callers.class)
          .hasToString("SpringSecurityCallers[token-exchange]");
      ScanPlanner planner = context.getBean(ScanPlanner.class);
      assertThat(planAs(bearer(ALICE_TOKEN), planner)).allSatisfy(path -> assertThat(path).startsWith("s3://b/alice-"));
      assertThat(this.catalog.authorizations()).containsOnly("Bearer catalog-alice-1");
      // the planner's own call (its health) and the exchange's actor: one client-credentials token
      this.catalog.accept("service-token-1", "service");
      assertThat(planner.checkCatalog(BOUND).supportsPlanning()).isTrue();
      assertThat(this.catalog.seen).last().extracting(CallerCatalog.Seen::authorization)
          .isEqualTo("Bearer service-token-1");
      assertThat(this.idp.serviceTokens.get()).isOne();
      assertThat(this.idp.exchanges).singleElement().satisfies(exchange -> assertThat(exchange)
          .containsEntry("subject_token", ALICE_TOKEN).containsEntry("actor_token", "service-token-1")
          .doesNotContainKey("audience").doesNotContainKey("scope"));
      assertThat(this.idp.violations).isEmpty();
    });
  }

  @Test
  void theExchangeRequestsTheAudienceScopesAndTokenTypeSetAtItsOwnEndpoint() {
    this.runner.withPropertyValues(tokenExchange("iceberg.rest.caller.token-exchange.token-uri="
            + this.idpServer.url("/token?exchange"), "iceberg.rest.caller.token-exchange.audience=catalog",
            "iceberg.rest.caller.token-exchange.scopes=read,plan"))
        .run(context -> {
          planAs(bearer(ALICE_TOKEN), context.getBean(ScanPlanner.class));
          assertThat(this.idp.exchanges).singleElement().satisfies(exchange -> assertThat(exchange)
              .containsEntry("audience", "catalog").containsEntry("scope", "read plan")
              .containsEntry("requested_token_type", IdentityProvider.ACCESS_TOKEN_TYPE));
          assertThat(this.idpServer.takeRequest().getTarget()).isEqualTo("/token");
          assertThat(this.idpServer.takeRequest().getTarget()).isEqualTo("/token?exchange");
        });
  }

  @Test
  void theExchangesLookupsAndExchangesAreMetered() {
    this.runner.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
            ScanPlanningMetricsAutoConfiguration.class))
        .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(tokenExchange()).run(context -> {
          ScanPlanner planner = context.getBean(ScanPlanner.class);
          planAs(bearer(ALICE_TOKEN), planner);
          planAs(bearer(ALICE_TOKEN), planner);
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          CallerTokenExchange.Statistics statistics = context.getBean(CallerTokenExchange.class).statistics();
          // the first plan's discovery, plan and two fetches, then the second's plan and fetches: one exchange
          assertThat(statistics.lookups()).isEqualTo(7);
          assertThat(registry.get("iceberg.rest.caller.token.lookups").tag("cache", "miss").functionCounter()
              .count()).isEqualTo(1);
          assertThat(registry.get("iceberg.rest.caller.token.lookups").tag("cache", "hit").functionCounter()
              .count()).isEqualTo(6);
          assertThat(registry.get("iceberg.rest.caller.token.exchanges").tag("outcome", "success")
              .functionCounter().count()).isEqualTo(1);
          assertThat(registry.get("iceberg.rest.caller.token.exchanges").tag("outcome", "refused")
              .functionCounter().count()).isZero();
          assertThat(registry.get("iceberg.rest.caller.token.cached").gauge().value()).isEqualTo(1);
        });
  }

  @Test
  void aTokenExchangeWithoutTheServicesClientCredentialsFailsStartUpNamingTheProperties() {
    this.runner.withPropertyValues(uri(), "iceberg.rest.identity=caller", "iceberg.rest.caller.mode=token-exchange")
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .hasMessageContaining("iceberg.rest.caller.mode is token-exchange")
            .hasMessageContaining("iceberg.rest.oauth2.client-id"));
  }

  @Test
  void misconfiguredCallerSettingsFailStartUpNamingTheProperty() {
    assertFailsNaming(new String[] { uri(), "iceberg.rest.caller.mode=token-exchange" }, "iceberg.rest.identity");
    assertFailsNaming(tokenExchange("iceberg.rest.caller.token-exchange.cache-size=0"),
        "iceberg.rest.caller.token-exchange.cache-size");
    assertFailsNaming(tokenExchange("iceberg.rest.caller.token-exchange.refresh-before=-1s"),
        "iceberg.rest.caller.token-exchange.refresh-before");
    assertFailsNaming(tokenExchange("iceberg.rest.caller.token-exchange.client-id=other"),
        "iceberg.rest.caller.token-exchange.client-id");
    assertFailsNaming(tokenExchange("iceberg.rest.caller.token-exchange.client-id=other",
        "iceberg.rest.caller.token-exchange.client-secret=${EXCHANGE_SECRET}"),
        "iceberg.rest.caller.token-exchange.client-secret");
    assertFailsNaming(tokenExchange("iceberg.rest.caller.token-exchange.token-uri=ftp://user:pw-9a1c@idp/token"),
        "iceberg.rest.caller.token-exchange.token-uri");
  }

  private void assertFailsNaming(String[] properties, String property) {
    this.runner.withPropertyValues(properties).run(context -> {
      assertThat(context).hasFailed();
      assertThat(messages(context)).as(property).contains(property).doesNotContain("pw-9a1c")
          .doesNotContain(IdentityProvider.CLIENT_SECRET);
    });
  }

  private static String messages(AssertableApplicationContext context) {
    StringBuilder messages = new StringBuilder();
    for (Throwable failure = context.getStartupFailure(); failure != null; failure = failure.getCause()) {
      messages.append(failure.getMessage()).append('\n');
    }
    return messages.toString();
  }

  @Test
  void withoutSpringSecurityCallerIdentityFailsStartUpSayingWhatToAdd() {
    ApplicationContextRunner withoutSpringSecurity = this.runner
        .withClassLoader(new FilteredClassLoader("org.springframework.security"));
    withoutSpringSecurity.withPropertyValues(uri(), "iceberg.rest.identity=caller")
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .hasMessageContaining("iceberg.rest.identity is caller")
            .hasMessageContaining("org.springframework.security:spring-security-oauth2-resource-server"));
    // the service's own identity needs no Spring Security
    withoutSpringSecurity.withPropertyValues(uri()).run(context -> assertThat(context).hasSingleBean(ScanPlanner.class)
        .doesNotHaveBean(Callers.class));
  }

  @Test
  void withoutSpringSecuritysOAuth2ClientTokenExchangeFailsStartUpSayingWhatToAdd() {
    this.runner.withClassLoader(new FilteredClassLoader("org.springframework.security.oauth2.client"))
        .withPropertyValues(tokenExchange())
        .run(context -> assertThat(context.getStartupFailure()).rootCause()
            .hasMessageContaining("org.springframework.security:spring-security-oauth2-client"));
  }

  @Test
  void theTokenExchangesSecretNeverShows() {
    this.runner.withPropertyValues(tokenExchange("iceberg.rest.caller.token-exchange.client-id=exchanger",
            "iceberg.rest.caller.token-exchange.client-secret=exchange-secret-42f0",
            "iceberg.rest.caller.token-exchange.token-uri=https://user:pw-9a1c@idp.example.com/token"))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(IcebergRestProperties.class).toString()).contains("exchanger", "******")
              .doesNotContain("exchange-secret-42f0").doesNotContain("pw-9a1c");
          assertThat(context.getBean(CallerTokenExchange.class).toString()).contains("exchanger")
              .doesNotContain("exchange-secret-42f0").doesNotContain("pw-9a1c");
        });
  }
}
