package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;

import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;

/**
 * The read restrictions a catalog requires of the readers of a table (the {@code read-restrictions} of its load
 * answer, REST spec): a row filter, evaluated on the raw values, and masks (the spec's
 * {@code required-column-projections}), each an action on one field, by field id. A missing or empty object, no
 * masks, and a row filter that is absent, null or always true each impose nothing.
 *
 * <p>The one home of their wire format and of the spec's fail-closed rules. What cannot be enforced in full is an
 * {@link InvalidReadRestrictionsException} naming the table, the field and the rule, before anything of the table is
 * planned or read: an unknown member or action, a field id given twice, an expression this reader cannot apply, a
 * row filter that references a column by name rather than id or a field the schema read lacks or a literal its type
 * cannot take, a mask on a map key, on a type its action does not apply to, or {@code replace-with-null} on a
 * required field, and a mask on a struct, list or map together with one on a field nested under it. A mask on a field
 * the schema read lacks does not apply (a time travel to a schema from before the column existed): no such column is
 * read.
 *
 * <p>They hold for the authentication scope of the load that brought them: another identity may be given other
 * restrictions. {@link #toString()} names the masked fields and whether rows are filtered, never the filter.
 */
public final class ReadRestrictions {

  static final ReadRestrictions NONE = new ReadRestrictions(null, Map.of());

  private static final String ROW_FILTER = "required-row-filter";
  private static final String PROJECTIONS = "required-column-projections";

  /** The row filter as the catalog wrote it, read again for each schema it is bound to; null when none. */
  private final @Nullable JsonNode rowFilter;
  /** The masks, by field id, in the catalog's order. */
  private final Map<Integer, MaskAction> masks;

  private ReadRestrictions(@Nullable JsonNode rowFilter, Map<Integer, MaskAction> masks) {
    this.rowFilter = rowFilter;
    this.masks = Collections.unmodifiableMap(masks);
  }

  /**
   * The restrictions of a load answer, checked against the table's current schema.
   *
   * @param table the table, for messages
   * @param json the {@code read-restrictions} object as JSON text, or {@code null} when the answer had none
   * @throws InvalidReadRestrictionsException when they cannot be enforced in full
   */
  static ReadRestrictions parse(String table, @Nullable String json, Schema current) {
    if (json == null) {
      return NONE;
    }
    JsonNode root;
    try {
      root = ExpressionJson.tree(json);
    }
    catch (ExpressionJson.InvalidExpressionException notJson) {
      throw new InvalidReadRestrictionsException(table, null, "read-restrictions " + notJson.getMessage());
    }
    if (root.isNull()) {
      return NONE;
    }
    if (!root.isObject()) {
      throw new InvalidReadRestrictionsException(table, null, "read-restrictions is not an object");
    }
    for (String member : root.propertyNames()) {
      if (!ROW_FILTER.equals(member) && !PROJECTIONS.equals(member)) {
        throw new InvalidReadRestrictionsException(table, null, "read-restrictions has the member '" + member
            + "', which this reader does not know");
      }
    }
    Map<Integer, MaskAction> masks = masks(table, root.get(PROJECTIONS));
    JsonNode filter = root.get(ROW_FILTER);
    boolean noFilter = filter == null || filter.isNull() || (filter.isBoolean() && filter.booleanValue());
    ReadRestrictions restrictions = new ReadRestrictions(noFilter ? null : filter, masks);
    // checked against the schema the table has now, which most reads read with; each read binds them again
    Bound bound = restrictions.bind(table, current);
    if (restrictions.rowFilter != null && bound.rowFilter() == null) {
      // always true, however it was written
      restrictions = new ReadRestrictions(null, masks);
    }
    return restrictions.isEmpty() ? NONE : restrictions;
  }

