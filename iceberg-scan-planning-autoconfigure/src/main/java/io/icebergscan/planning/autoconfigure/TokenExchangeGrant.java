package io.icebergscan.planning.autoconfigure;

import java.util.Collection;
import java.util.regex.Pattern;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.Redaction;
import org.jspecify.annotations.Nullable;
import org.springframework.security.oauth2.client.endpoint.TokenExchangeGrantRequest;
import org.springframework.security.oauth2.client.endpoint.WebClientReactiveTokenExchangeTokenResponseClient;
import org.springframework.security.oauth2.client.registration.ClientRegistration;
import org.springframework.security.oauth2.core.AuthorizationGrantType;
import org.springframework.security.oauth2.core.ClientAuthenticationMethod;
import org.springframework.security.oauth2.core.OAuth2AccessToken;
import org.springframework.security.oauth2.core.OAuth2AuthorizationException;
import org.springframework.security.oauth2.core.OAuth2Token;
import org.springframework.security.oauth2.core.endpoint.OAuth2AccessTokenResponse;
import org.springframework.security.oauth2.core.endpoint.OAuth2ParameterNames;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Mono;

/**
 * One OAuth 2.0 token exchange (RFC 8693) at a token endpoint, through Spring Security's token-exchange client:
 * {@code grant_type=urn:ietf:params:oauth:grant-type:token-exchange}, the caller's token as {@code subject_token}, the
 * service's own access token as {@code actor_token}, the client authenticated with its id and secret, and the
 * requested token type, scopes and audience. Keeps nothing: {@link CallerTokenExchange} keeps the answers.
 *
 * <p>A refusal becomes a {@link TokenExchangeException} naming the grant, the token endpoint (user info masked) and
 * the OAuth2 error code, and nothing else of the answer: its {@code error_description} may quote the token, and so
 * may Spring's exception, which is not kept as the cause. No answer from the token endpoint becomes a
 * {@link TransportException}, as for the planner's own token requests.
 */
final class TokenExchangeGrant {

  /** Spring Security's error code for a token endpoint's answer it could not read, or that held no token. */
  private static final String INVALID_TOKEN_RESPONSE = "invalid_token_response";

  /** What an OAuth2 error code is made of (RFC 6749 allows more; an answer outside this is not quoted). */
  private static final Pattern ERROR_CODE = Pattern.compile("[A-Za-z0-9_.:-]{1,64}");

  private static final String AUDIENCE = "audience";

  private final ClientRegistration registration;
  private final WebClientReactiveTokenExchangeTokenResponseClient client;
  private final String endpoint;

  /**
   * @param tokenUri the token endpoint
   * @param secretInBody whether the client sends its secret as a form parameter ({@code client_secret_post}) rather
   *     than as HTTP Basic ({@code client_secret_basic})
   * @param scopes the scopes to request, none when empty
   * @param requestedTokenType the {@code requested_token_type}
   * @param audience the {@code audience}, or {@code null} for none
   * @param webClient the client that sends the exchange
   */
  TokenExchangeGrant(String tokenUri, String clientId, String clientSecret, boolean secretInBody,
      Collection<String> scopes, String requestedTokenType, @Nullable String audience, WebClient webClient) {
    this.registration = ClientRegistration.withRegistrationId("iceberg-catalog-token-exchange")
        .authorizationGrantType(AuthorizationGrantType.TOKEN_EXCHANGE)
        .clientAuthenticationMethod(secretInBody ? ClientAuthenticationMethod.CLIENT_SECRET_POST
            : ClientAuthenticationMethod.CLIENT_SECRET_BASIC)
        .clientId(clientId)
        .clientSecret(clientSecret)
        .tokenUri(tokenUri)
        .scope(scopes)
        .build();
    this.client = new WebClientReactiveTokenExchangeTokenResponseClient();
    this.client.setWebClient(webClient);
    this.client.setParametersCustomizer(parameters -> {
      parameters.set(OAuth2ParameterNames.REQUESTED_TOKEN_TYPE, requestedTokenType);
      if (audience != null) {
        parameters.set(AUDIENCE, audience);
      }
    });
    this.endpoint = Redaction.maskUserInfo(tokenUri);
  }

  /** The catalog token for {@code subject}, exchanged with the service's {@code actorToken} as the actor. */
  Mono<OAuth2AccessToken> exchange(OAuth2Token subject, String actorToken) {
    OAuth2AccessToken actor = new OAuth2AccessToken(OAuth2AccessToken.TokenType.BEARER, actorToken, null, null);
    return Mono.defer(() -> this.client.getTokenResponse(new TokenExchangeGrantRequest(this.registration, subject,
            actor)))
        .map(this::usable)
        .onErrorMap(OAuth2AuthorizationException.class, this::refused)
        // no answer from the token endpoint (refused, reset, timed out): a transport failure there
        .onErrorMap(failure -> !(failure instanceof ScanPlanningException),
            failure -> new TransportException(Redaction.maskUserInfo("POST " + this.endpoint + " (token exchange) "
                + "failed: " + rootCause(failure)), null, failure));
  }

  /** What failed below WebClient, whose own exception may say no more than its class name. */
  private static String rootCause(Throwable failure) {
    Throwable root = failure;
    while (root.getCause() != null) {
      root = root.getCause();
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }

  /** A token that an {@code Authorization} header can carry, as {@code CatalogCredentials.bearer} requires. */
  private OAuth2AccessToken usable(OAuth2AccessTokenResponse response) {
    OAuth2AccessToken token = response.getAccessToken();
    String value = token.getTokenValue();
    if (value.isBlank() || value.chars().anyMatch(c -> c < 0x20 || c > 0x7e)) {
      throw new TokenExchangeException(described("gave an access token that no Authorization header can carry",
          INVALID_TOKEN_RESPONSE), INVALID_TOKEN_RESPONSE);
    }
    return token;
  }

  private TokenExchangeException refused(OAuth2AuthorizationException failure) {
    String code = failure.getError().getErrorCode();
    String shown = code != null && ERROR_CODE.matcher(code).matches() ? code : "unrecognized_error";
    return new TokenExchangeException(INVALID_TOKEN_RESPONSE.equals(shown)
        ? described("gave no usable token", shown)
        : described("was refused", shown), shown);
  }

  private String described(String what, String code) {
    return "the token exchange (" + TokenExchangeException.GRANT_TYPE + ") at " + this.endpoint + " " + what + ": "
        + code;
  }

  @Override
  public String toString() {
    return "TokenExchangeGrant[tokenUri=" + this.endpoint + ", clientId=" + this.registration.getClientId() + "]";
  }
}
