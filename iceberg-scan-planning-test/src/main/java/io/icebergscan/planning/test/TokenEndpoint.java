package io.icebergscan.planning.test;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.iceberg.util.JsonUtil;
import org.jspecify.annotations.Nullable;

/**
 * The catalog's {@code POST /v1/oauth/tokens} while it has principals (without any, Iceberg's adapter answers it): an
 * OAuth2 token endpoint (RFC 6749 section 3.2) taking form-encoded requests and answering JSON, with two grants.
 *
 * <ul>
 * <li>{@code client_credentials}: a client registered for a principal authenticates with HTTP Basic (its id and
 * secret form-encoded, as RFC 6749 section 2.3.1 and Spring Security send them, or as they are) or with
 * {@code client_id} and {@code client_secret} in the body, and gets a new token of that principal.</li>
 * <li>token exchange (RFC 8693): an identity provider's token the catalog was told to exchange, as
 * {@code subject_token}, with a principal's valid token as {@code actor_token} (the service acting for the subject),
 * gets a new token of the subject's principal. Client authentication is optional, but must be right when present.</li>
 * </ul>
 *
 * <p>Refusals are OAuth2 error answers ({@code {"error": …, "error_description": …}}) that never quote a token or a
 * secret: 401 {@code invalid_client} for client authentication that is missing (client credentials) or wrong, 400
 * {@code invalid_grant} for a subject token the catalog does not exchange, 400 {@code invalid_request} for a missing or
 * malformed parameter and for a missing or invalid actor token, 400 {@code unsupported_grant_type} for any other
 * grant. The successful answers are counted by grant type.
 */
final class TokenEndpoint {

  /** The endpoint's path, as Iceberg's servlet reads paths: no leading slash. */
  static final String PATH = "v1/oauth/tokens";
  static final String CLIENT_CREDENTIALS = "client_credentials";
  static final String TOKEN_EXCHANGE = "urn:ietf:params:oauth:grant-type:token-exchange";
  static final String ACCESS_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:access_token";
  static final String JWT_TOKEN_TYPE = "urn:ietf:params:oauth:token-type:jwt";

  private final Principals principals;
  private final Map<String, AtomicInteger> answered = new ConcurrentHashMap<>();

  TokenEndpoint(Principals principals) {
    this.principals = principals;
  }

  /** Whether this answers the token endpoint now: while the catalog has principals. */
  boolean answers() {
    return this.principals.any();
  }

  void answer(HttpServletRequest request, HttpServletResponse response) throws IOException {
    response.setContentType("application/json");
    response.setCharacterEncoding(StandardCharsets.UTF_8.name());
    // RFC 6749 section 5.1: answers that carry tokens are not to be cached
    response.setHeader("Cache-Control", "no-store");
    response.setHeader("Pragma", "no-cache");
    String answer;
    try {
      Map<String, String> form = form(request.getInputStream().readAllBytes());
      String grantType = form.get("grant_type");
      answer = issue(grantType, form, request.getHeader("Authorization"));
      this.answered.computeIfAbsent(grantType, type -> new AtomicInteger()).incrementAndGet();
      response.setStatus(HttpServletResponse.SC_OK);
    }
    catch (Refusal refusal) {
      response.setStatus(refusal.status);
      if (refusal.challenge) {
        response.setHeader("WWW-Authenticate", "Basic realm=\"embedded-iceberg-catalog\"");
      }
      answer = JsonUtil.generate(json -> {
        json.writeStartObject();
        json.writeStringField("error", refusal.error);
        json.writeStringField("error_description", refusal.getMessage());
        json.writeEndObject();
      }, false);
    }
    response.getWriter().write(answer);
  }

  /** How many requests of the grant type were answered with a token. */
  int answered(String grantType) {
    AtomicInteger count = this.answered.get(grantType);
    return count == null ? 0 : count.get();
  }

  void resetCounts() {
    this.answered.clear();
  }

  /** The answer with a new token for the grant, as JSON text. */
  private String issue(@Nullable String grantType, Map<String, String> form, @Nullable String authorization) {
    if (grantType == null) {
      throw new Refusal(400, "invalid_request", "grant_type is required");
    }
    switch (grantType) {
      case CLIENT_CREDENTIALS -> {
        String principal = authenticatedClient(form, authorization);
        if (principal == null) {
          throw new Refusal(401, "invalid_client", "client authentication is required: HTTP Basic, or client_id and "
              + "client_secret in the body");
        }
        return answer(this.principals.issue(principal), null);
      }
      case TOKEN_EXCHANGE -> {
        authenticatedClient(form, authorization);
        return answer(this.principals.issue(exchanged(form)), ACCESS_TOKEN_TYPE);
      }
      default -> throw new Refusal(400, "unsupported_grant_type", "the grant types supported are "
          + CLIENT_CREDENTIALS + " and " + TOKEN_EXCHANGE);
    }
  }

