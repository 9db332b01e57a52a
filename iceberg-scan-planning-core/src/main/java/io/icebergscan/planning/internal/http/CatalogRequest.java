package io.icebergscan.planning.internal.http;

import java.util.function.Consumer;

import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;

/**
 * One request to the catalog, as {@link CatalogClient} sends it: what it calls, where, with what, and when it may be
 * sent again.
 *
 * @param endpoint the endpoint called: its method, the URI template that names the request, and what an untyped
 *     404 means
 * @param uri the request's URI, encoded
 * @param uriTemplate what the request is named by in metrics: no table names or ids
 * @param body the JSON body, or {@code null} for none
 * @param idempotencyKey whether the request carries an {@code Idempotency-Key}, the same on every attempt
 * @param headers sets the request's own headers, besides the planner's
 * @param planTask the handle a fetch is for, which its failures name
 * @param resend when a failed attempt is sent again
 */
record CatalogRequest(Endpoint endpoint, String uri, String uriTemplate, byte @Nullable [] body,
    boolean idempotencyKey, Consumer<HttpHeaders> headers, @Nullable String planTask, Resend resend) {

  private static final Consumer<HttpHeaders> NO_HEADERS = headers -> {
  };

  /** When a failed attempt is sent again ({@link RetryPolicy}). */
  enum Resend {
    /** After any transient failure: reads, DELETEs, and submissions where keys are honoured. */
    AFTER_TRANSIENT_FAILURES,
    /** Only after failures that say it was not acted on (429, 503, a connection never made). */
    IF_NOT_PROCESSED,
    /** Never: a health check reports what the catalog answers now. */
    NEVER
  }

  /** A request without a body, headers or handle, sent again after transient failures. */
  static CatalogRequest to(Endpoint endpoint, String uri, String uriTemplate) {
    return new CatalogRequest(endpoint, uri, uriTemplate, null, false, NO_HEADERS, null,
        Resend.AFTER_TRANSIENT_FAILURES);
  }

  /** With a JSON body, and an {@code Idempotency-Key} if {@code keyed}. */
  CatalogRequest body(byte[] json, boolean keyed) {
    return new CatalogRequest(this.endpoint, this.uri, this.uriTemplate, json, keyed, this.headers, this.planTask,
        this.resend);
  }

  CatalogRequest header(String name, String value) {
    return new CatalogRequest(this.endpoint, this.uri, this.uriTemplate, this.body, this.idempotencyKey,
        headers -> headers.set(name, value), this.planTask, this.resend);
  }

  CatalogRequest planTask(String handle) {
    return new CatalogRequest(this.endpoint, this.uri, this.uriTemplate, this.body, this.idempotencyKey,
        this.headers, handle, this.resend);
  }

  CatalogRequest resend(Resend when) {
    return new CatalogRequest(this.endpoint, this.uri, this.uriTemplate, this.body, this.idempotencyKey,
        this.headers, this.planTask, when);
  }

  /** {@code "<METHOD> <uri>"}, as failures name the request. */
  String described() {
    return this.endpoint.method() + " " + this.uri;
  }
}
