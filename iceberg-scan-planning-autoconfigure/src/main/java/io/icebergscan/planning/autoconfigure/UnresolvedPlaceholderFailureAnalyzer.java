package io.icebergscan.planning.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains an {@link UnresolvedPlaceholderException}: which credential property, and how to set it or leave it
 * empty. Ordered first, so that no analysis of the failures it is wrapped in (a bean or a binding that failed) can
 * come before it and show the value.
 */
final class UnresolvedPlaceholderFailureAnalyzer extends AbstractFailureAnalyzer<UnresolvedPlaceholderException>
    implements Ordered {

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, UnresolvedPlaceholderException cause) {
    String property = cause.property();
    String placeholder = cause.placeholder();
    if (placeholder == null) {
      return new FailureAnalysis("The credential property '" + property + "' holds a placeholder that nothing "
          + "resolved (its value is not shown: it may be a secret). It would be sent as it is.",
          "Set what the placeholders in '" + property + "' name (environment variables, or any properties), or give "
              + "each a default, such as ${NAME:}.",
          cause);
    }
    String name = placeholder.substring(2, placeholder.length() - 1);
    return new FailureAnalysis("The credential property '" + property + "' is '" + placeholder + "', a placeholder "
        + "that nothing resolved. It would be sent as it is.",
        "Set " + name + " (an environment variable, or any property), or give the placeholder a default: ${" + name
            + ":} leaves '" + property + "' empty.",
        cause);
  }
}
