package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.concurrent.atomic.AtomicReference;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.NoSuchBeanDefinitionException;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An application that injects an {@link IcebergScanPlanner} without a catalog fails to start saying which property
 * to set, as one that injects a {@link ScanPlanner} does, rather than with Spring Boot's "required a bean of type".
 */
@ExtendWith(OutputCaptureExtension.class)
class NoIcebergScanPlannerFailureAnalyzerTests {

  /** The bean factory of the context that failed to start, as Spring Boot hands it to failure analyzers. */
  private final AtomicReference<BeanFactory> beanFactory = new AtomicReference<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
          IcebergReadingAutoConfiguration.class))
      .withInitializer(context -> this.beanFactory.set(context.getBeanFactory()))
      .withUserConfiguration(IcebergPlannerUser.class);

  @Test
  void injectingAnIcebergPlannerWithoutACatalogUriNamesThePropertyAndTheFix() {
    this.runner.withPropertyValues("iceberg.rest.uri=").run(context -> {
      assertThat(context).hasFailed();
      FailureAnalysis analysis = analysis(context.getStartupFailure());
      assertThat(analysis.getDescription()).contains("An IcebergScanPlanner was required")
          .contains("only when 'iceberg.rest.uri' is set");
      assertThat(analysis.getAction()).contains("Set 'iceberg.rest.uri'")
          .contains("define an IcebergScanPlanner bean of your own");
    });
  }

  @Test
  void severalPlannersNoneOfThemPrimaryAreNamed() {
    this.runner.withBean("orders", ScanPlanner.class, () -> ScanPlanner.builder().uri("http://localhost:9/a").build())
        .withBean("events", ScanPlanner.class, () -> ScanPlanner.builder().uri("http://localhost:9/b").build())
        .run(context -> {
          assertThat(context).hasFailed();
          FailureAnalysis analysis = analysis(context.getStartupFailure());
          assertThat(analysis.getDescription()).contains("2 ScanPlanner beans [orders, events], none of them primary");
          assertThat(analysis.getAction()).contains("@Primary");
        });
  }

  @Test
  void aStartingApplicationReportsIt(CapturedOutput output) {
    SpringApplication application = new SpringApplication(NeedsAnIcebergPlanner.class);
    application.setWebApplicationType(WebApplicationType.NONE);

    assertThatThrownBy(application::run).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("An IcebergScanPlanner was required")
        .contains("Set 'iceberg.rest.uri'")
        .doesNotContain("required a bean of type");
  }

  /**
   * Registered (the application above), and first whatever the classpath order: Spring Boot's analyzers are not
   * ordered, so its analysis of a missing bean comes after any of the highest precedence.
   */
  @Test
  void itComesBeforeSpringBootsAnalysisOfAMissingBean() {
    assertThat(new NoIcebergScanPlannerFailureAnalyzer(null).getOrder()).isEqualTo(Ordered.HIGHEST_PRECEDENCE);
  }

  @Test
  void otherMissingBeansAreLeftToOtherAnalyzers() {
    NoIcebergScanPlannerFailureAnalyzer analyzer = new NoIcebergScanPlannerFailureAnalyzer(null);
    assertThat(analyzer.analyze(new NoSuchBeanDefinitionException(String.class))).isNull();
    assertThat(analyzer.analyze(new NoSuchBeanDefinitionException(ScanPlanner.class))).isNull();
  }

  @Test
  void theNameItMatchesIsTheIcebergPlanners() {
    assertThat(NoIcebergScanPlannerFailureAnalyzer.ICEBERG_SCAN_PLANNER).isEqualTo(IcebergScanPlanner.class.getName());
  }

  private FailureAnalysis analysis(Throwable failure) {
    FailureAnalysis analysis = new NoIcebergScanPlannerFailureAnalyzer(this.beanFactory.get()).analyze(failure);
    assertThat(analysis).as("an analysis of " + failure).isNotNull();
    return analysis;
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ ScanPlanningAutoConfiguration.class, IcebergReadingAutoConfiguration.class })
  @Import(IcebergPlannerUser.class)
  static class NeedsAnIcebergPlanner {
  }

  static class IcebergPlannerUser {

    IcebergPlannerUser(IcebergScanPlanner planner) {
    }
  }
}
