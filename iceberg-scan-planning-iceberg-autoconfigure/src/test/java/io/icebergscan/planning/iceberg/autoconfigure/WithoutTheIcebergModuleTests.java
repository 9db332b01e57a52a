package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

import io.icebergscan.planning.ClassPathWithout;
import io.icebergscan.planning.ScanPlanner;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The starter brings this module to every application, and most of them plan without reading: there is no
 * iceberg-scan-planning-iceberg and no Apache Iceberg on their class path. Such an application, auto-configured from
 * every {@code AutoConfiguration.imports} it has, starts with its planner and without an {@code IcebergScanPlanner}.
 */
class WithoutTheIcebergModuleTests {

  @Test
  void anApplicationWithoutTheIcebergModuleStartsWithItsPlannerAndNoIcebergReading() throws Exception {
    ClassPathWithout.Run run = ClassPathWithout.run(path -> path.contains("/org/apache/iceberg/")
        || path.matches(".*/iceberg-scan-planning-(iceberg|test)(/target/classes/?|-[0-9][^/]*\\.jar)$"), Probe.class);
    assertThat(run.leftOut()).as("the iceberg module, the test module and Apache Iceberg")
        .anyMatch(name -> name.startsWith("iceberg-core-"))
        .anyMatch(name -> name.equals("classes") || name.startsWith("iceberg-scan-planning-iceberg-0"));
    assertThat(run.outcome()).isEqualTo(List.of("no Apache Iceberg", "no iceberg module", "planners [icebergScanPlanner]",
        "no icebergReadingScanPlanner", "no icebergScanPlanningReadExecutor"));
  }

  /** Runs in the class loader without them. Only JDK types cross the loader boundary. */
  public static final class Probe implements Callable<List<String>> {

    @Override
    public List<String> call() {
      ClassLoader loader = Probe.class.getClassLoader();
      SpringApplication application = new SpringApplication(Application.class);
      application.setWebApplicationType(WebApplicationType.NONE);
      application.setDefaultProperties(Map.of("iceberg.rest.uri", "http://localhost:9/catalog"));
      try (ConfigurableApplicationContext context = application.run()) {
        return List.of(
            ClassUtils.isPresent("org.apache.iceberg.Table", loader) ? "Apache Iceberg is there" : "no Apache Iceberg",
            ClassUtils.isPresent("io.icebergscan.planning.iceberg.IcebergScanPlanner", loader)
                ? "the iceberg module is there" : "no iceberg module",
            "planners " + List.of(context.getBeanNamesForType(ScanPlanner.class)),
            context.containsBean("icebergReadingScanPlanner") ? "an icebergReadingScanPlanner"
                : "no icebergReadingScanPlanner",
            context.containsBean(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME)
                ? "an icebergScanPlanningReadExecutor" : "no icebergScanPlanningReadExecutor");
      }
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Application {
  }
}
