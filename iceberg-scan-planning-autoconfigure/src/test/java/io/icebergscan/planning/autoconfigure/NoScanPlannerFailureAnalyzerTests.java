package io.icebergscan.planning.autoconfigure;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.annotation.AnnotationAwareOrderComparator;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

@ExtendWith(OutputCaptureExtension.class)
class NoScanPlannerFailureAnalyzerTests {

  @Test
  void injectingAPlannerWithoutACatalogUriExplainsWhatToSet(CapturedOutput output) {
    SpringApplication application = new SpringApplication(NeedsAPlanner.class);
    application.setWebApplicationType(WebApplicationType.NONE);

    assertThatThrownBy(application::run).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("auto-configured only when 'iceberg.rest.uri' is set")
        .contains("Set 'iceberg.rest.uri'");
  }

  @Test
  void itComesBeforeSpringBootsAnalysisOfAMissingBeanWhateverTheClasspathOrder() {
    List<FailureAnalyzer> analyzers = new ArrayList<>(SpringFactoriesLoader.forDefaultResourceLocation()
        .load(FailureAnalyzer.class, ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
            .and(Environment.class, new StandardEnvironment()), FailureHandler.logging(LogFactory.getLog(getClass()))));
    // in a packaged application Spring Boot's jars may come first: reverse what this classpath gives
    Collections.reverse(analyzers);
    AnnotationAwareOrderComparator.sort(analyzers);

    List<String> names = analyzers.stream().map(analyzer -> analyzer.getClass().getSimpleName()).toList();
    assertThat(names).contains("NoSuchBeanDefinitionFailureAnalyzer");
    // both of this module's analyzers are ordered first: neither may be preceded by a generic analysis
    assertThat(names.subList(0, 2)).containsExactlyInAnyOrder("NoScanPlannerFailureAnalyzer",
        "UnresolvedPlaceholderFailureAnalyzer");
  }

  @Test
  void otherMissingBeansAreLeftToOtherAnalyzers() {
    assertThat(new NoScanPlannerFailureAnalyzer().analyze(
        new org.springframework.beans.factory.NoSuchBeanDefinitionException(String.class))).isNull();
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ScanPlanningAutoConfiguration.class)
  @Import(PlannerUser.class)
  static class NeedsAPlanner {
  }

  static class PlannerUser {

    PlannerUser(ScanPlanner planner) {
    }
  }
}
