package io.icebergscan.planning.autoconfigure;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import org.jspecify.annotations.Nullable;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2Token;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import reactor.core.publisher.Mono;

/**
 * Callers' tokens exchanged for tokens of the catalog ({@code iceberg.rest.caller.mode=token-exchange}): each caller's
 * bearer token is the subject of an OAuth 2.0 token exchange (RFC 8693) whose actor is the application's own
 * client-credentials token, the one its planner authenticates its own calls with.
 *
 * <p>Each caller's catalog token is kept, under a digest of the caller's token (never the token), until
 * {@code refresh-before} its expiry, for the {@code cache-size} most recently active callers; the least recently
 * active one beyond goes and is exchanged anew when it comes back. Requests of one caller that need a token at the same
 * time share one exchange. When the catalog refuses a caller's catalog token (401, or 419 for an expired one), that
 * token is dropped, unless another request has replaced it already, and the request is sent once more with a fresh
 * one. {@link #statistics()} counts lookups, hits and exchanges, for metrics and benchmarks.
 *
 * <p>Built by the auto-configuration; an application's own {@code Callers} may use {@link #credentials}.
 */
public final class CallerTokenExchange {

  /** Default number of callers whose catalog tokens are kept. */
  public static final int DEFAULT_CACHE_SIZE = 10_000;
  /** Default time before its expiry when a caller's catalog token is exchanged anew. */
  public static final Duration DEFAULT_REFRESH_BEFORE = Duration.ofSeconds(60);
  /** The token type requested by default: an access token (of the catalog). */
  public static final String DEFAULT_REQUESTED_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";

  /** Spring Security reads a token answer without {@code expires_in} as valid for one second. */
  private static final Duration UNKNOWN_LIFETIME = Duration.ofSeconds(1);

  private final TokenExchangeGrant grant;
  private final OAuth2ClientCredentials service;
  private final Duration refreshBefore;
  private final Duration defaultLifetime;
  private final Clock clock;
  private final Map<String, Subject> subjects;

  private final LongAdder lookups = new LongAdder();
  private final LongAdder exchanges = new LongAdder();
  private final LongAdder exchanged = new LongAdder();
  private final LongAdder exchangesRefused = new LongAdder();
  private final LongAdder exchangesFailed = new LongAdder();
  private final LongAdder catalogRefusals = new LongAdder();

  /**
   * @param service the application's own client credentials: its access token is the actor token
   * @param defaultLifetime the lifetime of a catalog token whose answer has no {@code expires_in}
   */
  CallerTokenExchange(TokenExchangeGrant grant, OAuth2ClientCredentials service, Duration refreshBefore,
      Duration defaultLifetime, int cacheSize, Clock clock) {
    this.grant = grant;
    this.service = service;
    this.refreshBefore = refreshBefore;
    this.defaultLifetime = defaultLifetime;
    this.clock = clock;
    // in access order: the eldest is the least recently active caller
    this.subjects = new LinkedHashMap<>(16, 0.75f, true) {

      @Override
      protected boolean removeEldestEntry(Map.Entry<String, Subject> eldest) {
        return size() > cacheSize;
      }
    };
  }

  /**
   * The catalog credentials of the caller whose bearer token is {@code subject}: the catalog token exchanged for it,
   * shared with every other credentials of the same token. Their {@linkplain CatalogCredentials#principal() principal}
   * is {@code exchange:} and a digest of the caller's token.
   */
  public CatalogCredentials credentials(OAuth2Token subject) {
    return new SubjectCredentials(subject, CatalogCredentials.digest(subject.getTokenValue()));
  }

  /** What the exchange did so far. */
  public Statistics statistics() {
    int cached;
    synchronized (this.subjects) {
      cached = this.subjects.size();
    }
    return new Statistics(this.lookups.sum(), this.exchanges.sum(), this.exchanged.sum(), this.exchangesRefused.sum(),
        this.exchangesFailed.sum(), this.catalogRefusals.sum(), cached);
  }

  /** The application's own client credentials, which its planner authenticates its own calls with too. */
  ExchangeFilterFunction serviceCredentials() {
    return this.service;
  }

  private Subject subject(String key, OAuth2Token token) {
    synchronized (this.subjects) {
      return this.subjects.computeIfAbsent(key, ignored -> new Subject(token));
    }
  }

  private @Nullable Subject kept(String key) {
    synchronized (this.subjects) {
      return this.subjects.get(key);
    }
  }

