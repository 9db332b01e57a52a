package io.icebergscan.planning.internal.http;

import java.io.IOException;
import java.time.Duration;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.exceptions.AuthenticationException;
import io.icebergscan.planning.exceptions.CallerRefusedException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchPlanIdException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TokenExchangeException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import io.icebergscan.planning.model.Endpoint;
import io.netty.channel.ChannelException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.timeout.ReadTimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.core.io.buffer.DataBufferLimitException;
import reactor.netty.channel.AbortedException;

/**
 * The one place a failed request becomes a typed exception: an HTTP error answer by its status and Iceberg error
 * body, and a failure below it (the connection, the exchange, an answer over the size limit) by its kind.
 */
public final class CatalogErrors {

  /**
   * What an untyped 404 means per endpoint: the one 404 the spec gives each (a namespace's absence is typed when
   * a catalog tells it). Discovery's 404 stays untyped.
   */
  private static final Map<Endpoint, String> NOT_FOUND = Map.of(
      Endpoint.SUBMIT_PLAN, "NoSuchTableException",
      Endpoint.FETCH_PLAN, "NoSuchPlanIdException",
      Endpoint.CANCEL_PLAN, "NoSuchPlanIdException",
      Endpoint.FETCH_PLAN_TASKS, "NoSuchPlanTaskException",
      Endpoint.LOAD_TABLE, "NoSuchTableException",
      Endpoint.TABLE_EXISTS, "NoSuchTableException",
      Endpoint.LOAD_CREDENTIALS, "NoSuchTableException",
      Endpoint.REPORT_METRICS, "NoSuchTableException");

  /** Refusals of a caller: not authenticated (401, and the spec's 419 for an expired token), not authorized (403). */
  private static final Set<Integer> CALLER_REFUSED = Set.of(401, 403, 419);

  private CatalogErrors() {
  }

  /**
   * An HTTP error answer of a request to {@code endpoint}.
   *
   * @param callers whether the request was a caller's: its 401, 403 and 419 are then the caller's refusals
   */
  public static RestException map(Endpoint endpoint, int status, @Nullable ErrorBody body, @Nullable String planTask,
      @Nullable Duration retryAfter, boolean callers) {
    String type = body != null ? body.type() : null;
    String message = body != null && body.message() != null
        ? body.message()
        : endpoint + " answered HTTP " + status + " without an Iceberg error body";
    if (status == 404) {
      switch (type != null ? type : NOT_FOUND.getOrDefault(endpoint, "")) {
        case "NoSuchTableException":
          return new NoSuchTableException(status, type, message, planTask, retryAfter);
        case "NoSuchNamespaceException":
          return new NoSuchNamespaceException(status, type, message, planTask, retryAfter);
        case "NoSuchPlanIdException":
          return new NoSuchPlanIdException(status, type, message, planTask, retryAfter);
        case "NoSuchPlanTaskException":
          return new NoSuchPlanTaskException(status, type, message, planTask, retryAfter);
        default:
          break;
      }
    }
    if (callers && CALLER_REFUSED.contains(status)) {
      return new CallerRefusedException(status, type, message, planTask, retryAfter);
    }
    return new RestException(status, type, message, planTask, retryAfter);
  }

  /**
   * A failure that is not yet a planning exception: an answer over the size limit is malformed, a failure of the
   * connection or the exchange a {@link TransportException} (retryable), and anything else (a bug in a filter or
   * in handling an answer) a plain {@link ScanPlanningException}, which is never retried.
   *
   * @param request {@code "<METHOD> <uri>"} as sent; user info in it is masked
   */
  static ScanPlanningException unexpected(String request, @Nullable String planTask, Throwable failure,
      int maxResponseBytes) {
    if (failure instanceof DataBufferLimitException || failure.getCause() instanceof DataBufferLimitException) {
      return new MalformedResponseException("the response to " + Redaction.maskUserInfo(request)
          + " is larger than the limit of " + maxResponseBytes + " bytes", null, planTask);
    }
    String message = Redaction.maskUserInfo(request + " failed: " + cause(failure));
    return transport(failure) ? new TransportException(message, planTask, failure)
        : new ScanPlanningException(message, planTask, failure);
  }

  /** A failure of a filter (getting a token) knows no handle: a fetch's failure names its own. */
  static ScanPlanningException withPlanTask(ScanPlanningException failure, String planTask) {
    // every ScanPlanningException is made with a message
    String message = String.valueOf(failure.getMessage());
    if (failure instanceof TokenExchangeException exchange) {
      // still the caller's refusal, which an application answers 401
      return new TokenExchangeException(message, exchange.errorCode(), planTask);
    }
    if (failure instanceof AuthenticationException) {
      return new AuthenticationException(message, planTask, failure.getCause());
    }
    if (failure instanceof TransportException) {
      return new TransportException(message, planTask, failure.getCause());
    }
    return failure;
  }

  /** Failures of the connection or the exchange: I/O, TLS, timeouts, HTTP framing, a closed or aborted channel. */
  static boolean transport(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof IOException || cause instanceof java.util.concurrent.TimeoutException
          || cause instanceof ChannelException || cause instanceof DecoderException
          || cause instanceof AbortedException) {
        return true;
      }
    }
    return false;
  }

  /** What failed below WebClient, whose own exception may say no more than its class name. */
  public static String cause(Throwable failure) {
    Throwable root = failure;
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof ReadTimeoutException) {
        return "no response within the response timeout";
      }
      root = cause;
    }
    String message = root.getMessage();
    return root.getClass().getSimpleName() + (message == null || message.isBlank() ? "" : ": " + message);
  }
}
