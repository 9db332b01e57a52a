package io.icebergscan.planning.test;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * Who a catalog's callers are: its principals, the bearer tokens each one's requests carry (given by the test, or
 * issued by the token endpoint until they expire), the tables each one was granted, the OAuth2 clients that get tokens
 * for a principal, and the identity provider's tokens that are exchanged for one. Set and read from any thread; a
 * change applies to the requests that arrive after it. Nothing here writes a token into a message.
 */
final class Principals {

  /** How long an issued token is accepted unless the test says otherwise. */
  static final Duration DEFAULT_ISSUED_TOKEN_LIFETIME = Duration.ofHours(1);

  /** A principal's tables; none granted means every table. */
  private final Map<String, Set<TableIdentifier>> grants = new ConcurrentHashMap<>();
  private final Map<String, Token> tokens = new ConcurrentHashMap<>();
  private final Map<String, Client> clients = new ConcurrentHashMap<>();
  /** The identity provider's tokens that can be exchanged, and whose principal each one is. */
  private final Map<String, String> subjectTokens = new ConcurrentHashMap<>();
  private final SecureRandom random = new SecureRandom();
  private volatile Clock clock = Clock.systemUTC();
  private volatile Duration issuedTokenLifetime = DEFAULT_ISSUED_TOKEN_LIFETIME;

  /**
   * A token a principal's requests carry.
   *
   * @param expiresAt when an issued token stops being accepted; {@code null} for a token the test gave
   */
  private record Token(String principal, @Nullable Instant expiresAt) {
  }

  private record Client(String principal, String secret) {
  }

  /**
   * A token the endpoint issued.
   *
   * @param expiresIn its lifetime in whole seconds, the {@code expires_in} of the answer
   */
  record Issued(String token, long expiresIn) {

    @Override
    public String toString() {
      return "Issued[expiresIn=" + this.expiresIn + "]";
    }
  }

  /** Defines the principal if it is new, and adds the tokens to its own. */
  void define(String principal, String... bearerTokens) {
    requireText(principal, "principal");
    for (String token : bearerTokens) {
      requireText(token, "a bearer token");
      Token known = this.tokens.get(token);
      if (known != null && !known.principal().equals(principal)) {
        throw new IllegalArgumentException("that bearer token is already the token of the principal "
            + known.principal());
      }
    }
    this.grants.computeIfAbsent(principal, name -> ConcurrentHashMap.newKeySet());
    for (String token : bearerTokens) {
      this.tokens.put(token, new Token(principal, null));
    }
  }

  /** Whether the catalog has principals, so that every request must carry one's token. */
  boolean any() {
    return !this.grants.isEmpty();
  }

  /** The principal whose token this is and still accepted, {@code null} for none or an unknown or expired one. */
  @Nullable String authenticate(@Nullable String bearerToken) {
    Token token = bearerToken == null ? null : this.tokens.get(bearerToken);
    if (token == null || (token.expiresAt() != null && !this.clock.instant().isBefore(token.expiresAt()))) {
      return null;
    }
    return token.principal();
  }

  /** Grants the principal the table, which makes every other table it was not granted forbidden to it. */
  void grant(String principal, TableIdentifier table) {
    Objects.requireNonNull(table, "table");
    defined(principal).add(table);
  }

  /** Whether the principal may use the table: it was granted the table, or no table at all. */
  boolean mayUse(String principal, TableIdentifier table) {
    Set<TableIdentifier> granted = this.grants.get(principal);
    return granted == null || granted.isEmpty() || granted.contains(table);
  }

  void clientCredentials(String principal, String clientId, String clientSecret) {
    requireText(clientId, "clientId");
    requireText(clientSecret, "clientSecret");
    defined(principal);
    this.clients.put(clientId, new Client(principal, clientSecret));
  }

  /**
   * The principal of the client if the secret is its, compared in constant time; {@code null} for an unknown client
   * or a wrong secret.
   */
  @Nullable String authenticateClient(String clientId, String clientSecret) {
    Client client = this.clients.get(clientId);
    if (client == null || !MessageDigest.isEqual(client.secret().getBytes(StandardCharsets.UTF_8),
        clientSecret.getBytes(StandardCharsets.UTF_8))) {
      return null;
    }
    return client.principal();
  }

  void exchangeable(String subjectToken, String principal) {
    requireText(subjectToken, "subjectToken");
    defined(principal);
    this.subjectTokens.put(subjectToken, principal);
  }

  /** The principal a subject token is exchanged for, {@code null} when it is not one the catalog exchanges. */
  @Nullable String subject(String subjectToken) {
    return this.subjectTokens.get(subjectToken);
  }

  /** A new random token for the principal, accepted for the issued-token lifetime from now on the clock. */
  Issued issue(String principal) {
    byte[] bytes = new byte[32];
    this.random.nextBytes(bytes);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    Duration lifetime = this.issuedTokenLifetime;
    this.tokens.put(token, new Token(principal, this.clock.instant().plus(lifetime)));
    return new Issued(token, lifetime.toSeconds());
  }

  /** Stops accepting the token: an issued one is kept as expired, a given one is forgotten. */
  void expire(String bearerToken) {
    Objects.requireNonNull(bearerToken, "token");
    Token token = this.tokens.get(bearerToken);
    if (token == null) {
      throw new IllegalArgumentException("that token is not a token of any principal");
    }
    if (token.expiresAt() == null) {
      this.tokens.remove(bearerToken);
    }
    else {
      this.tokens.put(bearerToken, new Token(token.principal(), Instant.MIN));
    }
  }

  void clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  void issuedTokenLifetime(Duration lifetime) {
    Objects.requireNonNull(lifetime, "lifetime");
    if (lifetime.isNegative() || lifetime.isZero()) {
      throw new IllegalArgumentException("an issued token's lifetime must be positive: " + lifetime);
    }
    this.issuedTokenLifetime = lifetime;
  }

  private Set<TableIdentifier> defined(String principal) {
    Objects.requireNonNull(principal, "principal");
    Set<TableIdentifier> granted = this.grants.get(principal);
    if (granted == null) {
      throw new IllegalArgumentException("no principal " + principal + ": define it with principal(name, tokens...)");
    }
    return granted;
  }

  private static void requireText(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }
}
