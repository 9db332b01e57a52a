package io.icebergscan.planning.internal.http;

import java.time.Duration;

import io.icebergscan.planning.exceptions.NoSuchNamespaceException;
import io.icebergscan.planning.exceptions.NoSuchPlanIdException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import org.jspecify.annotations.Nullable;

/** The one place that turns an HTTP error answer into a typed exception. */
public final class CatalogErrors {

  /** The call that got the error: decides what an untyped 404 means. */
  public enum Call {
    CONFIG("GET /v1/config"),
    SUBMIT("POST plan"),
    POLL("GET plan"),
    CANCEL("DELETE plan"),
    FETCH_TASKS("POST tasks"),
    LOAD_TABLE("GET table"),
    LOAD_CREDENTIALS("GET credentials"),
    REPORT_METRICS("POST metrics");

    private final String label;

    Call(String label) {
      this.label = label;
    }
  }

  private CatalogErrors() {
  }

  public static RestException map(Call call, int status, @Nullable ErrorBody body, @Nullable String planTask,
      @Nullable Duration retryAfter) {
    String type = body != null ? body.type() : null;
    String message = body != null && body.message() != null
        ? body.message()
        : call.label + " answered HTTP " + status + " without an Iceberg error body";
    if (status == 404) {
      String effectiveType = type != null ? type : switch (call) {
        case FETCH_TASKS -> "NoSuchPlanTaskException";
        case POLL, CANCEL -> "NoSuchPlanIdException";
        // the one 404 the spec gives each of these calls: a namespace's absence is typed when a catalog tells it
        case SUBMIT, LOAD_TABLE, LOAD_CREDENTIALS, REPORT_METRICS -> "NoSuchTableException";
        case CONFIG -> "";
      };
      switch (effectiveType) {
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
    return new RestException(status, type, message, planTask, retryAfter);
  }
}
