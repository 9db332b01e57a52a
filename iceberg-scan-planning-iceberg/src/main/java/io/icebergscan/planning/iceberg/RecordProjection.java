package io.icebergscan.planning.iceberg;

import java.util.List;

import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Rows of one struct cut to another whose fields it has (by field id, nested structs included), by position: worked
 * out once, so a row is copied with no look-up by name. A row may have more fields after those of its struct (the
 * columns a task's deletes read are added at the end), which are left out.
 */
final class RecordProjection {

  private final Types.StructType to;
  private final int[] positions;
  /** Per output field, the projection of a nested struct that differs from the input's, else null. */
  private final @Nullable RecordProjection[] nested;

  private RecordProjection(Types.StructType to, int[] positions, @Nullable RecordProjection[] nested) {
    this.to = to;
    this.positions = positions;
    this.nested = nested;
  }

  /**
   * @throws IllegalArgumentException when {@code from} lacks a field of {@code to}, or holds it with another type
   */
  static RecordProjection of(Types.StructType from, Types.StructType to) {
    List<Types.NestedField> fields = to.fields();
    int[] positions = new int[fields.size()];
    @Nullable RecordProjection[] nested = new RecordProjection[fields.size()];
    List<Types.NestedField> source = from.fields();
    for (int i = 0; i < fields.size(); i++) {
      Types.NestedField field = fields.get(i);
      positions[i] = -1;
      for (int j = 0; j < source.size(); j++) {
        if (source.get(j).fieldId() == field.fieldId()) {
          positions[i] = j;
          break;
        }
      }
      if (positions[i] < 0) {
        throw new IllegalArgumentException("no field " + field.fieldId() + " to project from");
      }
      Types.NestedField input = source.get(positions[i]);
      if (!input.type().equals(field.type())) {
        if (!input.type().isStructType() || !field.type().isStructType()) {
          throw new IllegalArgumentException("field " + field.fieldId() + " is read as " + input.type()
              + ", not " + field.type());
        }
        nested[i] = of(input.type().asStructType(), field.type().asStructType());
      }
    }
    return new RecordProjection(to, positions, nested);
  }

  Record project(Record row) {
    GenericRecord projected = GenericRecord.create(this.to);
    for (int i = 0; i < this.positions.length; i++) {
      Object value = row.get(this.positions[i], Object.class);
      RecordProjection inner = this.nested[i];
      projected.set(i, inner == null || value == null ? value : inner.project((Record) value));
    }
    return projected;
  }
}
