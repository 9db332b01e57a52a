package io.icebergscan.planning.exceptions;

/**
 * A way of reading that would hand the caller what a catalog's read restrictions keep from it is refused for a
 * restricted table: its files, their statistics, paths and partition values, the credentials that open them, the
 * table's raw metadata, or an engine's own reader, which would not enforce the restrictions. The table's rows are
 * read with the restrictions enforced instead.
 */
public class RestrictedReadException extends ScanPlanningException {

  private final String table;
  private final String refused;

  /**
   * @param table the table, as {@code namespace.table}
   * @param refused what was refused, e.g. {@code "IcebergScanPlan.tasks()"}
   * @param why why it would hand out what the restrictions keep, naming no value
   */
  public RestrictedReadException(String table, String refused, String why) {
    super(refused + " is refused for " + table + ", whose reads the catalog restricts: " + why);
    this.table = table;
    this.refused = refused;
  }

  /** The table, as {@code namespace.table}. */
  public String table() {
    return this.table;
  }

  /** What was refused, e.g. {@code "IcebergScanPlan.tasks()"}. */
  public String refused() {
    return this.refused;
  }
}
