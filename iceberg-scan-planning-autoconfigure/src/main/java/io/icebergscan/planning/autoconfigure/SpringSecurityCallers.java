package io.icebergscan.planning.autoconfigure;

import java.util.function.Function;

import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import org.jspecify.annotations.Nullable;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.oauth2.core.OAuth2Token;
import org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * The callers of an application that is a Spring Security resource server ({@code iceberg.rest.identity=caller}): a
 * call's caller is the bearer token that authenticated the current request, a JWT or an opaque token (any
 * {@link AbstractOAuth2TokenAuthenticationToken}). It is found on the calling thread for a blocking call (Spring MVC:
 * {@link SecurityContextHolder}) and in the subscriber's Reactor context for a reactive one (WebFlux:
 * {@link ReactiveSecurityContextHolder}). Any other authentication, an anonymous one included, is no caller, and the
 * planner refuses the call. What the catalog gets for the token is the token itself ({@code pass-through}) or a token
 * of the catalog exchanged for it ({@code token-exchange}).
 */
final class SpringSecurityCallers implements Callers {

  /** The authentication of a resource server's bearer token: its class, which must be on the classpath. */
  static final String BEARER_TOKEN_AUTHENTICATION =
      "org.springframework.security.oauth2.server.resource.authentication.AbstractOAuth2TokenAuthenticationToken";

  private final Function<OAuth2Token, CatalogCredentials> credentials;
  private final String mode;

  private SpringSecurityCallers(Function<OAuth2Token, CatalogCredentials> credentials, String mode) {
    this.credentials = credentials;
    this.mode = mode;
  }

  /** Callers whose tokens reach the catalog as they are. */
  static SpringSecurityCallers passingThrough() {
    return new SpringSecurityCallers(token -> CatalogCredentials.bearer(token.getTokenValue()), "pass-through");
  }

  /** Callers whose tokens are exchanged for tokens of the catalog. */
  static SpringSecurityCallers exchanging(CallerTokenExchange exchange) {
    return new SpringSecurityCallers(exchange::credentials, "token-exchange");
  }

  @Override
  public @Nullable CatalogCredentials current() {
    return of(SecurityContextHolder.getContextHolderStrategy().getContext().getAuthentication());
  }

  @Override
  public Mono<CatalogCredentials> current(ContextView context) {
    return ReactiveSecurityContextHolder.getContext()
        .mapNotNull(security -> of(security.getAuthentication()))
        .contextWrite(context);
  }

  private @Nullable CatalogCredentials of(@Nullable Authentication authentication) {
    if (!(authentication instanceof AbstractOAuth2TokenAuthenticationToken<?> bearer) || !bearer.isAuthenticated()) {
      return null;
    }
    return this.credentials.apply(bearer.getToken());
  }

  @Override
  public String toString() {
    return "SpringSecurityCallers[" + this.mode + "]";
  }
}
