package io.icebergscan.planning.internal.http;

import java.net.URI;
import java.net.URISyntaxException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.internal.wire.WireTypes.CatalogConfig;
import io.icebergscan.planning.model.Endpoint;
import org.jspecify.annotations.Nullable;

/**
 * Discovery's rules: how a catalog's {@code GET /v1/config} and the client's own settings merge into the
 * {@link DiscoveredCatalog} requests are built from, the endpoints assumed of a catalog that lists none, and what a
 * prefix or separator must be to go into a request path.
 */
public final class CatalogDiscovery {

  /**
   * What Apache Iceberg's client ({@code RESTSessionCatalog.DEFAULT_ENDPOINTS}) assumes of a catalog whose config
   * lists no endpoints (absent or empty): the endpoints older than the list. Neither planning nor credentials are
   * among them.
   */
  public static final Set<Endpoint> DEFAULT_ENDPOINTS = Set.of(
      new Endpoint("GET", "/v1/{prefix}/namespaces"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}"),
      new Endpoint("POST", "/v1/{prefix}/namespaces"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/properties"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/tables"),
      Endpoint.LOAD_TABLE,
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/tables"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}/tables/{table}"),
      new Endpoint("POST", "/v1/{prefix}/tables/rename"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/register"),
      Endpoint.REPORT_METRICS,
      new Endpoint("POST", "/v1/{prefix}/transactions/commit"));
  /** Added to the defaults, as Iceberg's client does, when the merged {@code view-endpoints-supported} is true. */
  private static final Set<Endpoint> VIEW_ENDPOINTS = Set.of(
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views"),
      new Endpoint("GET", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/views"),
      new Endpoint("POST", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("DELETE", "/v1/{prefix}/namespaces/{namespace}/views/{view}"),
      new Endpoint("POST", "/v1/{prefix}/views/rename"));
  private static final String DEFAULT_NAMESPACE_SEPARATOR = "%1F";

  private CatalogDiscovery() {
  }

  /**
   * The catalog a config describes, with the client's own prefix merged in.
   *
   * @throws MalformedResponseException naming the field, for a prefix or separator that cannot go into a path
   */
  static DiscoveredCatalog read(CatalogConfig config, @Nullable String clientPrefix) {
    String mergedPrefix = merged(config, "prefix", clientPrefix);
    String separator = merged(config, "namespace-separator", null);
    DiscoveredCatalog catalog = new DiscoveredCatalog(mergedPrefix == null || mergedPrefix.isEmpty() ? null
        : mergedPrefix, separator == null || separator.isEmpty() ? DEFAULT_NAMESPACE_SEPARATOR : separator,
        endpoints(config), config.idempotencyKeyLifetime() != null, properties(config));
    requireUsableInPath(config, "prefix", catalog.prefix(), true);
    requireUsableInPath(config, "namespace-separator", catalog.namespaceSeparator(), false);
    return catalog;
  }

  private static Map<String, String> properties(CatalogConfig config) {
    Map<String, String> properties = new LinkedHashMap<>(config.defaults());
    properties.putAll(config.overrides());
    return properties;
  }

  /**
   * The advertised endpoints, or what Iceberg's client assumes when there are none: an empty list is no list to
   * its client either ({@code RESTSessionCatalog.initialize}), so a catalog that sends one is read the same way by
   * both.
   */
  private static Set<Endpoint> endpoints(CatalogConfig config) {
    if (config.endpoints() != null && !config.endpoints().isEmpty()) {
      return config.endpoints();
    }
    if (!"true".equalsIgnoreCase(merged(config, "view-endpoints-supported", null))) {
      return DEFAULT_ENDPOINTS;
    }
    Set<Endpoint> withViews = new HashSet<>(DEFAULT_ENDPOINTS);
    withViews.addAll(VIEW_ENDPOINTS);
    return withViews;
  }

  /**
   * The prefix and the separator go into request paths as they are (both are sent already encoded): one a URI
   * cannot hold, or one that would end the path ({@code ?}, {@code #}), is a broken config, reported as such
   * rather than as whatever building the request would throw.
   */
  private static void requireUsableInPath(CatalogConfig config, String key, @Nullable String value,
      boolean slashAllowed) {
    if (value == null || usableInPath(value, slashAllowed)) {
      return;
    }
    // the client's own prefix was checked when the planner was built, so a bad value is the catalog's
    String field = (config.overrides().containsKey(key) ? "overrides." : "defaults.") + key;
    String shown = value.length() <= 100 ? value : value.substring(0, 100) + "…";
    throw new MalformedResponseException("'" + shown + "' cannot be used in a request path", field, null);
  }

  /**
   * Whether {@code value} is an encoded path part: only URI path characters, and a slash only if allowed. A
   * value with slashes (a prefix) must not hold a {@code .} or {@code ..} segment, encoded or not, which would
   * move the request to another path; a separator only ever joins namespace levels within one segment.
   */
  public static boolean usableInPath(String value, boolean slashAllowed) {
    if (value.indexOf('?') >= 0 || value.indexOf('#') >= 0 || !slashAllowed && value.indexOf('/') >= 0) {
      return false;
    }
    if (slashAllowed && Arrays.stream(value.split("/", -1)).map(segment -> segment.replaceAll("(?i)%2E", "."))
        .anyMatch(segment -> segment.equals(".") || segment.equals(".."))) {
      return false;
    }
    try {
      return ("/" + value).equals(new URI("http://h/" + value).getRawPath());
    }
    catch (URISyntaxException notAPath) {
      return false;
    }
  }

  /** Defaults, then the client's setting, then overrides: the last one present wins. */
  private static @Nullable String merged(CatalogConfig config, String key, @Nullable String clientValue) {
    String value = config.overrides().get(key);
    if (value == null) {
      value = clientValue;
    }
    if (value == null) {
      value = config.defaults().get(key);
    }
    return value;
  }
}
