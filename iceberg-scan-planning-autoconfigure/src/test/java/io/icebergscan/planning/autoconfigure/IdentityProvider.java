package io.icebergscan.planning.autoconfigure;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;

/**
 * An OAuth2 token endpoint ({@code POST /token}) that gives the application's client its client-credentials tokens
 * ({@code service-token-<n>}) and exchanges callers' tokens (RFC 8693) for catalog tokens
 * ({@code catalog-<principal>-<n>}, as {@link CallerCatalog} accepts them). An exchange must authenticate the client
 * (HTTP Basic), present a subject token it knows and, as the actor, the service's current token; anything else is a
 * violation. It refuses the subjects it is told to with {@code invalid_grant}, and an {@code error_description} that
 * quotes the subject token, as careless providers do.
 */
final class IdentityProvider extends Dispatcher {

  static final String CLIENT_ID = "planner";
  static final String CLIENT_SECRET = "planner-secret-6d1e";
  static final String GRANT = "urn:ietf:params:oauth:grant-type:token-exchange";
  static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
  static final String JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";

  final Queue<Map<String, String>> exchanges = new ConcurrentLinkedQueue<>();
  final Queue<String> violations = new ConcurrentLinkedQueue<>();
  final AtomicInteger serviceTokens = new AtomicInteger();
  private final Map<String, String> subjects = new ConcurrentHashMap<>();
  private final Map<String, Boolean> refused = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> issued = new ConcurrentHashMap<>();
  private volatile @Nullable CountDownLatch held;
  private volatile String subjectTokenType = JWT_TOKEN_TYPE;
  private volatile String answer = "{\"access_token\":\"%s\",\"issued_token_type\":\"" + ACCESS_TOKEN_TYPE
      + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}";

  /** Knows {@code token} as {@code principal}'s. */
  IdentityProvider subject(String token, String principal) {
    this.subjects.put(token, principal);
    return this;
  }

  /** Refuses to exchange {@code token}. */
  void refuse(String token) {
    this.refused.put(token, Boolean.TRUE);
  }

  /** The subject token type exchanges must give: a JWT's by default. */
  IdentityProvider subjectTokenType(String type) {
    this.subjectTokenType = type;
    return this;
  }

  /** Answers exchanges with {@code json}, where {@code %s} is the catalog token. */
  IdentityProvider answer(String json) {
    this.answer = json;
    return this;
  }

  /** Holds exchanges until the latch is counted down. */
  void hold(CountDownLatch latch) {
    this.held = latch;
  }

  /** The exchanges made for {@code principal}'s tokens. */
  int exchangesOf(String principal) {
    AtomicInteger count = this.issued.get(principal);
    return count == null ? 0 : count.get();
  }

  String currentServiceToken() {
    return "service-token-" + this.serviceTokens.get();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) throws InterruptedException {
    if (!request.getUrl().encodedPath().equals("/token") || !"POST".equals(request.getMethod())) {
      return json(404, "{\"error\":\"not_found\"}");
    }
    String basic = "Basic " + Base64.getEncoder().encodeToString((CLIENT_ID + ":" + CLIENT_SECRET)
        .getBytes(StandardCharsets.UTF_8));
    if (!basic.equals(request.getHeaders().get("Authorization"))) {
      this.violations.add("a token request without the client's credentials");
      return json(401, "{\"error\":\"invalid_client\"}");
    }
    Map<String, String> form = form(request.getBody().utf8());
    if ("client_credentials".equals(form.get("grant_type"))) {
      return json(200, "{\"access_token\":\"service-token-" + this.serviceTokens.incrementAndGet()
          + "\",\"token_type\":\"Bearer\",\"expires_in\":3600}");
    }
    if (!GRANT.equals(form.get("grant_type"))) {
      this.violations.add("grant_type " + form.get("grant_type"));
      return json(400, "{\"error\":\"unsupported_grant_type\"}");
    }
    this.exchanges.add(form);
    CountDownLatch latch = this.held;
    if (latch != null && !latch.await(10, TimeUnit.SECONDS)) {
      this.violations.add("an exchange held for more than 10 seconds");
    }
    String subject = form.get("subject_token");
    if (!currentServiceToken().equals(form.get("actor_token")) || !ACCESS_TOKEN_TYPE.equals(form.get(
        "actor_token_type")) || !this.subjectTokenType.equals(form.get("subject_token_type"))
        || !ACCESS_TOKEN_TYPE.equals(form.get("requested_token_type"))) {
      this.violations.add("an exchange with the wrong actor or token types: " + form.keySet());
      return json(400, "{\"error\":\"invalid_request\"}");
    }
    String principal = subject == null ? null : this.subjects.get(subject);
    if (principal == null || this.refused.containsKey(subject)) {
      return json(400, "{\"error\":\"invalid_grant\",\"error_description\":\"the subject token " + subject
          + " may not be exchanged\"}");
    }
    int n = this.issued.computeIfAbsent(principal, key -> new AtomicInteger()).incrementAndGet();
    return json(200, this.answer.formatted("catalog-" + principal + "-" + n));
  }

  private static Map<String, String> form(String body) {
    Map<String, String> form = new LinkedHashMap<>();
    for (String pair : body.split("&")) {
      int equals = pair.indexOf('=');
      if (equals > 0) {
        form.put(URLDecoder.decode(pair.substring(0, equals), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
      }
    }
    return form;
  }

  private static MockResponse json(int status, String body) {
    return new MockResponse.Builder().code(status).setHeader("Content-Type", "application/json").body(body).build();
  }
}
