package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.ScanPlanner;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;

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
