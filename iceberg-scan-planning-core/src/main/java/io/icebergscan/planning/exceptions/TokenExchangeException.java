package io.icebergscan.planning.exceptions;

import java.util.Set;

import org.jspecify.annotations.Nullable;

/**
 * An identity provider refused to exchange a caller's token for a token of the catalog (an OAuth 2.0 token exchange,
 * RFC 8693), or answered the exchange with no usable token. The message names the grant, the token endpoint and the
 * OAuth2 error code; it quotes no token (neither the caller's, the service's actor token, nor an answer) and not the
 * provider's {@code error_description}, which may. Not retried: the same exchange would be refused again.
 */
public class TokenExchangeException extends AuthenticationException {

  /** The grant type of a token exchange. */
  public static final String GRANT_TYPE = "urn:ietf:params:oauth:grant-type:token-exchange";

  /**
   * The error codes that refuse the caller's own token: RFC 6749's {@code invalid_grant}, which most providers answer
   * for a subject token they will not exchange, and the {@code invalid_token} some answer instead. RFC 8693's
   * {@code invalid_request} is not among them: it equally says that the service's request was malformed.
   */
  private static final Set<String> CALLERS_TOKEN_REFUSED = Set.of("invalid_grant", "invalid_token");

  private final String errorCode;

  /**
   * @param message what happened, naming the token endpoint and the error code, never a token
   * @param errorCode the OAuth2 error code the token endpoint answered (or Spring Security's
   *     {@code invalid_token_response} for an answer with no usable token)
   */
  public TokenExchangeException(String message, String errorCode) {
    this(message, errorCode, null);
  }

  /** @param planTask the plan-task whose fetch needed the token, {@code null} for none */
  public TokenExchangeException(String message, String errorCode, @Nullable String planTask) {
    super(message, planTask, null);
    this.errorCode = errorCode;
  }

  /** The OAuth2 error code of the refusal, such as {@code invalid_grant}. */
  public String errorCode() {
    return this.errorCode;
  }

  /**
   * Whether the refusal is of the caller's token ({@code invalid_grant}, {@code invalid_token}): the caller is not
   * authorized to reach the catalog, rather than the service misconfigured or its identity provider failing.
   */
  public boolean callersTokenRefused() {
    return CALLERS_TOKEN_REFUSED.contains(this.errorCode);
  }
}
