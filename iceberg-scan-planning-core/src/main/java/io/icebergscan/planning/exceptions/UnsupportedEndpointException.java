package io.icebergscan.planning.exceptions;

import io.icebergscan.planning.model.Endpoint;

/** The catalog does not advertise an endpoint the plan needs. */
public class UnsupportedEndpointException extends ScanPlanningException {

  private final Endpoint endpoint;

  public UnsupportedEndpointException(Endpoint endpoint) {
    super("the catalog does not advertise the endpoint '" + endpoint + "' in GET /v1/config");
    this.endpoint = endpoint;
  }

  /** The endpoint the catalog does not list. */
  public Endpoint endpoint() {
    return this.endpoint;
  }
}
