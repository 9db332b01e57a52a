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
 * A task's masks, bound to the struct of its rows: each masked field's action, reached from the row through the
 * structs, lists and map values above it, so that a row is masked by position with no look-up. A row's own record is
 * masked in place (the readers make one per row); a nested struct, list or map that holds a masked field is copied,
 * never changed, since a reader may share it between rows (an identity partition's constant).
 *
 * <p>One per task, read by one thread at a time: each action that computes (a hash, a mask of characters, a
 * truncation) remembers its last results, since a masked column often repeats its values (a country, a category, the
 * month of neighbouring rows), and a SHA-256 costs more than the rest of a row.
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

  /**
   * Whether an action's results are worth remembering by value: it computes (a hash, a mask of characters), and its
   * results are immutable values that may be handed out again (not a buffer).
   */
  private static boolean remembers(MaskAction action, Type type) {
    return switch (action) {
      case MASK_ALPHANUM, SHOW_FIRST_4, SHOW_LAST_4, SHA_256_GLOBAL, SHA_256_QUERY_LOCAL ->
          type.typeId() != Type.TypeID.BINARY;
      default -> false;
    };
  }

  /**
   * The last results of an action, by value, in a small table indexed by the value's hash: a hit costs a hash and an
   * {@code equals}, a miss what the action costs and a store. A column whose values seldom repeat (an email) would pay
   * the look-ups for nothing: once a task's first {@value #TRIAL} values found fewer than one in {@value #ENOUGH}
   * remembered, the action is called straight. Not thread-safe: one per task.
   */
  private static final class Memo implements UnaryOperator<@Nullable Object> {

    private static final int SLOTS = 256;
    private static final int TRIAL = 1024;
    private static final int ENOUGH = 4;

    private final UnaryOperator<@Nullable Object> action;
    private final @Nullable Object[] values = new Object[SLOTS];
    private final @Nullable Object[] results = new Object[SLOTS];
    private int lookups;
    private int hits;
    private boolean worthIt = true;

    Memo(UnaryOperator<@Nullable Object> action) {
      this.action = action;
    }

    @Override
    public @Nullable Object apply(@Nullable Object value) {
      if (value == null || !this.worthIt) {
        return this.action.apply(value);
      }
      int hash = value.hashCode();
      int slot = (hash ^ (hash >>> 16)) & (SLOTS - 1);
      if (value.equals(this.values[slot])) {
        this.hits++;
        return this.results[slot];
      }
      Object result = this.action.apply(value);
      this.values[slot] = value;
      this.results[slot] = result;
      if (++this.lookups == TRIAL) {
        this.worthIt = this.hits * ENOUGH >= TRIAL;
      }
      return result;
    }
  }

  /**
   * A truncation that hands back its last result while the values stay in its year (or month): rows of a file come
   * in runs of a period more often than not, and a truncation's result is an immutable value. Dates and timestamps
   * without a zone only; a timestamp with one is truncated in UTC by the action each time.
   */
  private static final class SamePeriod implements UnaryOperator<@Nullable Object> {

    private final UnaryOperator<@Nullable Object> action;
    private final boolean monthly;
    private int year = Integer.MIN_VALUE;
    private int month;
    private @Nullable Object result;

    SamePeriod(UnaryOperator<@Nullable Object> action, boolean monthly) {
      this.action = action;
      this.monthly = monthly;
    }

    @Override
    public @Nullable Object apply(@Nullable Object value) {
      int valueYear;
      int valueMonth;
      if (value instanceof java.time.LocalDateTime timestamp) {
        valueYear = timestamp.getYear();
        valueMonth = timestamp.getMonthValue();
      }
      else if (value instanceof java.time.LocalDate date) {
        valueYear = date.getYear();
        valueMonth = date.getMonthValue();
      }
      else {
        return this.action.apply(value);
      }
      if (valueYear == this.year && (!this.monthly || valueMonth == this.month)) {
        return this.result;
      }
      Object truncated = this.action.apply(value);
      this.year = valueYear;
      this.month = valueMonth;
      this.result = truncated;
      return truncated;
    }
  }

  /** What a field's values become: its action's, or a copy with the masked fields under it rewritten; null if none. */
  private static @Nullable UnaryOperator<@Nullable Object> rewrite(Types.NestedField field,
      Map<Integer, MaskAction> masks, byte @Nullable [] salt) {
    MaskAction action = masks.get(field.fieldId());
    if (action != null) {
      UnaryOperator<@Nullable Object> masked = action.bind(field.type(), salt);
      if (action == MaskAction.TRUNCATE_TO_YEAR || action == MaskAction.TRUNCATE_TO_MONTH) {
        return new SamePeriod(masked, action == MaskAction.TRUNCATE_TO_MONTH);
      }
      return remembers(action, field.type()) ? new Memo(masked) : masked;
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
