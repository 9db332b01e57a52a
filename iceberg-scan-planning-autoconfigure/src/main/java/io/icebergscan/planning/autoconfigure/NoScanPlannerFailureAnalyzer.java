package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.ScanPlanner;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains a missing {@link ScanPlanner}: almost always an unset {@code iceberg.rest.uri}. Ordered first, so
 * that Spring Boot's generic analysis of a missing bean does not win by coming earlier on the classpath.
 */
final class NoScanPlannerFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
    implements Ordered {

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
    if (cause.getBeanType() == null || !ScanPlanner.class.isAssignableFrom(cause.getBeanType())) {
      return null;
    }
    return new FailureAnalysis(
        "A ScanPlanner was required, but none was configured: the ScanPlanner is auto-configured only when "
            + "'iceberg.rest.uri' is set (or an IcebergRestConnectionDetails bean names the catalog) and "
            + "'iceberg.rest.scan-planning.enabled' is not false.",
        "Set 'iceberg.rest.uri' to your Iceberg REST catalog's base URI (the part before /v1/...), for example "
            + "in application.yml:\n\n    iceberg:\n      rest:\n        uri: https://catalog.example.com/api/catalog"
            + "\n\nor define a ScanPlanner bean of your own.",
        cause);
  }
}
