package io.icebergscan.planning.model;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * A table in a REST catalog: its namespace levels and its name.
 *
 * @param namespace the namespace levels, outermost first (at least one)
 * @param name the table's name
 */
public record TableIdentifier(List<String> namespace, String name) {

  public TableIdentifier {
    namespace = List.copyOf(Objects.requireNonNull(namespace, "namespace"));
    if (namespace.isEmpty()) {
      throw new IllegalArgumentException("a table identifier needs at least one namespace level");
    }
    for (String level : namespace) {
      if (level.isEmpty()) {
        throw new IllegalArgumentException("empty namespace level in " + namespace);
      }
    }
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("empty table name");
    }
  }

  /** A table in a single-level namespace; the namespace is taken as it is, dots included. */
  public static TableIdentifier of(String namespace, String name) {
    return new TableIdentifier(List.of(namespace), name);
  }

  /** A table in a multi-level namespace, outermost level first. */
  public static TableIdentifier of(List<String> namespace, String name) {
    return new TableIdentifier(namespace, name);
  }

  /** Parses {@code "a.b.table"}: the last dot-separated part is the name, the others the namespace levels. */
  public static TableIdentifier parse(String identifier) {
    Objects.requireNonNull(identifier, "identifier");
    String[] parts = identifier.split("\\.", -1);
    if (parts.length < 2) {
      throw new IllegalArgumentException(
          "'" + identifier + "' is not a table identifier: expected namespace.table (namespace levels separated by dots)");
    }
    return new TableIdentifier(Arrays.asList(parts).subList(0, parts.length - 1), parts[parts.length - 1]);
  }

  @Override
  public String toString() {
    return String.join(".", this.namespace) + "." + this.name;
  }
}
