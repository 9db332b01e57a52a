package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import com.sun.net.httpserver.HttpServer;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.autoconfigure.CallerTokenExchange;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;
import org.springframework.security.oauth2.core.OAuth2AccessToken;

/**
 * The token-exchange cache under 64 concurrent callers (issue #38): one operation is a round of {@code callers}
 * callers at once, each planning {@code plansPerCaller} flat plans of {@code handles} fetches as itself, through the
 * Spring Boot starter's planner in caller mode with {@code iceberg.rest.caller.mode=token-exchange}, against a token
 * endpoint that issues an hour's token for any exchange. {@code fresh}: every round's callers are new users (each
 * subject is exchanged once, the worst case); otherwise the same users come back every round (the steady state).
 * Reported: the cache's hit rate over the iteration's lookups (one per catalog request), and exchanges per caller and
 * round, besides the time of a round.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 4)
@Measurement(iterations = 5, time = 4)
public class CallerTokenExchanges {

  @Param({ "64" })
  public int callers;

  @Param({ "4" })
  public int plansPerCaller;

  @Param({ "16" })
  public int handles;

  @Param({ "true", "false" })
  public boolean fresh;

  private LatencyCatalog catalog;
  private HttpServer tokenEndpoint;
  private final AtomicLong issued = new AtomicLong();
  private ConfigurableApplicationContext context;
  private ScanPlanner planner;
  private CallerTokenExchange exchange;
  private ExecutorService threads;
  private long round;

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ScanPlanningAutoConfiguration.class)
  static class Application {

    /** No Spring Security resource server here: each round's callers are given to views of the planner. */
    @Bean
    Callers callers() {
      return () -> null;
    }
  }

  @Setup(Level.Trial)
  public void start() throws IOException {
    this.catalog = new LatencyCatalog(PlanTree.flat(this.handles, 0));
    this.tokenEndpoint = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    this.tokenEndpoint.createContext("/token", http -> {
      http.getRequestBody().readAllBytes();
      byte[] answer = ("{\"access_token\":\"issued-" + this.issued.incrementAndGet() + "\",\"issued_token_type\":"
          + "\"urn:ietf:params:oauth:token-type:access_token\",\"token_type\":\"Bearer\",\"expires_in\":3600}")
          .getBytes(StandardCharsets.UTF_8);
      http.getResponseHeaders().set("Content-Type", "application/json");
      http.sendResponseHeaders(200, answer.length);
      http.getResponseBody().write(answer);
      http.close();
    });
    this.tokenEndpoint.setExecutor(Executors.newFixedThreadPool(2));
    this.tokenEndpoint.start();
    String tokenUri = "http://127.0.0.1:" + this.tokenEndpoint.getAddress().getPort() + "/token";
    // a plain context: the shaded jar keeps one spring.factories of many, which SpringApplication would need
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("benchmark", Map.of(
        "iceberg.rest.uri", this.catalog.uri(), "iceberg.rest.identity", "caller",
        "iceberg.rest.caller.mode", "token-exchange", "iceberg.rest.oauth2.token-uri", tokenUri,
        "iceberg.rest.oauth2.client-id", "service", "iceberg.rest.oauth2.client-secret", "secret",
        "iceberg.rest.scan-planning.max-concurrency", "16")));
    context.register(Application.class);
    context.refresh();
    this.context = context;
    this.planner = this.context.getBean(ScanPlanner.class);
    this.exchange = this.context.getBean(CallerTokenExchange.class);
    this.threads = Executors.newFixedThreadPool(this.callers);
  }

  @AuxCounters(AuxCounters.Type.EVENTS)
  @State(Scope.Thread)
  public static class Cache {

    /** Lookups of a caller's catalog token in the iteration: one per catalog request. */
    public long lookups;
    /** Of those, the ones answered from the cache. */
    public long hits;
    /** Exchanges at the token endpoint in the iteration. */
    public long exchanges;
    /** Caller-rounds in the iteration, to divide the exchanges by. */
    public long callerRounds;

    @Setup(Level.Iteration)
    public void reset() {
      this.lookups = 0;
      this.hits = 0;
      this.exchanges = 0;
      this.callerRounds = 0;
    }
  }

  @Benchmark
  public long round(Cache cache) throws Exception {
    CallerTokenExchange.Statistics before = this.exchange.statistics();
    long subjects = this.fresh ? this.round++ : 0;
    List<CompletableFuture<Integer>> rounds = new ArrayList<>(this.callers);
    for (int caller = 0; caller < this.callers; caller++) {
      OAuth2AccessToken subject = new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER,
          "user-" + caller + "-" + subjects,
          Instant.now(), Instant.now().plusSeconds(3600));
      CatalogCredentials credentials = this.exchange.credentials(subject);
      rounds.add(CompletableFuture.supplyAsync(() -> {
        int tasks = 0;
        for (int plan = 0; plan < this.plansPerCaller; plan++) {
          tasks += this.planner.as(credentials).plan(FlatFanOut.TABLE, ScanRequest.all()).tasks().size();
        }
        return tasks;
      }, this.threads));
    }
    long tasks = 0;
    for (CompletableFuture<Integer> caller : rounds) {
      tasks += caller.get(60, TimeUnit.SECONDS);
    }
    if (tasks != (long) this.callers * this.plansPerCaller * this.handles) {
      throw new IllegalStateException("expected " + this.callers * this.plansPerCaller * this.handles + " tasks, got "
          + tasks);
    }
    CallerTokenExchange.Statistics after = this.exchange.statistics();
    cache.lookups += after.lookups() - before.lookups();
    cache.hits += after.hits() - before.hits();
    cache.exchanges += after.exchanges() - before.exchanges();
    cache.callerRounds += this.callers;
    return tasks;
  }

  @TearDown(Level.Trial)
  public void stop() {
    CallerTokenExchange.Statistics total = this.exchange.statistics();
    System.out.printf("%ntrial: %d lookups, %d hits (hit rate %.4f), %d exchanges, %d tokens issued%n",
        total.lookups(), total.hits(), total.hitRate(), total.exchanges(), this.issued.get());
    this.threads.shutdownNow();
    this.context.close();
    this.tokenEndpoint.stop(0);
    this.catalog.close();
  }
}
