package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/**
 * The read restrictions a catalog sent with a table cannot be enforced in full: an action or expression this reader
 * does not know, an action on a type it does not apply to, two projections of one field, a row filter that does not
 * fit the schema read, and the spec's other fail-closed rules. Nothing of the table is read, and no plan is asked
 * for: the REST spec has a reader that cannot apply a restriction fail rather than return raw, partial or empty rows.
 *
 * <p>The message names the table, the field and the rule, never a value nor the row filter.
 */
public class InvalidReadRestrictionsException extends ScanPlanningException {

  private final String table;
  private final @Nullable Integer fieldId;
  private final String rule;

  /**
   * @param table the table, as {@code namespace.table}
   * @param fieldId the field the broken rule is about, or {@code null} when it is about no one field
   * @param rule the rule broken, naming no value
   */
  public InvalidReadRestrictionsException(String table, @Nullable Integer fieldId, String rule) {
    super("the read restrictions of " + table + " cannot be enforced, so it is not read: "
        + (fieldId == null ? "" : "field " + fieldId + ": ") + rule);
    this.table = table;
    this.fieldId = fieldId;
    this.rule = rule;
  }

  /** The table, as {@code namespace.table}. */
  public String table() {
    return this.table;
  }

  /** The field the broken rule is about, or {@code null}. */
  public @Nullable Integer fieldId() {
    return this.fieldId;
  }

  /** The rule broken. */
  public String rule() {
    return this.rule;
  }
}
