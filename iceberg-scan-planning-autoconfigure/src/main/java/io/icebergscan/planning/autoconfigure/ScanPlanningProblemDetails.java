package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.Redaction;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ControllerAdvice;
import org.springframework.web.bind.annotation.ExceptionHandler;

/**
 * The planner's exceptions as RFC 9457 problem details, for Spring MVC and WebFlux alike: the one place that says
 * which HTTP status each failure is to the application's own clients. What the catalog says of a table or a request
 * passes on (404, 400); what went wrong between the application and its catalog is the application's gateway failing
 * (502), unavailable (503) or too slow (504), never the client's fault. A way of reading that a governed table's read
 * restrictions refuse is forbidden (403). A planner that plans as its callers answers 401 when the call has no caller,
 * or when the identity provider refuses to exchange the caller's token for the catalog's; such an answer carries a
 * {@code WWW-Authenticate: Bearer} challenge, as RFC 9110 asks of a 401.
 *
 * <p>The detail is the exception's message, with user info in URIs masked; causes, plan-task handles and headers are
 * never in the body. The {@code exception} property names the exception's type, as Iceberg's REST errors do.
 */
@ControllerAdvice
public class ScanPlanningProblemDetails {

  @ExceptionHandler(ScanPlanningException.class)
  public ResponseEntity<ProblemDetail> handle(ScanPlanningException failure) {
    HttpStatus status = statusOf(failure);
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(status,
        Redaction.maskUserInfo(String.valueOf(failure.getMessage())));
    problem.setProperty("exception", failure.getClass().getSimpleName());
    ResponseEntity.BodyBuilder response = ResponseEntity.status(status).contentType(MediaType.APPLICATION_PROBLEM_JSON);
    if (status == HttpStatus.UNAUTHORIZED) {
      // RFC 6750: no caller is a bare challenge; a caller's token that was refused is an invalid one
      response.header(HttpHeaders.WWW_AUTHENTICATE,
          failure instanceof MissingCallerException ? "Bearer" : "Bearer error=\"invalid_token\"");
    }
    return response.body(problem);
  }

  /** The status a failure answers the application's client with. */
  public static HttpStatus statusOf(ScanPlanningException failure) {
    if (failure instanceof MissingCallerException
        || failure instanceof TokenExchangeException exchange && exchange.callersTokenRefused()
        || failure instanceof CallerRefusedException refused && refused.notAuthenticated()) {
      // the call needs an authenticated caller whose token the identity provider and the catalog accept: the client's
      // to fix
      return HttpStatus.UNAUTHORIZED;
    }
    if (failure instanceof CallerRefusedException) {
      // the catalog does not let the caller do what was asked (a table it was not granted, say)
      return HttpStatus.FORBIDDEN;
    }
    if (failure instanceof NoSuchTableException || failure instanceof NoSuchNamespaceException) {
      return HttpStatus.NOT_FOUND;
    }
    if (failure instanceof RestException rest) {
      return switch (rest.statusCode()) {
        // the catalog refused what was asked (a filter on a column the table lacks, say): the client's to fix
        case 400, 422 -> HttpStatus.BAD_REQUEST;
        // the catalog is overloaded or down for now
        case 429, 503 -> HttpStatus.SERVICE_UNAVAILABLE;
        // a plan or plan-task the catalog forgot, a refused authorization, a server error: the gateway's
        default -> HttpStatus.BAD_GATEWAY;
      };
    }
    if (failure instanceof TransportException transport) {
      return transport.timedOut() ? HttpStatus.GATEWAY_TIMEOUT : HttpStatus.SERVICE_UNAVAILABLE;
    }
    if (failure instanceof PlanTimeoutException) {
      return HttpStatus.GATEWAY_TIMEOUT;
    }
    if (failure instanceof PlanCancelledException) {
      return HttpStatus.SERVICE_UNAVAILABLE;
    }
    if (failure instanceof CallerMismatchException) {
      // the application read a table loaded as one caller as another: its own bug, refused before anything was sent
      return HttpStatus.INTERNAL_SERVER_ERROR;
    }
    if (failure instanceof RestrictedReadException) {
      // the catalog governs the table: what was asked for would hand out what its read restrictions keep
      return HttpStatus.FORBIDDEN;
    }
    // an AuthenticationException (the application's credentials, not its client's; a token exchange refused for
    // another reason than the caller's token: the application's client, its request, the provider), a malformed
    // answer, read restrictions that cannot be enforced, an endpoint the catalog lacks, a failed plan, the iceberg
    // module's failures to read a file
    return HttpStatus.BAD_GATEWAY;
  }
}
