package io.icebergscan.planning.test;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RestrictionPolicy read restrictions} a catalog serves: per table, and per table and bearer token, the
 * latter first. Set and read from any thread; a change applies to the requests answered after it.
 */
final class RestrictionPolicies {

  private final Map<TableIdentifier, RestrictionPolicy> byTable = new ConcurrentHashMap<>();
  private final Map<Caller, RestrictionPolicy> byCaller = new ConcurrentHashMap<>();

  /** A table as loaded with one bearer token. */
  private record Caller(TableIdentifier table, String bearerToken) {
  }

  /** The policy of every caller of the table without one of its own; {@code null} removes it. */
  void put(TableIdentifier table, @Nullable RestrictionPolicy policy) {
    Objects.requireNonNull(table, "table");
    if (policy == null) {
      this.byTable.remove(table);
    }
    else {
      this.byTable.put(table, policy);
    }
  }

  /** The policy of the callers with this bearer token; {@code null} removes it. */
  void put(TableIdentifier table, String bearerToken, @Nullable RestrictionPolicy policy) {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(bearerToken, "bearerToken");
    if (bearerToken.isEmpty()) {
      throw new IllegalArgumentException("a bearer token must not be empty");
    }
    Caller caller = new Caller(table, bearerToken);
    if (policy == null) {
      this.byCaller.remove(caller);
    }
    else {
      this.byCaller.put(caller, policy);
    }
  }

  /**
   * What a request for the table is served: the policy of its bearer token if it has one, else the table's, else
   * {@code null} (no {@code read-restrictions}).
   */
  @Nullable RestrictionPolicy servedTo(TableIdentifier table, @Nullable String bearerToken) {
    if (this.byTable.isEmpty() && this.byCaller.isEmpty()) {
      return null;
    }
    RestrictionPolicy own = bearerToken == null ? null : this.byCaller.get(new Caller(table, bearerToken));
    return own != null ? own : this.byTable.get(table);
  }
}
