package io.icebergscan.planning.autoconfigure;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Date;
import java.util.List;
import java.util.UUID;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TestTasks;
import io.icebergscan.planning.model.TableIdentifier;
import mockwebserver3.MockWebServer;
import mockwebserver3.junit5.StartStop;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.http.codec.autoconfigure.CodecsAutoConfiguration;
import org.springframework.boot.http.converter.autoconfigure.HttpMessageConvertersAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.reactor.netty.autoconfigure.NettyReactiveWebServerAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.tomcat.autoconfigure.servlet.TomcatServletWebServerAutoConfiguration;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.webclient.autoconfigure.WebClientAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.HttpHandlerAutoConfiguration;
import org.springframework.boot.webflux.autoconfigure.WebFluxAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.DispatcherServletAutoConfiguration;
import org.springframework.boot.webmvc.autoconfigure.WebMvcAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configuration.EnableWebSecurity;
import org.springframework.security.config.annotation.web.reactive.EnableWebFluxSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.config.web.server.ServerHttpSecurity;
import org.springframework.security.oauth2.jwt.JwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusJwtDecoder;
import org.springframework.security.oauth2.jwt.NimbusReactiveJwtDecoder;
import org.springframework.security.oauth2.jwt.ReactiveJwtDecoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.server.SecurityWebFilterChain;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Planning as the caller, end to end: a Spring MVC and a WebFlux application, each a resource server of JWTs signed
 * with a key of the test's behind Spring Security's real filter chain, plan through the auto-configured planner in a
 * controller (MVC: a blocking plan on the request's thread; WebFlux: streamed tasks collected in the request's
 * reactive chain). The catalog authenticates each request's bearer token as a principal and records it; the
 * identity provider exchanges callers' tokens as RFC 8693 has it, checking the client, the subject and the actor.
 */
@ExtendWith(OutputCaptureExtension.class)
class CallerIdentityEndToEndTests {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");
  private static final KeyPair KEYS = rsa();
  private static final Duration BOUND = Duration.ofSeconds(10);
  private static final String PUBLIC = "/public/**";

  enum Web {
    MVC, WEBFLUX
  }

  @StartStop
  private final MockWebServer catalogServer = new MockWebServer();

  @StartStop
  private final MockWebServer idpServer = new MockWebServer();

  private final CallerCatalog catalog = new CallerCatalog();
  private final IdentityProvider idp = new IdentityProvider();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(BOUND).build();
  private @Nullable ConfigurableApplicationContext application;
  private int port;

  @BeforeEach
  void serve() {
    this.catalogServer.setDispatcher(this.catalog);
    this.idpServer.setDispatcher(this.idp);
  }

  @AfterEach
  void stop() {
    if (this.application != null) {
      this.application.close();
    }
  }

  private void start(Web web, String... properties) {
    List<String> all = new ArrayList<>(List.of("server.port=0", "spring.main.banner-mode=off",
        "iceberg.rest.uri=" + this.catalogServer.url("/"), "iceberg.rest.identity=caller",
        "iceberg.rest.scan-planning.problem-details.enabled=true"));
    Collections.addAll(all, properties);
    this.application = new SpringApplicationBuilder(web == Web.MVC ? MvcApplication.class : WebFluxApplication.class)
        .web(web == Web.MVC ? WebApplicationType.SERVLET : WebApplicationType.REACTIVE)
        .properties(all.toArray(String[]::new))
        .run();
    this.port = ((WebServerApplicationContext) this.application).getWebServer().getPort();
  }

  private void startExchanging(Web web, String... properties) {
    List<String> all = new ArrayList<>(List.of("iceberg.rest.caller.mode=token-exchange",
        "iceberg.rest.oauth2.client-id=" + IdentityProvider.CLIENT_ID,
        "iceberg.rest.oauth2.client-secret=" + IdentityProvider.CLIENT_SECRET,
        "iceberg.rest.oauth2.token-uri=" + this.idpServer.url("/token")));
    Collections.addAll(all, properties);
    start(web, all.toArray(String[]::new));
  }

