package io.icebergscan.planning.iceberg;

import java.util.Objects;

import io.icebergscan.planning.RowFilter;
import io.icebergscan.planning.ScanRequest;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;

/**
 * Apache Iceberg {@link Expression}s as {@link ScanRequest} filters, for applications that have Iceberg's types
 * (those without build a {@link RowFilter} directly):
 *
 * <pre>{@code
 * ScanRequest request = ScanRequest.builder()
 *     .filter(IcebergFilters.toRowFilter(Expressions.and(Expressions.greaterThan("id", 5L),
 *         Expressions.equal("day", "2026-11-04"))))
 *     .build();
 * }</pre>
 *
 * <p>Unbound and bound expressions both work: a bound one is written with its column names and its literals in
 * their type's form (a date as {@code "2026-11-04"}). {@link IcebergScanPlanner#plan} checks the filter against
 * the table's schema before anything is sent.
 */
public final class IcebergFilters {

  private IcebergFilters() {
  }

  /**
   * The expression as a row filter, sent in the JSON form of the REST spec that Apache Iceberg's servers, 1.11 and
   * 1.12 among them, parse: written by Iceberg's own {@link ExpressionParser}.
   */
  public static RowFilter toRowFilter(Expression filter) {
    return RowFilter.ofJson(ExpressionParser.toJson(Objects.requireNonNull(filter, "filter")));
  }
}
