package io.icebergscan.planning.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;

import reactor.core.publisher.Mono;

/**
 * Whose call a catalog call is: the credentials a {@linkplain io.icebergscan.planning.ScanPlanner#as view of a
 * planner} sends in place of the planner's own, on every request of its calls (discovery, loads, plans, their polls,
 * fetches, retries and abandoning DELETEs, credentials and reports).
 *
 * <p>Implementations must never reveal the credential: not in {@link #principal()}, {@code toString()} or an
 * exception. The planner keeps everything it derives from a caller's answers (the catalog's configuration, today) by
 * {@link #principal()}, so two credentials with the same key must authenticate the same principal with the same
 * rights.
 */
public interface CatalogCredentials {

  /**
   * A key for the principal these credentials authenticate, never the credential itself: what a caller's answers are
   * kept under. Different principals must have different keys; the same principal may have several (the keys of
   * {@link #bearer} differ for two tokens of one user), which only costs a cache miss.
   */
  String principal();

  /** The {@code Authorization} header value for the next request, such as {@code Bearer eyJ…}. */
  Mono<String> authorization();

  /**
   * The catalog refused {@code authorization} (401, or the spec's 419 for an expired token): whether the request is
   * worth sending once more with the value {@link #authorization()} gives next, which must then not be the refused
   * one. By default {@code false}: a fixed credential that was refused stays refused.
   */
  default boolean refused(String authorization) {
    return false;
  }

  /**
   * A bearer token passed through as it is, such as the JWT of the user a service serves. Its principal key is a
   * digest of the token.
   *
   * @throws IllegalArgumentException when the token is blank or holds a character a header cannot carry
   */
  static CatalogCredentials bearer(String token) {
    Objects.requireNonNull(token, "token");
    if (token.isBlank() || token.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new IllegalArgumentException("a bearer token must be printable ASCII and not blank");
    }
    String header = "Bearer " + token;
    String principal = "bearer:" + digest(token);
    return new CatalogCredentials() {

      @Override
      public String principal() {
        return principal;
      }

      @Override
      public Mono<String> authorization() {
        return Mono.just(header);
      }

      @Override
      public String toString() {
        return "CatalogCredentials.bearer[" + principal + "]";
      }
    };
  }

  /**
   * A SHA-256 digest of a credential, hex: a principal key that names no secret. Truncated to 128 bits, which keeps
   * distinct tokens apart and is short enough to show in a log line.
   */
  static String digest(String credential) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(credential.getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(hash, 0, 16);
    }
    catch (NoSuchAlgorithmException impossible) {
      throw new IllegalStateException("every Java platform has SHA-256", impossible);
    }
  }
}
