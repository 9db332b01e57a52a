package io.icebergscan.planning.exceptions;

/** The catalog does not advertise an endpoint the plan needs. */
public class UnsupportedEndpointException extends ScanPlanningException {

  private final String endpoint;

  public UnsupportedEndpointException(String endpoint) {
    super("the catalog does not advertise the endpoint '" + endpoint + "' in GET /v1/config");
    this.endpoint = endpoint;
  }

  /** The endpoint, as {@code "<METHOD> <path template>"}. */
  public String endpoint() {
    return this.endpoint;
  }
}
