package io.icebergscan.planning.auth;

import java.util.Set;

import io.icebergscan.planning.internal.http.CatalogClient;
import org.springframework.http.HttpHeaders;
import org.springframework.web.reactive.function.client.ClientRequest;
import org.springframework.web.reactive.function.client.ClientResponse;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.ExchangeFunction;
import reactor.core.publisher.Mono;

/**
 * Authenticates a request made for a caller ({@link io.icebergscan.planning.ScanPlanner#as}) with the caller's
 * {@link CatalogCredentials}, in place of the planner's own. Every planner adds it as its innermost filter; an
 * application never needs to: it is public so that the planner, in another package, can. Innermost, so that its
 * {@code Authorization} is the one sent whatever the planner's headers and filters set; and the planner's
 * {@code OAuth2ClientCredentials} fetches no token of its own for it ({@link #isCallers}). A request refused with 401 or 419 is sent once more when the credentials say another
 * value may do ({@link CatalogCredentials#refused}).
 */
public final class CallerAuthentication implements ExchangeFilterFunction {

  private static final Set<Integer> REFUSED = Set.of(401, 419);

  /** Whether the request is a caller's, which the planner's own authentication leaves alone. */
  public static boolean isCallers(ClientRequest request) {
    return request.attribute(CatalogClient.CALLER_ATTRIBUTE).isPresent();
  }

  @Override
  public Mono<ClientResponse> filter(ClientRequest request, ExchangeFunction next) {
    if (!(request.attribute(CatalogClient.CALLER_ATTRIBUTE).orElse(null) instanceof CatalogCredentials credentials)) {
      return next.exchange(request);
    }
    return credentials.authorization()
        .flatMap(authorization -> send(request, next, authorization)
            .flatMap(response -> !REFUSED.contains(response.statusCode().value())
                    || !credentials.refused(authorization)
                ? Mono.just(response)
                // the same request (same Idempotency-Key) once more, with the caller's next value
                : response.releaseBody()
                    .then(Mono.defer(credentials::authorization))
                    .flatMap(renewed -> send(request, next, renewed))));
  }

  private static Mono<ClientResponse> send(ClientRequest request, ExchangeFunction next, String authorization) {
    return next.exchange(ClientRequest.from(request)
        .headers(headers -> headers.set(HttpHeaders.AUTHORIZATION, authorization))
        .build());
  }
}
