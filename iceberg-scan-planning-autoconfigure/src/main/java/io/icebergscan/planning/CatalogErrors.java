package io.icebergscan.planning;

import io.icebergscan.planning.WireTypes.ErrorBody;
import org.jspecify.annotations.Nullable;

/** The one place that turns an HTTP error answer into a typed exception. */
final class CatalogErrors {

  /** The call that got the error: decides what an untyped 404 means. */
  enum Call {
    CONFIG("GET /v1/config"),
    SUBMIT("POST plan"),
    POLL("GET plan"),
    CANCEL("DELETE plan"),
    FETCH_TASKS("POST tasks");

    private final String label;

    Call(String label) {
      this.label = label;
    }
  }

  private CatalogErrors() {
  }

  static RestException map(Call call, int status, @Nullable ErrorBody body, @Nullable String planTask) {
    String type = body != null ? body.type() : null;
    String message = body != null && body.message() != null
        ? body.message()
        : call.label + " answered HTTP " + status + " without an Iceberg error body";
    if (status == 404) {
      String effectiveType = type != null ? type : switch (call) {
        case FETCH_TASKS -> "NoSuchPlanTaskException";
        case POLL, CANCEL -> "NoSuchPlanIdException";
        case SUBMIT -> "NoSuchTableException";
        case CONFIG -> "";
      };
      switch (effectiveType) {
        case "NoSuchTableException":
          return new NoSuchTableException(status, type, message, planTask);
        case "NoSuchNamespaceException":
          return new NoSuchNamespaceException(status, type, message, planTask);
        case "NoSuchPlanIdException":
          return new NoSuchPlanIdException(status, type, message, planTask);
        case "NoSuchPlanTaskException":
          return new NoSuchPlanTaskException(status, type, message, planTask);
        default:
          break;
      }
    }
    return new RestException(status, type, message, planTask);
  }
}