  private static Map<Integer, MaskAction> masks(String table, @Nullable JsonNode projections) {
    Map<Integer, MaskAction> masks = new LinkedHashMap<>();
    if (projections == null || projections.isNull()) {
      return masks;
    }
    if (!projections.isArray()) {
      throw new InvalidReadRestrictionsException(table, null, PROJECTIONS + " is not an array");
    }
    for (int i = 0; i < projections.size(); i++) {
      String at = PROJECTIONS + "[" + i + "]";
      JsonNode projection = projections.get(i);
      if (!projection.isObject()) {
        throw new InvalidReadRestrictionsException(table, null, at + " is not an object");
      }
      for (String member : projection.propertyNames()) {
        if (!"field-id".equals(member) && !"action".equals(member)) {
          throw new InvalidReadRestrictionsException(table, null, at + " has the member '" + member
              + "', which this reader does not know");
        }
      }
      JsonNode id = projection.get("field-id");
      if (id == null || !id.isIntegralNumber() || !id.canConvertToInt()) {
        throw new InvalidReadRestrictionsException(table, null, at + " has no int field-id");
      }
      int fieldId = id.intValue();
      JsonNode name = projection.get("action");
      if (name == null || !name.isString()) {
        throw new InvalidReadRestrictionsException(table, fieldId, at + " has no action");
      }
      MaskAction action = MaskAction.fromWireName(name.stringValue());
      if (action == null) {
        throw new InvalidReadRestrictionsException(table, fieldId, "the action '" + name.stringValue()
            + "' is not one this reader knows");
      }
      if (masks.putIfAbsent(fieldId, action) != null) {
        throw new InvalidReadRestrictionsException(table, fieldId, "two projections of the same field");
      }
    }
    return masks;
  }

  /** Whether these impose nothing: no row filter and no mask. */
  public boolean isEmpty() {
    return this.rowFilter == null && this.masks.isEmpty();
  }

  /** Whether a row filter leaves out the rows it is false for. */
  public boolean hasRowFilter() {
    return this.rowFilter != null;
  }

  /** The masks: each masked field's id, and the spec's name of its action ({@code mask-alphanum}, …), in order. */
  public Map<Integer, String> masks() {
    Map<Integer, String> names = new LinkedHashMap<>();
    this.masks.forEach((id, action) -> names.put(id, action.wireName()));
    return Collections.unmodifiableMap(names);
  }

  /**
   * The restrictions for a read with {@code schema}.
   *
   * @param rowFilter the row filter with each field named as the schema names it, {@code null} when none (or always
   *     true)
   * @param masks the masks of the fields the schema has, by field id
   * @param maskedIds the masked fields and every field nested under one: what no pushdown, statistic or
   *     partition value may reveal
   */
  record Bound(@Nullable Expression rowFilter, Map<Integer, MaskAction> masks, Set<Integer> maskedIds) {
  }

  /**
   * The restrictions for a read with {@code schema}: the row filter bound to it by field id, and the masks of the
   * fields it has, each checked by the spec's rules.
   *
   * @throws InvalidReadRestrictionsException when they cannot be enforced in full on that schema
   */
  Bound bind(String table, Schema schema) {
    Map<Integer, Integer> parents = TypeUtil.indexParents(schema.asStruct());
    Map<Integer, MaskAction> applying = new LinkedHashMap<>();
    this.masks.forEach((id, action) -> {
      Types.NestedField field = schema.findField(id);
      if (field == null) {
        // a column the schema read does not have is not read: its mask does not apply
        return;
      }
      Integer parent = parents.get(id);
      if (parent != null && schema.findType(parent) instanceof Types.MapType map && map.keyId() == id) {
        throw new InvalidReadRestrictionsException(table, id, "a projection on a map key, whose masked keys could "
            + "collide");
      }
      String refused = action.refusal(field.type(), field.isOptional());
      if (refused != null) {
        throw new InvalidReadRestrictionsException(table, id, refused);
      }
      for (Integer ancestor = parent; ancestor != null; ancestor = parents.get(ancestor)) {
        if (this.masks.containsKey(ancestor)) {
          throw new InvalidReadRestrictionsException(table, id, "a projection on a field nested under field "
              + ancestor + ", which has a projection of its own: the spec does not say how the two combine");
        }
      }
      applying.put(id, action);
    });
    return new Bound(rowFilter(table, schema), applying, Set.copyOf(maskedIds(schema, applying.keySet())));
  }

