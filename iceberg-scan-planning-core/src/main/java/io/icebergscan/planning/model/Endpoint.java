package io.icebergscan.planning.model;

import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * A REST catalog endpoint: an HTTP method and a path template, as {@code GET /v1/config} lists them in its
 * {@code endpoints} ({@code "POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan"}). Each endpoint this client
 * calls is a constant here, written once; discovery, the planner's checks, the HTTP client and health all use these.
 *
 * @param method the HTTP method, upper case
 * @param path the path template, starting with {@code /}
 */
public record Endpoint(String method, String path) {

  private static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH");
  private static final String TABLE = "/v1/{prefix}/namespaces/{namespace}/tables/{table}";

  /** The catalog's configuration: what discovery reads. Every catalog has it; none lists it. */
  public static final Endpoint CONFIG = new Endpoint("GET", "/v1/config");
  /** Submits a scan plan: answered with tasks, plan-tasks, or a plan id to poll. */
  public static final Endpoint SUBMIT_PLAN = new Endpoint("POST", TABLE + "/plan");
  /** Polls a submitted plan by its id. */
  public static final Endpoint FETCH_PLAN = new Endpoint("GET", TABLE + "/plan/{plan-id}");
  /** Cancels a submitted plan that is no longer wanted. */
  public static final Endpoint CANCEL_PLAN = new Endpoint("DELETE", TABLE + "/plan/{plan-id}");
  /** Fetches the tasks of one plan-task handle. */
  public static final Endpoint FETCH_PLAN_TASKS = new Endpoint("POST", TABLE + "/tasks");
  /** Loads a table's metadata, config and vended credentials. */
  public static final Endpoint LOAD_TABLE = new Endpoint("GET", TABLE);
  /** Whether a table exists, without loading it. */
  public static final Endpoint TABLE_EXISTS = new Endpoint("HEAD", TABLE);
  /** Loads a table's current vended credentials. */
  public static final Endpoint LOAD_CREDENTIALS = new Endpoint("GET", TABLE + "/credentials");
  /** Sends a metrics report, such as a scan report. */
  public static final Endpoint REPORT_METRICS = new Endpoint("POST", TABLE + "/metrics");

  /** @throws IllegalArgumentException naming what is wrong, for a method that is not HTTP's or a relative path */
  public Endpoint {
    Objects.requireNonNull(method, "method");
    Objects.requireNonNull(path, "path");
    if (!METHODS.contains(method)) {
      throw new IllegalArgumentException("'" + method + "' is not an HTTP method (one of " + METHODS + ", upper case)");
    }
    if (!path.startsWith("/") || path.chars().anyMatch(Character::isWhitespace)) {
      throw new IllegalArgumentException("'" + path + "' is not a path template: it must start with / and hold no "
          + "whitespace");
    }
  }

  /**
   * Reads an endpoint as a catalog lists it, {@code "<METHOD> <path>"}: the method in any case, separated from the
   * path by whitespace.
   *
   * @throws IllegalArgumentException naming the text, when it is not a method and a path
   */
  public static Endpoint parse(String text) {
    String[] parts = text.trim().split("\\s+");
    if (parts.length != 2 || !parts[1].startsWith("/")) {
      throw new IllegalArgumentException("'" + text + "' is not an endpoint: expected \"<METHOD> <path>\", e.g. \""
          + SUBMIT_PLAN + "\"");
    }
    return new Endpoint(parts[0].toUpperCase(Locale.ROOT), parts[1]);
  }

  /** {@code "<METHOD> <path>"}, as the spec and {@code GET /v1/config} write it. */
  @Override
  public String toString() {
    return this.method + " " + this.path;
  }
}
