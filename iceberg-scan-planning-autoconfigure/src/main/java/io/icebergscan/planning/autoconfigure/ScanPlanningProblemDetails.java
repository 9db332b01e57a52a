package io.icebergscan.planning.autoconfigure;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanFailedException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.exceptions.UnsupportedEndpointException;
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
 * <p>By default the body tells the client the kind of failure and nothing of how the application reaches its catalog:
 * its {@code detail} is a fixed sentence per kind ("The Iceberg catalog could not be reached"), its {@code title} the
 * status's reason phrase. An exception's message may quote the catalog's URI, its host and port, its own error text,
 * the names of its tables, a token endpoint; so it becomes the {@code detail} only when {@code includeMessage} is
 * set (user info in URIs masked, the plan-task handle left out), and the exception's type becomes the
 * {@code exception} member only when {@code includeException} is set: both for development. Causes, plan-task
 * handles and headers are never in the body.
 */
@ControllerAdvice
public class ScanPlanningProblemDetails {

  private static final String PLAN_TASK_IN_MESSAGE = " [plan task '";

  private final boolean includeMessage;
  private final boolean includeException;

  /** Bodies that name only the kind of failure. */
  public ScanPlanningProblemDetails() {
    this(false, false);
  }

  /**
   * @param includeMessage whether the {@code detail} is the exception's message rather than its kind's sentence
   * @param includeException whether the body has an {@code exception} member naming the exception's simple type
   */
  public ScanPlanningProblemDetails(boolean includeMessage, boolean includeException) {
    this.includeMessage = includeMessage;
    this.includeException = includeException;
  }

  @ExceptionHandler(ScanPlanningException.class)
  public ResponseEntity<ProblemDetail> handle(ScanPlanningException failure) {
    Kind kind = kindOf(failure);
    ProblemDetail problem = ProblemDetail.forStatusAndDetail(kind.status,
        this.includeMessage ? message(failure) : kind.detail);
    if (this.includeException) {
      problem.setProperty("exception", failure.getClass().getSimpleName());
    }
    ResponseEntity.BodyBuilder response = ResponseEntity.status(kind.status)
        .contentType(MediaType.APPLICATION_PROBLEM_JSON);
    if (kind.status == HttpStatus.UNAUTHORIZED) {
      // RFC 6750: no caller is a bare challenge; a caller's token that was refused is an invalid one
      response.header(HttpHeaders.WWW_AUTHENTICATE,
          failure instanceof MissingCallerException ? "Bearer" : "Bearer error=\"invalid_token\"");
    }
    return response.body(problem);
  }

  /** The status a failure answers the application's client with. */
  public static HttpStatus statusOf(ScanPlanningException failure) {
    return kindOf(failure).status;
  }

  /** The exception's message, its URIs' user info masked, without the plan-task handle it may end with. */
  private static String message(ScanPlanningException failure) {
    String message = String.valueOf(failure.getMessage());
    int handle = message.lastIndexOf(PLAN_TASK_IN_MESSAGE);
    if (failure.planTask() != null && handle >= 0) {
      message = message.substring(0, handle);
    }
    return String.valueOf(Redaction.maskUserInfo(message));
  }

  /**
   * The failures whose kind is their type's, first match wins: a subtype before its supertype. A
   * {@link TokenExchangeException} or {@link CallerRefusedException} that refused the caller's token is matched before.
   */
  private static final List<Map.Entry<Class<? extends ScanPlanningException>, Kind>> KINDS = List.of(
      Map.entry(MissingCallerException.class, Kind.NO_CALLER),
      // the catalog does not let the caller do what was asked (a table it was not granted, say)
      Map.entry(CallerRefusedException.class, Kind.CALLER_FORBIDDEN),
      // not even the table's name: the catalog's message names it as the catalog knows it, not as the client asked
      Map.entry(NoSuchTableException.class, Kind.NO_SUCH_TABLE),
      Map.entry(NoSuchNamespaceException.class, Kind.NO_SUCH_NAMESPACE),
      Map.entry(PlanTimeoutException.class, Kind.PLAN_TIMEOUT),
      Map.entry(PlanCancelledException.class, Kind.PLAN_CANCELLED),
      // the application read a table loaded as one caller as another: its own bug, refused before anything was sent
      Map.entry(CallerMismatchException.class, Kind.CALLER_MISMATCH),
      // the catalog governs the table: what was asked for would hand out what its read restrictions keep
      Map.entry(RestrictedReadException.class, Kind.READ_RESTRICTED),
      // the application's credentials, not its client's; a token exchange refused for another reason than the
      // caller's token: the application's client, its request, the provider
      Map.entry(AuthenticationException.class, Kind.AUTHENTICATION),
      Map.entry(MalformedResponseException.class, Kind.MALFORMED_ANSWER),
      Map.entry(InvalidReadRestrictionsException.class, Kind.UNENFORCEABLE_RESTRICTIONS),
      Map.entry(UnsupportedEndpointException.class, Kind.UNSUPPORTED_ENDPOINT),
      Map.entry(PlanFailedException.class, Kind.PLAN_FAILED));