  private Mono<Exchanged> exchange(OAuth2Token subject) {
    return Mono.defer(() -> {
      this.exchanges.increment();
      return this.service.accessToken().flatMap(actor -> this.grant.exchange(subject, actor));
    })
        .map(token -> new Exchanged("Bearer " + token.getTokenValue(), refreshAt(token), new AtomicBoolean()))
        .doOnNext(token -> this.exchanged.increment())
        .doOnError(failure -> (failure instanceof TokenExchangeException ? this.exchangesRefused
            : this.exchangesFailed).increment());
  }

  private Instant refreshAt(OAuth2AccessToken token) {
    Instant issued = token.getIssuedAt() != null ? token.getIssuedAt() : this.clock.instant();
    Instant expires = token.getExpiresAt();
    if (expires == null || Duration.between(issued, expires).compareTo(UNKNOWN_LIFETIME) <= 0) {
      expires = issued.plus(this.defaultLifetime);
    }
    return expires.minus(this.refreshBefore);
  }

  @Override
  public String toString() {
    return "CallerTokenExchange[" + this.grant + "]";
  }

  /**
   * What the exchange did so far.
   *
   * @param lookups catalog tokens asked for, one per request of a caller
   * @param exchanges exchanges sent to the token endpoint: the lookups that missed
   * @param exchanged exchanges that gave a catalog token
   * @param exchangesRefused exchanges the token endpoint refused (or answered with no usable token)
   * @param exchangesFailed exchanges that got no answer, or failed for want of the application's own token
   * @param catalogRefusals catalog tokens the catalog refused, which were dropped
   * @param cached callers whose catalog tokens are kept now
   */
  public record Statistics(long lookups, long exchanges, long exchanged, long exchangesRefused, long exchangesFailed,
      long catalogRefusals, int cached) {

    /** The lookups that needed no exchange of their own: a kept token, or one being exchanged for another request. */
    public long hits() {
      return Math.max(0, this.lookups - this.exchanges);
    }

    /** The share of lookups that were hits, 0 before the first. */
    public double hitRate() {
      return this.lookups == 0 ? 0 : (double) hits() / this.lookups;
    }
  }

  /**
   * A caller's catalog token as exchanged: its header value, when it is due to be exchanged anew, and whether the
   * catalog refused it (then the next lookup exchanges anew).
   */
  private record Exchanged(String authorization, Instant refreshAt, AtomicBoolean refused) {
  }

  /** One caller's slot: the exchange its requests share, kept while fresh. */
  private final class Subject {

    final Mono<Exchanged> token;
    volatile @Nullable Exchanged latest;

    Subject(OAuth2Token subject) {
      // Reactor's invalidating cache: requests that arrive while an exchange is in flight join it; a failure is not
      // kept (the next request exchanges again); a kept token is checked when a request comes, and replaced when due
      // or refused; when every request waiting for an exchange has gone (each bounded by its request timeout), the
      // exchange is cancelled and the next request starts a new one
      this.token = exchange(subject).doOnNext(token -> this.latest = token)
          .cacheInvalidateIf(token -> token.refused().get() || !CallerTokenExchange.this.clock.instant()
              .isBefore(token.refreshAt()));
    }
  }

  /** The credentials of one caller's token: what the planner's requests for that caller carry. */
  private final class SubjectCredentials implements CatalogCredentials {

    private final OAuth2Token subject;
    private final String key;

    SubjectCredentials(OAuth2Token subject, String key) {
      this.subject = subject;
      this.key = key;
    }

    @Override
    public String principal() {
      return "exchange:" + this.key;
    }

    @Override
    public Mono<String> authorization() {
      return Mono.defer(() -> {
        CallerTokenExchange.this.lookups.increment();
        return subject(this.key, this.subject).token;
      }).map(Exchanged::authorization);
    }

    /**
     * Drops the refused token if it is still this caller's kept one (a late refusal of a token that was replaced
     * meanwhile leaves the new one), and has the request sent once more, with a token exchanged anew (or the one
     * that replaced it). The planner sends a request at most twice, so a catalog that refuses every exchanged token
     * costs one exchange per request, no more.
     */
    @Override
    public boolean refused(String authorization) {
      CallerTokenExchange.this.catalogRefusals.increment();
      Subject kept = kept(this.key);
      Exchanged latest = kept != null ? kept.latest : null;
      if (latest != null && latest.authorization().equals(authorization)) {
        latest.refused().set(true);
      }
      return true;
    }

    @Override
    public String toString() {
      return "CatalogCredentials.exchange[" + principal() + "]";
    }
  }
}
