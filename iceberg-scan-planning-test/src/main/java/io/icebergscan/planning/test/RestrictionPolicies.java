package io.icebergscan.planning.test;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * The {@link RestrictionPolicy read restrictions} a catalog serves: per table, per table and principal, and per table
 * and bearer token, the most specific first. Set and read from any thread; a change applies to the requests answered
 * after it.
 */
final class RestrictionPolicies {

  private final Map<TableIdentifier, RestrictionPolicy> byTable = new ConcurrentHashMap<>();
  private final Map<Caller, RestrictionPolicy> byPrincipal = new ConcurrentHashMap<>();
  private final Map<Caller, RestrictionPolicy> byToken = new ConcurrentHashMap<>();

  /** A table as loaded by one caller: a principal's name or a bearer token, each in its own map. */
  private record Caller(TableIdentifier table, String caller) {
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
    Objects.requireNonNull(bearerToken, "bearerToken");
    if (bearerToken.isEmpty()) {
      throw new IllegalArgumentException("a bearer token must not be empty");
    }
    put(this.byToken, table, bearerToken, policy);
  }

  /** The policy of the principal's requests, whatever their token; {@code null} removes it. */
  void putForPrincipal(TableIdentifier table, String principal, @Nullable RestrictionPolicy policy) {
    put(this.byPrincipal, table, Objects.requireNonNull(principal, "principal"), policy);
  }

  private static void put(Map<Caller, RestrictionPolicy> policies, TableIdentifier table, String caller,
      @Nullable RestrictionPolicy policy) {
    Objects.requireNonNull(table, "table");
    Caller key = new Caller(table, caller);
    if (policy == null) {
      policies.remove(key);
    }
    else {
      policies.put(key, policy);
    }
  }

  /**
   * What a request for the table is served: the policy of its bearer token if it has one, else its principal's, else
   * the table's, else {@code null} (no {@code read-restrictions}).
   *
   * @param principal the request's principal, {@code null} while the catalog has none
   */
  @Nullable RestrictionPolicy servedTo(TableIdentifier table, @Nullable String principal,
      @Nullable String bearerToken) {
    if (this.byTable.isEmpty() && this.byPrincipal.isEmpty() && this.byToken.isEmpty()) {
      return null;
    }
    RestrictionPolicy own = bearerToken == null ? null : this.byToken.get(new Caller(table, bearerToken));
    if (own == null && principal != null) {
      own = this.byPrincipal.get(new Caller(table, principal));
    }
    return own != null ? own : this.byTable.get(table);
  }
}