  private static Kind kindOf(ScanPlanningException failure) {
    if (failure instanceof TokenExchangeException exchange && exchange.callersTokenRefused()
        || failure instanceof CallerRefusedException refused && refused.notAuthenticated()) {
      // the call needs a caller whose token the identity provider and the catalog accept: the client's to fix
      return Kind.CALLERS_TOKEN_REFUSED;
    }
    for (Map.Entry<Class<? extends ScanPlanningException>, Kind> kind : KINDS) {
      if (kind.getKey().isInstance(failure)) {
        return kind.getValue();
      }
    }
    if (failure instanceof RestException rest) {
      return switch (rest.statusCode()) {
        // the catalog refused what was asked (a filter on a column the table lacks, say): the client's to fix
        case 400, 422 -> Kind.REQUEST_REJECTED;
        // the catalog is overloaded or down for now
        case 429, 503 -> Kind.CATALOG_UNAVAILABLE;
        // a plan or plan-task the catalog forgot, a refused authorization, a server error: the gateway's
        default -> Kind.CATALOG_ERROR;
      };
    }
    if (failure instanceof TransportException transport) {
      return transport.timedOut() ? Kind.CATALOG_TOO_SLOW : Kind.CATALOG_UNREACHABLE;
    }
    // a closed planner, the iceberg module's failures to read a file, a read cancelled
    return Kind.OTHER;
  }

  /** The kinds of failure a client is told apart: a status and a detail that quotes nothing of the failure. */
  private enum Kind {

    NO_CALLER(HttpStatus.UNAUTHORIZED, "The request has no authenticated caller"),
    CALLERS_TOKEN_REFUSED(HttpStatus.UNAUTHORIZED, "The caller's token was refused"),
    CALLER_FORBIDDEN(HttpStatus.FORBIDDEN, "The Iceberg catalog does not allow the caller this request"),
    NO_SUCH_TABLE(HttpStatus.NOT_FOUND, "No such table"),
    NO_SUCH_NAMESPACE(HttpStatus.NOT_FOUND, "No such namespace"),
    REQUEST_REJECTED(HttpStatus.BAD_REQUEST, "The Iceberg catalog rejected the request as invalid"),
    CATALOG_UNAVAILABLE(HttpStatus.SERVICE_UNAVAILABLE, "The Iceberg catalog is unavailable"),
    CATALOG_ERROR(HttpStatus.BAD_GATEWAY, "The Iceberg catalog answered with an error"),
    CATALOG_UNREACHABLE(HttpStatus.SERVICE_UNAVAILABLE, "The Iceberg catalog could not be reached"),
    CATALOG_TOO_SLOW(HttpStatus.GATEWAY_TIMEOUT, "The Iceberg catalog did not answer in time"),
    PLAN_TIMEOUT(HttpStatus.GATEWAY_TIMEOUT, "Planning the scan took longer than allowed"),
    PLAN_CANCELLED(HttpStatus.SERVICE_UNAVAILABLE, "Planning the scan was cancelled"),
    CALLER_MISMATCH(HttpStatus.INTERNAL_SERVER_ERROR, "The table was read as another caller than it was loaded as"),
    READ_RESTRICTED(HttpStatus.FORBIDDEN, "The table's read restrictions refuse this way of reading it"),
    AUTHENTICATION(HttpStatus.BAD_GATEWAY, "The application could not authenticate to the Iceberg catalog"),
    MALFORMED_ANSWER(HttpStatus.BAD_GATEWAY, "The Iceberg catalog's answer was malformed"),
    UNENFORCEABLE_RESTRICTIONS(HttpStatus.BAD_GATEWAY, "The table's read restrictions cannot be enforced"),
    UNSUPPORTED_ENDPOINT(HttpStatus.BAD_GATEWAY, "The Iceberg catalog does not offer what the request needs"),
    PLAN_FAILED(HttpStatus.BAD_GATEWAY, "The Iceberg catalog failed to plan the scan"),
    OTHER(HttpStatus.BAD_GATEWAY, "The table could not be planned or read");

    private final HttpStatus status;
    private final String detail;

    Kind(HttpStatus status, String detail) {
      this.status = status;
      this.detail = detail;
    }
  }
}