  /** The principal of the subject token of a token exchange whose every parameter is right. */
  private String exchanged(Map<String, String> form) {
    String requested = form.get("requested_token_type");
    if (requested != null && !ACCESS_TOKEN_TYPE.equals(requested)) {
      throw new Refusal(400, "invalid_request", "only access tokens are issued: requested_token_type must be "
          + ACCESS_TOKEN_TYPE);
    }
    String subjectToken = form.get("subject_token");
    if (subjectToken == null) {
      throw new Refusal(400, "invalid_request", "subject_token is required");
    }
    requireTokenType(form, "subject_token_type");
    String actorToken = form.get("actor_token");
    if (actorToken == null) {
      throw new Refusal(400, "invalid_request", "actor_token is required: a token of the principal that acts for the "
          + "subject");
    }
    requireTokenType(form, "actor_token_type");
    if (this.principals.authenticate(actorToken) == null) {
      throw new Refusal(400, "invalid_request", "the actor_token is not a valid token of this catalog: unknown, or "
          + "expired");
    }
    String principal = this.principals.subject(subjectToken);
    if (principal == null) {
      throw new Refusal(400, "invalid_grant", "the subject_token is not one this catalog exchanges");
    }
    return principal;
  }

  private static void requireTokenType(Map<String, String> form, String parameter) {
    String type = form.get(parameter);
    if (!ACCESS_TOKEN_TYPE.equals(type) && !JWT_TOKEN_TYPE.equals(type)) {
      throw new Refusal(400, "invalid_request", parameter + " must be " + ACCESS_TOKEN_TYPE + " or " + JWT_TOKEN_TYPE);
    }
  }

  /**
   * The principal of the client that authenticated, by HTTP Basic or, without it, by {@code client_secret} in the
   * body; {@code null} when the request has neither (a {@code client_id} alone is a public client's, not
   * authentication).
   *
   * @throws Refusal 401 {@code invalid_client} for an unknown client or a wrong secret
   */
  private @Nullable String authenticatedClient(Map<String, String> form, @Nullable String authorization) {
    if (authorization != null && authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
      String[] basic = basicCredentials(authorization.substring(6).strip());
      String principal = null;
      if (basic != null) {
        String id = formDecoded(basic[0]);
        String secret = formDecoded(basic[1]);
        principal = id == null || secret == null ? null : this.principals.authenticateClient(id, secret);
        if (principal == null) {
          // a client that does not form-encode its id and secret first
          principal = this.principals.authenticateClient(basic[0], basic[1]);
        }
      }
      if (principal == null) {
        throw new Refusal(401, "invalid_client", "client authentication failed", true);
      }
      return principal;
    }
    String secret = form.get("client_secret");
    if (secret == null) {
      return null;
    }
    String id = form.get("client_id");
    String principal = id == null ? null : this.principals.authenticateClient(id, secret);
    if (principal == null) {
      throw new Refusal(401, "invalid_client", "client authentication failed");
    }
    return principal;
  }

  /** The id and the secret of HTTP Basic credentials, {@code null} when they are not Base64 of {@code id:secret}. */
  private static String @Nullable [] basicCredentials(String encoded) {
    String decoded;
    try {
      decoded = new String(Base64.getDecoder().decode(encoded), StandardCharsets.UTF_8);
    }
    catch (IllegalArgumentException notBase64) {
      return null;
    }
    int colon = decoded.indexOf(':');
    return colon < 0 ? null : new String[] { decoded.substring(0, colon), decoded.substring(colon + 1) };
  }

  private static String answer(Principals.Issued issued, @Nullable String issuedTokenType) {
    return JsonUtil.generate(json -> {
      json.writeStartObject();
      json.writeStringField("access_token", issued.token());
      if (issuedTokenType != null) {
        json.writeStringField("issued_token_type", issuedTokenType);
      }
      json.writeStringField("token_type", "Bearer");
      json.writeNumberField("expires_in", issued.expiresIn());
      json.writeEndObject();
    }, false);
  }

  /**
   * The parameters of a form-encoded body; an empty value counts as none, as RFC 6749 section 3.2 says.
   *
   * @throws Refusal 400 {@code invalid_request} for a body that is not form-encoded or repeats a parameter
   */
  private static Map<String, String> form(byte[] body) {
    Map<String, String> parameters = new LinkedHashMap<>();
    for (String pair : new String(body, StandardCharsets.UTF_8).split("&", -1)) {
      int equals = pair.indexOf('=');
      String name = formDecoded(equals < 0 ? pair : pair.substring(0, equals));
      String value = equals < 0 ? "" : formDecoded(pair.substring(equals + 1));
      if (name == null || value == null) {
        throw new Refusal(400, "invalid_request", "the body is not application/x-www-form-urlencoded");
      }
      if (name.isEmpty() || value.isEmpty()) {
        continue;
      }
      if (parameters.putIfAbsent(name, value) != null) {
        throw new Refusal(400, "invalid_request", "the parameter " + name + " is repeated");
      }
    }
    return parameters;
  }

  /** The text form-decoded, {@code null} when it is not form-encoded (a stray {@code %}). */
  private static @Nullable String formDecoded(String text) {
    try {
      return URLDecoder.decode(text, StandardCharsets.UTF_8);
    }
    catch (IllegalArgumentException malformed) {
      return null;
    }
  }

  /** An OAuth2 error answer; its message is the {@code error_description}, which never quotes a token. */
  private static final class Refusal extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int status;
    private final String error;
    /** Whether the answer asks for HTTP Basic, as RFC 6749 section 5.2 wants when a client's Basic failed. */
    private final boolean challenge;

    Refusal(int status, String error, String description) {
      this(status, error, description, false);
    }

    Refusal(int status, String error, String description, boolean challenge) {
      super(description, null, false, false);
      this.status = status;
      this.error = error;
      this.challenge = challenge;
    }
  }
}
