package io.icebergscan.planning.test;

import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * Who a catalog's callers are: its principals, the bearer tokens each one's requests carry, and the tables each one
 * was granted. Set and read from any thread; a change applies to the requests that arrive after it. Nothing here
 * writes a token into a message.
 */
final class Principals {

  /** A principal's tables; none granted means every table. */
  private final Map<String, Set<TableIdentifier>> grants = new ConcurrentHashMap<>();
  /** Each token's principal. */
  private final Map<String, String> tokens = new ConcurrentHashMap<>();

  /** Defines the principal if it is new, and adds the tokens to its own. */
  void define(String principal, String... bearerTokens) {
    requireText(principal, "principal");
    for (String token : bearerTokens) {
      requireText(token, "a bearer token");
      String known = this.tokens.get(token);
      if (known != null && !known.equals(principal)) {
        throw new IllegalArgumentException("that bearer token is already the token of the principal " + known);
      }
    }
    this.grants.computeIfAbsent(principal, name -> ConcurrentHashMap.newKeySet());
    for (String token : bearerTokens) {
      this.tokens.put(token, principal);
    }
  }

  /** Whether the catalog has principals, so that every request must carry one's token. */
  boolean any() {
    return !this.grants.isEmpty();
  }

  /** The principal whose token this is, {@code null} for none or an unknown one. */
  @Nullable String authenticate(@Nullable String bearerToken) {
    return bearerToken == null ? null : this.tokens.get(bearerToken);
  }

  /** Grants the principal the table, which makes every other table it was not granted forbidden to it. */
  void grant(String principal, TableIdentifier table) {
    Objects.requireNonNull(table, "table");
    defined(principal).add(table);
  }

  /** Whether the principal may use the table: it was granted the table, or no table at all. */
  boolean mayUse(String principal, TableIdentifier table) {
    Set<TableIdentifier> granted = this.grants.get(principal);
    return granted == null || granted.isEmpty() || granted.contains(table);
  }

  private Set<TableIdentifier> defined(String principal) {
    Objects.requireNonNull(principal, "principal");
    Set<TableIdentifier> granted = this.grants.get(principal);
    if (granted == null) {
      throw new IllegalArgumentException("no principal " + principal + ": define it with principal(name, tokens...)");
    }
    return granted;
  }

  private static void requireText(String value, String what) {
    Objects.requireNonNull(value, what);
    if (value.isEmpty()) {
      throw new IllegalArgumentException(what + " must not be empty");
    }
  }
}
