package io.icebergscan.planning.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Defensive copies for the model records: unmodifiable lists in their order (nulls only where the spec allows
 * them) and unmodifiable maps.
 */
final class Values {

  private Values() {
  }

  static <T> List<T> list(@Nullable List<T> values) {
    return values == null ? List.of() : List.copyOf(values);
  }

  static List<@Nullable Object> nullableList(@Nullable List<@Nullable Object> values) {
    return values == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(values));
  }

  /** Like {@link Map#copyOf}: no order, no nulls, and a map that is already an unmodifiable copy is kept. */
  static <V> Map<Integer, V> map(@Nullable Map<Integer, V> values) {
    return values == null ? Map.of() : Map.copyOf(values);
  }

  static long nonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
    return value;
  }
}
