package io.icebergscan.planning.iceberg;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * How a scan's rows are read, decided once per scan: the one place that says which columns are read, what is pushed
 * down, what is checked on raw values and what on masked ones, and which masks apply. The row side
 * ({@link TaskReader}) only carries it out, per row, in the order the REST spec's read restrictions require:
 *
 * <ol>
 *   <li>decode the columns {@link #read()} names, with {@link #pushed()} pruning Parquet row groups, and apply the
 *       deletes, on raw values;</li>
 *   <li>{@link #rawCheck()}: the catalog's required row filter and the conjuncts of the scan's filter that touch no
 *       masked field, on raw values;</li>
 *   <li>the masks, by field id, on every column that is returned or that a later check reads;</li>
 *   <li>{@link #maskedCheck()}: the conjuncts of the scan's filter that touch a masked field (an OR of masked and
 *       unmasked columns among them), on the masked values, so that a filter on a masked column reveals nothing the
 *       masked values do not;</li>
 *   <li>the columns {@link #output()} names, by position.</li>
 * </ol>
 *
 * Every predicate is the spec's ({@link SpecPredicates}): the filter is normalized once, split into conjuncts, and
 * each conjunct lands in exactly one check; none is dropped. The same normalized conjuncts, less those on masked
 * fields and those Iceberg evaluates otherwise ({@link SpecPredicates#icebergEvaluatesAlike}), are what the catalog is sent and Parquet prunes with: no use of the raw values of a
 * masked field reaches either. A task's own residual is the catalog's, and advisory: every row is checked against the
 * whole filter here.
 */
final class ReadShape {

  private final String table;
  private final Schema output;
  private final Schema read;
  private final RecordProjection toOutput;
  private final Expression pushed;
  private final @Nullable Predicate<StructLike> rawCheck;
  private final @Nullable Predicate<StructLike> maskedCheck;
  private final Map<Integer, MaskAction> masks;
  private final Set<Integer> maskedIds;
  private final boolean restricted;

  private ReadShape(String table, Schema output, Schema read, RecordProjection toOutput, Expression pushed,
      @Nullable Predicate<StructLike> rawCheck, @Nullable Predicate<StructLike> maskedCheck,
      Map<Integer, MaskAction> masks, Set<Integer> maskedIds, boolean restricted) {
    this.table = table;
    this.output = output;
    this.read = read;
    this.toOutput = toOutput;
    this.pushed = pushed;
    this.rawCheck = rawCheck;
    this.maskedCheck = maskedCheck;
    this.masks = masks;
    this.maskedIds = maskedIds;
    this.restricted = restricted;
  }

  /**
   * @param schema the schema the scan reads with
   * @param projection the columns of each row (data columns, then the metadata columns selected)
   * @param filter the scan's filter, unbound, checked to bind to {@code schema}
   * @param restrictions the table's read restrictions bound to {@code schema}
   * @param restricted whether the table's reads are restricted at all (a time travel may bind none of them)
   */
  static ReadShape of(String table, Schema schema, Schema projection, Expression filter, boolean caseSensitive,
      ReadRestrictions.Bound restrictions, boolean restricted) {
    Types.StructType struct = schema.asStruct();
    Set<Integer> masked = restrictions.maskedIds();
    List<Expression> raw = new ArrayList<>();
    List<Expression> afterMasks = new ArrayList<>();
    Expression rowFilter = restrictions.rowFilter();
    if (rowFilter != null) {
      // the row filter's raw values are used besides the rows only to prune: the catalog and Parquet prune with it
      raw.addAll(SpecPredicates.conjuncts(SpecPredicates.normalize(rowFilter, struct, true)));
    }
    for (Expression conjunct : SpecPredicates.conjuncts(SpecPredicates.normalize(filter, struct, caseSensitive))) {
      (touches(conjunct, struct, masked) ? afterMasks : raw).add(conjunct);
    }
    List<Expression> pushable = raw.stream()
        .filter(conjunct -> SpecPredicates.icebergEvaluatesAlike(conjunct, struct)).toList();
    Expression rawFilter = SpecPredicates.and(raw);
    Expression maskedFilter = SpecPredicates.and(afterMasks);

    List<Types.NestedField> metadataColumns = projection.columns().stream()
        .filter(column -> MetadataColumns.isMetadataColumn(column.fieldId())).toList();
    Set<Integer> returned = new HashSet<>(TypeUtil.getProjectedIds(projection));
    Set<Integer> maskedFilterIds = SpecPredicates.fieldIds(maskedFilter, struct);
    Set<Integer> readIds = new HashSet<>(returned);
    readIds.addAll(SpecPredicates.fieldIds(rawFilter, struct));
    readIds.addAll(maskedFilterIds);
    Schema read = withMetadata(TypeUtil.select(schema, readIds), metadataColumns);
    // masks apply to the columns that are read for what follows them: returned, or checked after the masks
    Set<Integer> maskedReadIds = new HashSet<>(returned);
    maskedReadIds.addAll(maskedFilterIds);
    Set<Integer> afterMaskColumns = TypeUtil.getProjectedIds(TypeUtil.select(schema, maskedReadIds));
    Map<Integer, MaskAction> masks = new LinkedHashMap<>();
    restrictions.masks().forEach((id, action) -> {
      if (afterMaskColumns.contains(id)) {
        masks.put(id, action);
      }
    });
    Types.StructType readStruct = read.asStruct();
    Schema output = restricted ? ReadRestrictions.withoutDefaults(projection, masked) : projection;
    return new ReadShape(table, output, read, RecordProjection.of(readStruct, output.asStruct()),
        SpecPredicates.and(pushable),
        rawFilter.op() == Expression.Operation.TRUE ? null : SpecPredicates.compile(rawFilter, readStruct),
        maskedFilter.op() == Expression.Operation.TRUE ? null : SpecPredicates.compile(maskedFilter, readStruct),
        Map.copyOf(masks), masked, restricted);
  }

  /** Whether a conjunct reads a masked field, or a field nested under one. */
  private static boolean touches(Expression conjunct, Types.StructType struct, Set<Integer> masked) {
    if (masked.isEmpty()) {
      return false;
    }
    for (Integer id : SpecPredicates.fieldIds(conjunct, struct)) {
      if (masked.contains(id)) {
        return true;
      }
    }
    return false;
  }

  private static Schema withMetadata(Schema data, List<Types.NestedField> metadataColumns) {
    return metadataColumns.isEmpty() ? data : TypeUtil.join(data, new Schema(metadataColumns));
  }

  /** The table, for messages. */
  String table() {
    return this.table;
  }

  /** The columns of every row handed over. */
  Schema output() {
    return this.output;
  }

  /** The columns decoded: the output's, and those the checks read, before any a task's deletes need. */
  Schema read() {
    return this.read;
  }

  /** Rows of {@link #read()} cut to the {@link #output()}, by position: for a task whose rows are not the output's. */
  RecordProjection toOutput() {
    return this.toOutput;
  }

  /**
   * The filter Parquet's row groups are pruned with, and the catalog is sent: the spec's normalization of the
   * required row filter and of the scan's conjuncts on unmasked fields, less those Iceberg would evaluate otherwise;
   * {@code true} for none. Unbound, each column named exactly.
   */
  Expression pushed() {
    return this.pushed;
  }

  /** The check of raw rows of {@link #read()} (internal values), or {@code null} when every row passes. */
  @Nullable Predicate<StructLike> rawCheck() {
    return this.rawCheck;
  }

  /** The check of masked rows of {@link #read()} (internal values), or {@code null} when every row passes. */
  @Nullable Predicate<StructLike> maskedCheck() {
    return this.maskedCheck;
  }

  /** The masks applied to the rows, by field id: those of the fields returned or checked after the masks. */
  Map<Integer, MaskAction> masks() {
    return this.masks;
  }

  /** The masked fields and every field under one, which no statistic handed out may describe. */
  Set<Integer> maskedIds() {
    return this.maskedIds;
  }

  /** Whether the table's reads are restricted: some doors refuse, and failures withhold the files they are about. */
  boolean restricted() {
    return this.restricted;
  }

  /** Whether a mask needs a query salt ({@code sha-256-query-local}). */
  boolean needsSalt() {
    return this.masks.containsValue(MaskAction.SHA_256_QUERY_LOCAL);
  }
}
