package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;

/**
 * Explains a missing {@code IcebergScanPlanner}: it is auto-configured on top of the one {@code ScanPlanner}, so
 * almost always there is no planner because {@code iceberg.rest.uri} is unset, else there are several and none is
 * primary. Ordered first, so that Spring Boot's generic analysis of a missing bean does not win by coming earlier on
 * the classpath. The type is matched by name: this module runs without the iceberg module too, where naming the class
 * would fail to load it.
 */
final class NoIcebergScanPlannerFailureAnalyzer extends AbstractFailureAnalyzer<NoSuchBeanDefinitionException>
    implements Ordered {

  static final String ICEBERG_SCAN_PLANNER = "io.icebergscan.planning.iceberg.IcebergScanPlanner";

  private final @Nullable BeanFactory beanFactory;

  NoIcebergScanPlannerFailureAnalyzer(@Nullable BeanFactory beanFactory) {
    this.beanFactory = beanFactory;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }

  @Override
  protected @Nullable FailureAnalysis analyze(Throwable rootFailure, NoSuchBeanDefinitionException cause) {
    if (cause.getBeanType() == null || !ICEBERG_SCAN_PLANNER.equals(cause.getBeanType().getName())) {
      return null;
    }
    List<String> planners = planners();
    if (planners.size() > 1) {
      return new FailureAnalysis("An IcebergScanPlanner was required, but none was configured: it is "
          + "auto-configured on top of a single ScanPlanner, and there are " + planners.size() + " ScanPlanner beans "
          + planners + ", none of them primary.",
          "Mark the ScanPlanner whose plans the IcebergScanPlanner reads @Primary, or define an IcebergScanPlanner "
              + "bean of your own: IcebergScanPlanner.builder(planner).build().",
          cause);
    }
    return new FailureAnalysis("An IcebergScanPlanner was required, but none was configured: it is auto-configured "
        + "on top of the application's ScanPlanner, and the ScanPlanner only when 'iceberg.rest.uri' is set (or an "
        + "IcebergRestConnectionDetails bean names the catalog) and 'iceberg.rest.scan-planning.enabled' is not false.",
        "Set 'iceberg.rest.uri' to your Iceberg REST catalog's base URI (the part before /v1/...), for example "
            + "in application.yml:\n\n    iceberg:\n      rest:\n        uri: https://catalog.example.com/api/catalog"
            + "\n\nor define an IcebergScanPlanner bean of your own.",
        cause);
  }

  /** The names of the ScanPlanner beans, none when they cannot be told. */
  private List<String> planners() {
    return this.beanFactory instanceof ListableBeanFactory beans
        ? List.of(beans.getBeanNamesForType(ScanPlanner.class, true, false))
        : List.of();
  }
}
