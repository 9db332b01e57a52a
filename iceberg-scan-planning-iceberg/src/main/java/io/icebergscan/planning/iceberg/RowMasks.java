package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * A read's masks, bound once to the struct of its rows: each masked field's action, reached from the row through the
 * structs, lists and map values above it, so that a row is masked by position with no look-up. A row's own record is
 * masked in place (the readers make one per row); a nested struct, list or map that holds a masked field is copied,
 * never changed, since a reader may share it between rows (an identity partition's constant).
 */
final class RowMasks {

  /** No mask: {@link #apply} returns the row as it is. */
  static final RowMasks NONE = new RowMasks(new int[0], List.of());

  private final int[] positions;
  private final List<UnaryOperator<@Nullable Object>> rewrites;

  private RowMasks(int[] positions, List<UnaryOperator<@Nullable Object>> rewrites) {
    this.positions = positions;
    this.rewrites = rewrites;
  }

  /**
   * @param salt the read's query salt, for {@code sha-256-query-local}; {@code null} when no mask needs one
   */
  static RowMasks of(Types.StructType struct, Map<Integer, MaskAction> masks, byte @Nullable [] salt) {
    if (masks.isEmpty()) {
      return NONE;
    }
    List<Integer> positions = new ArrayList<>();
    List<UnaryOperator<@Nullable Object>> rewrites = new ArrayList<>();
    List<Types.NestedField> fields = struct.fields();
    for (int i = 0; i < fields.size(); i++) {
      UnaryOperator<@Nullable Object> rewrite = rewrite(fields.get(i), masks, salt);
      if (rewrite != null) {
        positions.add(i);
        rewrites.add(rewrite);
      }
    }
    return new RowMasks(positions.stream().mapToInt(Integer::intValue).toArray(), List.copyOf(rewrites));
  }

  /** Whether no field of the rows is masked. */
  boolean isEmpty() {
    return this.positions.length == 0;
  }

  /** The row, its masked fields replaced by what their actions make of them. */
  Record apply(Record row) {
    for (int i = 0; i < this.positions.length; i++) {
      int position = this.positions[i];
      row.set(position, this.rewrites.get(i).apply(row.get(position, Object.class)));
    }
    return row;
  }

  /** What a field's values become: its action's, or a copy with the masked fields under it rewritten; null if none. */
  private static @Nullable UnaryOperator<@Nullable Object> rewrite(Types.NestedField field,
      Map<Integer, MaskAction> masks, byte @Nullable [] salt) {
    MaskAction action = masks.get(field.fieldId());
    if (action != null) {
      return action.bind(field.type(), salt);
    }
    Type type = field.type();
    if (type.isStructType()) {
      List<Types.NestedField> children = type.asStructType().fields();
      List<Integer> positions = new ArrayList<>();
      List<UnaryOperator<@Nullable Object>> rewrites = new ArrayList<>();
      for (int i = 0; i < children.size(); i++) {
        UnaryOperator<@Nullable Object> child = rewrite(children.get(i), masks, salt);
        if (child != null) {
          positions.add(i);
          rewrites.add(child);
        }
      }
      if (rewrites.isEmpty()) {
        return null;
      }
      return value -> {
        if (value == null) {
          return null;
        }
        Record copy = ((Record) value).copy();
        for (int i = 0; i < positions.size(); i++) {
          int position = positions.get(i);
          copy.set(position, rewrites.get(i).apply(copy.get(position, Object.class)));
        }
        return copy;
      };
    }
    if (type.isListType()) {
      UnaryOperator<@Nullable Object> element = rewrite(type.asListType().fields().get(0), masks, salt);
      if (element == null) {
        return null;
      }
      return value -> {
        if (value == null) {
          return null;
        }
        List<?> list = (List<?>) value;
        List<@Nullable Object> copy = new ArrayList<>(list.size());
        list.forEach(item -> copy.add(element.apply(item)));
        return copy;
      };
    }
    if (type.isMapType()) {
      // a map's keys are never masked (the restrictions refuse it): its values may be
      UnaryOperator<@Nullable Object> valueRewrite = rewrite(type.asMapType().fields().get(1), masks, salt);
      if (valueRewrite == null) {
        return null;
      }
      return value -> {
        if (value == null) {
          return null;
        }
        Map<?, ?> map = (Map<?, ?>) value;
        Map<@Nullable Object, @Nullable Object> copy = new LinkedHashMap<>(map.size() * 2);
        map.forEach((key, item) -> copy.put(key, valueRewrite.apply(item)));
        return copy;
      };
    }
    return null;
  }
}
