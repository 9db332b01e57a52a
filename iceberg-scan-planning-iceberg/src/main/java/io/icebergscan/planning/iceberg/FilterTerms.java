package io.icebergscan.planning.iceberg;

import org.apache.iceberg.Schema;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.BoundPredicate;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionVisitors;
import org.apache.iceberg.expressions.UnboundPredicate;
import org.jspecify.annotations.Nullable;

/** Finds which column of a filter a binding failure is about, for an error that names it. */
final class FilterTerms {

  private FilterTerms() {
  }

  /** The column of the first predicate of {@code filter} that does not bind, or {@code "?"}. */
  static String failing(Expression filter, Schema schema, boolean caseSensitive) {
    String[] failing = { null };
    ExpressionVisitors.visit(filter, new ExpressionVisitors.ExpressionVisitor<@Nullable Void>() {
      @Override
      public <T> @Nullable Void predicate(UnboundPredicate<T> predicate) {
        if (failing[0] == null) {
          try {
            Binder.bind(schema.asStruct(), predicate, caseSensitive);
          }
          catch (RuntimeException invalid) {
            failing[0] = predicate.ref().name();
          }
        }
        return null;
      }

      @Override
      public <T> @Nullable Void predicate(BoundPredicate<T> predicate) {
        return null;
      }
    });
    return failing[0] == null ? "?" : failing[0];
  }
}
