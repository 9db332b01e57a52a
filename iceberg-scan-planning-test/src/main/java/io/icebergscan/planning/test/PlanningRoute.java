package io.icebergscan.planning.test;

import java.util.List;

import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.rest.HTTPRequest.HTTPMethod;
import org.apache.iceberg.rest.RESTUtil;
import org.jspecify.annotations.Nullable;

/**
 * The requests the embedded catalog treats specially, recognised from the method and the path the
 * servlet hands over ({@code v1/namespaces/{namespace}/tables/{table}/plan}, no leading slash, still
 * percent-encoded); everything else is {@link #OTHER} and goes to Iceberg's adapter untouched.
 */
enum PlanningRoute {
  /** {@code GET …/tables/{table}/credentials}: a route Iceberg's adapter and servlet do not know. */
  CREDENTIALS,
  CONFIG, PLAN, POLL, CANCEL, TASKS,
  /** {@code POST …/tables/{table}/metrics}: a scan or commit report, answered by Iceberg's adapter. */
  METRICS,
  OTHER;

  /**
   * The namespace separator Iceberg's 1.11 adapter decodes paths with (its own constant is
   * package-private); the adapter advertises the same value as the {@code namespace-separator} override.
   */
  private static final String NAMESPACE_SEPARATOR = "%2E";

  static PlanningRoute of(HTTPMethod method, String path) {
    List<String> parts = List.of(path.split("/", -1));
    if (parts.size() == 2 && "v1".equals(parts.get(0)) && "config".equals(parts.get(1))) {
      return method == HTTPMethod.GET ? CONFIG : OTHER;
    }
    if (!isTablePath(parts)) {
      return OTHER;
    }
    String action = parts.get(5);
    if (parts.size() == 6 && "plan".equals(action) && method == HTTPMethod.POST) {
      return PLAN;
    }
    if (parts.size() == 6 && "tasks".equals(action) && method == HTTPMethod.POST) {
      return TASKS;
    }
    if (parts.size() == 6 && "credentials".equals(action) && method == HTTPMethod.GET) {
      return CREDENTIALS;
    }
    if (parts.size() == 6 && "metrics".equals(action) && method == HTTPMethod.POST) {
      return METRICS;
    }
    if (parts.size() == 7 && "plan".equals(action)) {
      return method == HTTPMethod.GET ? POLL : method == HTTPMethod.DELETE ? CANCEL : OTHER;
    }
    return OTHER;
  }

  /**
   * Whether the request is answered with a {@code LoadTableResult}: a table load ({@code GET …/tables/{table}}), a
   * creation ({@code POST …/namespaces/{namespace}/tables}) or a registration
   * ({@code POST …/namespaces/{namespace}/register}). Those are {@link #OTHER} for {@link #of}.
   */
  static boolean answersLoadTable(HTTPMethod method, String path) {
    List<String> parts = List.of(path.split("/", -1));
    if (parts.size() < 4 || !"v1".equals(parts.get(0)) || !"namespaces".equals(parts.get(1))) {
      return false;
    }
    if (parts.size() == 5) {
      return method == HTTPMethod.GET && "tables".equals(parts.get(3));
    }
    return parts.size() == 4 && method == HTTPMethod.POST
        && ("tables".equals(parts.get(3)) || "register".equals(parts.get(3)));
  }

  /** The namespace of a namespace's or a table's path. */
  static Namespace namespace(String path) {
    return RESTUtil.decodeNamespace(path.split("/", -1)[2], NAMESPACE_SEPARATOR);
  }

  /** The table of a table route's path. */
  static TableIdentifier table(String path) {
    return TableIdentifier.of(namespace(path), RESTUtil.decodeString(path.split("/", -1)[4]));
  }

  /**
   * The table a request's path names: a table's own path ({@code v1/namespaces/{namespace}/tables/{table}}) and every
   * path below it; {@code null} for any other path.
   */
  static @Nullable TableIdentifier tableOf(String path) {
    List<String> parts = List.of(path.split("/", -1));
    boolean table = parts.size() >= 5 && "v1".equals(parts.get(0)) && "namespaces".equals(parts.get(1))
        && "tables".equals(parts.get(3)) && !parts.get(4).isEmpty();
    return table ? table(path) : null;
  }

  /** The plan id of a poll or cancel path. */
  static String planId(String path) {
    String[] parts = path.split("/", -1);
    return RESTUtil.decodeString(parts[6]);
  }

  private static boolean isTablePath(List<String> parts) {
    return (parts.size() == 6 || parts.size() == 7) && "v1".equals(parts.get(0)) && "namespaces".equals(parts.get(1))
        && "tables".equals(parts.get(3));
  }
}