  /** The row filter bound to {@code schema}, or null; every predicate checked to bind, by the field it is on. */
  private @Nullable Expression rowFilter(String table, Schema schema) {
    JsonNode json = this.rowFilter;
    if (json == null) {
      return null;
    }
    Expression filter;
    try {
      filter = ExpressionJson.parse(json, schema, ExpressionJson.References.IDS, ROW_FILTER);
    }
    catch (ExpressionJson.InvalidExpressionException invalid) {
      throw new InvalidReadRestrictionsException(table, invalid.fieldId(), "the row filter cannot be applied: "
          + invalid.getMessage());
    }
    ExpressionVisitors.visit(filter, new ExpressionVisitors.ExpressionVisitor<@Nullable Void>() {
      @Override
      public <T> @Nullable Void predicate(UnboundPredicate<T> predicate) {
        try {
          Binder.bind(schema.asStruct(), predicate, true);
        }
        catch (RuntimeException unbindable) {
          // Iceberg's message may quote the literal: name the field only
          Types.NestedField field = schema.findField(predicate.ref().name());
          throw new InvalidReadRestrictionsException(table, field == null ? null : field.fieldId(),
              "the row filter cannot be applied: a predicate the field's type cannot take");
        }
        return null;
      }

      @Override
      public <T> @Nullable Void predicate(BoundPredicate<T> predicate) {
        return null;
      }
    });
    return filter.op() == Expression.Operation.TRUE ? null : filter;
  }

  /** {@code schema} without the defaults of the fields these mask, and of the fields under them. */
  Schema withoutMaskedDefaults(Schema schema) {
    return withoutDefaults(schema, maskedIds(schema, this.masks.keySet()));
  }

  /** The fields of {@code schema} among {@code masked}, and every field nested under one. */
  private static Set<Integer> maskedIds(Schema schema, Set<Integer> masked) {
    Set<Integer> ids = new HashSet<>();
    for (Integer id : masked) {
      Types.NestedField field = schema.findField(id);
      if (field != null) {
        ids.add(id);
        if (field.type().isNestedType()) {
          ids.addAll(TypeUtil.indexById(Types.StructType.of(field)).keySet());
        }
      }
    }
    return ids;
  }

  /**
   * The schema without the defaults of masked fields: a field's initial default is the raw value of every row
   * written before the field was added, and rows of a restricted table carry their schema.
   */
  static Schema withoutDefaults(Schema schema, Set<Integer> masked) {
    if (masked.isEmpty()) {
      return schema;
    }
    return new Schema(schema.schemaId(), withoutDefaults(schema.asStruct(), masked).fields(),
        schema.identifierFieldIds());
  }

  private static Types.StructType withoutDefaults(Types.StructType struct, Set<Integer> masked) {
    List<Types.NestedField> fields = new ArrayList<>(struct.fields().size());
    for (Types.NestedField field : struct.fields()) {
      Types.NestedField kept = field;
      if (field.type().isStructType()) {
        kept = Types.NestedField.from(kept).ofType(withoutDefaults(field.type().asStructType(), masked)).build();
      }
      if (masked.contains(field.fieldId()) && (field.initialDefault() != null || field.writeDefault() != null)) {
        kept = Types.NestedField.from(kept).withInitialDefault((Literal<?>) null).withWriteDefault((Literal<?>) null)
            .build();
      }
      fields.add(kept);
    }
    return Types.StructType.of(fields);
  }


  /** The masked fields and whether rows are filtered: never the filter, which messages and logs must not quote. */
  @Override
  public String toString() {
    if (isEmpty()) {
      return "ReadRestrictions[none]";
    }
    return "ReadRestrictions[" + (hasRowFilter() ? "row filter, " : "") + "masks " + new TreeMap<>(masks()) + "]";
  }
}
