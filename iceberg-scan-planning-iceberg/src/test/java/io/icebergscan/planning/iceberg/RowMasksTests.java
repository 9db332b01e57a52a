package io.icebergscan.planning.iceberg;

import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.UnaryOperator;

import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A task's masks give what each action gives, whatever the values repeat or collide in the table of results it
 * remembers, and leave what a reader may share between rows (a nested record) as it was.
 */
class RowMasksTests {

  private static final Types.StructType ROWS = Types.StructType.of(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.optional(3, "created", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(4, "address", Types.StructType.of(
          Types.NestedField.optional(5, "street", Types.StringType.get()))));

  @Test
  void rememberedResultsAreTheActionsWhateverValuesRepeatOrCollide() {
    Map<Integer, MaskAction> masks = Map.of(2, MaskAction.SHA_256_GLOBAL, 3, MaskAction.TRUNCATE_TO_MONTH,
        5, MaskAction.MASK_ALPHANUM);
    RowMasks task = RowMasks.of(ROWS, masks, null);
    UnaryOperator<@Nullable Object> hash = MaskAction.SHA_256_GLOBAL.bind(Types.StringType.get(), null);
    UnaryOperator<@Nullable Object> month = MaskAction.TRUNCATE_TO_MONTH.bind(Types.TimestampType.withoutZone(),
        null);
    UnaryOperator<@Nullable Object> alphanum = MaskAction.MASK_ALPHANUM.bind(Types.StringType.get(), null);
    Random random = new Random(42);
    List<String> emails = new ArrayList<>();
    // far more values than the table has slots, some repeating: every slot sees hits and collisions
    for (int n = 0; n < 2_000; n++) {
      emails.add(random.nextInt(5) == 0 ? null : "user" + random.nextInt(1_500) + "@example.com");
    }
    LocalDateTime start = LocalDateTime.of(2026, 1, 31, 23, 59);
    for (int n = 0; n < emails.size(); n++) {
      Record address = GenericRecord.create(ROWS.fieldType("address").asStructType());
      address.setField("street", n + " Main St");
      Record row = GenericRecord.create(ROWS);
      row.set(0, (long) n);
      row.set(1, emails.get(n));
      row.set(2, start.plusMinutes(n % 7 == 0 ? -n : n));
      row.set(3, address);
      Record masked = task.apply(row);
      assertThat(masked.get(1)).as("row %d", n).isEqualTo(hash.apply(emails.get(n)));
      assertThat(masked.get(2)).as("row %d", n).isEqualTo(month.apply(start.plusMinutes(n % 7 == 0 ? -n : n)));
      assertThat(((Record) masked.get(3)).getField("street")).isEqualTo(alphanum.apply(n + " Main St"));
      assertThat(address.getField("street")).as("the nested record the reader made, unchanged")
          .isEqualTo(n + " Main St");
    }
  }

  @Test
  void withoutMasksARowIsHandedBackAsItIs() {
    Record row = GenericRecord.create(ROWS);
    assertThat(RowMasks.of(ROWS, Map.of(), null).isEmpty()).isTrue();
    assertThat(RowMasks.of(ROWS, Map.of(), null).apply(row)).isSameAs(row);
  }
}
