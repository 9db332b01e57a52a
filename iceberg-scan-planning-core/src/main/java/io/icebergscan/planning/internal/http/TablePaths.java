package io.icebergscan.planning.internal.http;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.StringJoiner;

import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;

/**
 * The request URIs of one table, encoded, and the URI templates its requests are named by (no table names or ids:
 * for the {@code uri} tag of metrics); the one place a path part or query value is percent-encoded.
 *
 * @param table the table's URI, {@code …/v1/[prefix/]namespaces/{levels}/tables/{name}}, encoded
 * @param displayUri the catalog's base URI without user info or query, which templates start with
 * @param prefixed whether the catalog's paths carry a prefix
 */
public record TablePaths(String table, String displayUri, boolean prefixed) {

  /** @param namespace the table's namespace levels, outermost first */
  static TablePaths of(String baseUri, String displayUri, DiscoveredCatalog catalog, List<String> namespace,
      String table) {
    StringJoiner levels = new StringJoiner(catalog.namespaceSeparator());
    namespace.forEach(level -> levels.add(encode(level)));
    String tableUri = baseUri + "/v1/" + (catalog.prefix() != null ? catalog.prefix() + "/" : "")
        + "namespaces/" + levels + "/tables/" + encode(table);
    return new TablePaths(tableUri, displayUri, catalog.prefix() != null);
  }

  String plan() {
    return this.table + "/plan";
  }

  String plan(String planId) {
    return plan() + "/" + encode(planId);
  }

  String tasks() {
    return this.table + "/tasks";
  }

  String credentials(@Nullable String planId) {
    return this.table + "/credentials" + (planId != null ? "?planId=" + encode(planId) : "");
  }

  String metrics() {
    return this.table + "/metrics";
  }

  /** The template of a request to one of this table's endpoints: the endpoint's path, with a prefix if in use. */
  String template(Endpoint endpoint) {
    return this.displayUri + (this.prefixed ? endpoint.path() : endpoint.path().replace("{prefix}/", ""));
  }

  /** RFC 3986 percent-encoding of one path segment or query value: only unreserved characters stay. */
  static String encode(String value) {
    byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
    StringBuilder out = new StringBuilder(bytes.length);
    for (byte b : bytes) {
      int c = b & 0xFF;
      if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
          || c == '-' || c == '.' || c == '_' || c == '~') {
        out.append((char) c);
      }
      else {
        out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return out.toString();
  }
}