  private CallerTokenExchange.Statistics statistics() {
    assertThat(this.application).isNotNull();
    return this.application.getBean(CallerTokenExchange.class).statistics();
  }

  /** What the application answered. */
  record Answer(int status, HttpHeaders headers, String body) {
  }

  private Answer get(String path, @Nullable String token) throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://localhost:" + this.port + path))
        .timeout(BOUND);
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    HttpResponse<String> response = this.http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Answer(response.statusCode(), response.headers(), response.body());
  }

  /** The files of {@code principal}'s first {@code n}th plan: its root task and one from each plan-task. */
  private static String[] files(String principal, int plan) {
    String id = principal + "-" + plan;
    return new String[] { "s3://b/" + principal + "-" + id + ".parquet",
        "s3://b/" + principal + "-" + id + "-a.parquet", "s3://b/" + principal + "-" + id + "-b.parquet" };
  }

  private static List<String> times(int count, String value) {
    return Collections.nCopies(count, value);
  }

  @ParameterizedTest
  @EnumSource(Web.class)
  void passedThroughEachCallersOwnTokenReachesTheCatalog(Web web) throws Exception {
    start(web);
    String alice = jwt("alice");
    String bob = jwt("bob");
    this.catalog.accept(alice, "alice").accept(bob, "bob");

    Answer alices = get("/plan", alice);
    Answer bobs = get("/plan", bob);

    assertThat(alices.status()).isEqualTo(200);
    assertThat(alices.body()).contains(files("alice", 1)).doesNotContain("bob");
    assertThat(bobs.status()).isEqualTo(200);
    assertThat(bobs.body()).contains(files("bob", 2)).doesNotContain("alice");
    // each call's discovery, plan and two fetches: all with its own caller's token
    List<String> expected = new ArrayList<>(times(4, "Bearer " + alice));
    expected.addAll(times(4, "Bearer " + bob));
    assertThat(this.catalog.authorizations()).isEqualTo(expected);
    assertThat(this.catalog.violations).isEmpty();
    assertThat(this.idpServer.getRequestCount()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Web.class)
  void exchangedEachCallerGetsItsCatalogTokenOnceAndKeepsIt(Web web) throws Exception {
    startExchanging(web);
    String alice = jwt("alice");
    String bob = jwt("bob");
    this.idp.subject(alice, "alice").subject(bob, "bob");

    assertThat(get("/plan", alice).body()).contains(files("alice", 1));
    assertThat(get("/plan", alice).body()).contains(files("alice", 2));
    assertThat(get("/plan", bob).body()).contains(files("bob", 3));

    // alice's second call (its plan and fetches: the discovery is kept) hits her kept token; bob's misses
    List<String> expected = new ArrayList<>(times(7, "Bearer catalog-alice-1"));
    expected.addAll(times(4, "Bearer catalog-bob-1"));
    assertThat(this.catalog.authorizations()).isEqualTo(expected);
    assertThat(this.idp.exchangesOf("alice")).isOne();
    assertThat(this.idp.exchangesOf("bob")).isOne();
    assertThat(this.idp.exchanges).extracting(exchange -> exchange.get("subject_token")).containsExactly(alice, bob);
    assertThat(this.idp.exchanges).allSatisfy(exchange -> assertThat(exchange)
        .containsEntry("grant_type", IdentityProvider.GRANT)
        .containsEntry("subject_token_type", IdentityProvider.JWT_TOKEN_TYPE)
        .containsEntry("actor_token", "service-token-1")
        .containsEntry("actor_token_type", IdentityProvider.ACCESS_TOKEN_TYPE));
    assertThat(this.idp.serviceTokens.get()).as("the actor's token, obtained once").isOne();
    assertThat(this.idp.violations).isEmpty();
    assertThat(this.catalog.violations).isEmpty();
    CallerTokenExchange.Statistics statistics = statistics();
    assertThat(statistics.lookups()).isEqualTo(11);
    assertThat(statistics.exchanges()).isEqualTo(2);
    assertThat(statistics.hits()).isEqualTo(9);
  }

  @ParameterizedTest
  @EnumSource(Web.class)
  void aCallWithoutAnAuthenticatedCallerIsA401ProblemAndSendsNothing(Web web) throws Exception {
    start(web);

    Answer answer = get("/public/plan", null);

    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type -> assertThat(type)
        .startsWith("application/problem+json"));
    assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(answer.body()).contains("\"detail\":\"The request has no authenticated caller\"", "\"status\":401")
        .doesNotContain("exception");
    assertThat(this.catalog.seen).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Web.class)
  void anExchangeTheProviderRefusesIsA401ProblemThatNamesNeitherTheProviderNorTheException(Web web)
      throws Exception {
    startExchanging(web);
    String mallory = jwt("mallory");
    this.idp.subject(mallory, "mallory").refuse(mallory);

    Answer answer = get("/plan", mallory);

    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer error=\"invalid_token\"");
    assertThat(answer.body()).contains("\"detail\":\"The caller's token was refused\"")
        .doesNotContain(this.idpServer.getHostName() + ":" + this.idpServer.getPort()).doesNotContain("/token")
        .doesNotContain("invalid_grant").doesNotContain(IdentityProvider.GRANT).doesNotContain("Exception")
        .doesNotContain(mallory);
  }

  /** Even the body for development, with the exception's message and type, quotes no token. */
  @ParameterizedTest
  @EnumSource(Web.class)
  void anExchangeTheProviderRefusesIsA401ProblemThatQuotesNoToken(Web web, CapturedOutput output) throws Exception {
    startExchanging(web, "iceberg.rest.scan-planning.problem-details.include-message=true",
        "iceberg.rest.scan-planning.problem-details.include-exception=true");
    String mallory = jwt("mallory");
    this.idp.subject(mallory, "mallory").refuse(mallory);

    Answer answer = get("/plan", mallory);

    assertThat(answer.status()).isEqualTo(401);
    assertThat(answer.headers().firstValue("WWW-Authenticate")).hasValue("Bearer error=\"invalid_token\"");
    assertThat(answer.body()).contains("\"exception\":\"TokenExchangeException\"", "invalid_grant",
        IdentityProvider.GRANT, this.idpServer.url("/token").toString());
    for (String shown : List.of(answer.body(), output.getAll())) {
      assertThat(shown).doesNotContain(mallory).doesNotContain("service-token")
          .doesNotContain(IdentityProvider.CLIENT_SECRET).doesNotContain("may not be exchanged");
    }
    assertThat(this.catalog.seen).isEmpty();
    assertThat(statistics().exchangesRefused()).isOne();
  }

  @ParameterizedTest
  @EnumSource(Web.class)
  void aCatalogTokenThatExpiredIsExchangedAnewForTheSameCaller(Web web) throws Exception {
    startExchanging(web);
    String alice = jwt("alice");
    String bob = jwt("bob");
    this.idp.subject(alice, "alice").subject(bob, "bob");
    get("/plan", bob);
    get("/plan", alice);
    this.catalog.expire("catalog-alice-1");
    int before = this.catalog.seen.size();

    Answer answer = get("/plan", alice);

    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.body()).contains(files("alice", 3));
    // the plan refused with the expired token, sent once more with a fresh one, then the fetches with it: never
    // bob's kept token, nor the service's
    assertThat(this.catalog.authorizations().subList(before, this.catalog.seen.size())).containsExactly(
        "Bearer catalog-alice-1", "Bearer catalog-alice-2", "Bearer catalog-alice-2", "Bearer catalog-alice-2");
    assertThat(this.idp.exchangesOf("alice")).isEqualTo(2);
    assertThat(this.idp.exchangesOf("bob")).isOne();
    assertThat(statistics().catalogRefusals()).isOne();
    assertThat(this.catalog.violations).isEmpty();
  }

  private static KeyPair rsa() {
    try {
      KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
      generator.initialize(2048);
      return generator.generateKeyPair();
    }
    catch (NoSuchAlgorithmException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  /** A JWT of {@code subject}, valid for an hour, signed with the test's key; each one different. */
  private static String jwt(String subject) throws JOSEException {
    JWTClaimsSet claims = new JWTClaimsSet.Builder().subject(subject).jwtID(UUID.randomUUID().toString())
        .issueTime(new Date()).expirationTime(new Date(System.currentTimeMillis() + 3_600_000)).build();
    SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.RS256), claims);
    jwt.sign(new RSASSASigner(KEYS.getPrivate()));
    return jwt.serialize();
  }

  /** What both applications have: the planner and its problem details, with their own web stack and security. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ JacksonAutoConfiguration.class, WebClientAutoConfiguration.class,
      TaskExecutionAutoConfiguration.class, ScanPlanningAutoConfiguration.class,
      ScanPlanningProblemDetailsAutoConfiguration.class })
  static class Planning {
  }

  /** A Spring MVC resource server on Tomcat whose controller plans with a blocking call on the request's thread. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ TomcatServletWebServerAutoConfiguration.class, DispatcherServletAutoConfiguration.class,
      WebMvcAutoConfiguration.class, HttpMessageConvertersAutoConfiguration.class })
  @EnableWebSecurity
  @Import({ Planning.class, MvcPlans.class })
  static class MvcApplication {

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
      return http.authorizeHttpRequests(requests -> requests.requestMatchers(PUBLIC).permitAll()
              .anyRequest().authenticated())
          .oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()))
          .sessionManagement(sessions -> sessions.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
          .csrf(csrf -> csrf.disable()).build();
    }

    @Bean
    JwtDecoder jwtDecoder() {
      return NimbusJwtDecoder.withPublicKey((RSAPublicKey) KEYS.getPublic()).build();
    }
  }

  /** A WebFlux resource server on Reactor Netty whose controller returns the plan's streamed tasks, collected. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ NettyReactiveWebServerAutoConfiguration.class, HttpHandlerAutoConfiguration.class,
      WebFluxAutoConfiguration.class, CodecsAutoConfiguration.class })
  @EnableWebFluxSecurity
  @Import({ Planning.class, WebFluxPlans.class })
  static class WebFluxApplication {

    @Bean
    SecurityWebFilterChain securityWebFilterChain(ServerHttpSecurity http) {
      return http.authorizeExchange(exchanges -> exchanges.pathMatchers(PUBLIC).permitAll()
              .anyExchange().authenticated())
          .oauth2ResourceServer(server -> server.jwt(Customizer.withDefaults()))
          .csrf(csrf -> csrf.disable()).build();
    }

    @Bean
    ReactiveJwtDecoder jwtDecoder() {
      return NimbusReactiveJwtDecoder.withPublicKey((RSAPublicKey) KEYS.getPublic()).build();
    }
  }

  /** The applications' controllers: {@code /plan} needs a bearer token, {@code /public/plan} lets anyone in. */
  abstract static class Plans {

    final ScanPlanner planner;

    Plans(ScanPlanner planner) {
      this.planner = planner;
    }
  }

  @RestController
  static class MvcPlans extends Plans {

    MvcPlans(ScanPlanner planner) {
      super(planner);
    }

    @GetMapping({ "/plan", "/public/plan" })
    List<String> plan() {
      return TestTasks.paths(this.planner.plan(TABLE).tasks());
    }
  }

  @RestController
  static class WebFluxPlans extends Plans {

    WebFluxPlans(ScanPlanner planner) {
      super(planner);
    }

    @GetMapping({ "/plan", "/public/plan" })
    Mono<List<String>> plan() {
      return this.planner.planTasks(TABLE, ScanRequest.all()).map(task -> task.dataFile().filePath()).collectList();
    }
  }
}
