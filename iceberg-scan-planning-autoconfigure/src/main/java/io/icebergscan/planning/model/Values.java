package io.icebergscan.planning.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/** Defensive copies for the model records: unmodifiable, order kept, null elements allowed where the spec allows them. */
final class Values {

  private Values() {
  }

  static <T> List<T> list(@Nullable List<T> values) {
    return values == null ? List.of() : List.copyOf(values);
  }

  static List<@Nullable Object> nullableList(@Nullable List<@Nullable Object> values) {
    return values == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(values));
  }

  static <V> Map<Integer, V> map(@Nullable Map<Integer, V> values) {
    if (values == null || values.isEmpty()) {
      return Map.of();
    }
    Map<Integer, V> copy = new LinkedHashMap<>();
    values.forEach((k, v) -> copy.put(Objects.requireNonNull(k, "key"), Objects.requireNonNull(v, "value")));
    return Collections.unmodifiableMap(copy);
  }

  static long nonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must not be negative: " + value);
    }
    return value;
  }
}
