package io.icebergscan.planning.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A credential property whose {@code ${…}} placeholder nothing resolved would reach the catalog as it is (Spring
 * Boot leaves such placeholders in place): start-up fails instead, and Spring Boot's report names the property and
 * the fix, and shows the value only when it is nothing but the placeholder.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnresolvedPlaceholderFailureAnalyzerTests {

  /** A variable no environment sets. */
  private static final String UNSET = "ICEBERG_SCAN_PLANNING_TEST_UNSET_7F3A";

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "iceberg.rest.token                | iceberg.rest.warehouse            | analytics",
      "iceberg.rest.oauth2.client-id     | iceberg.rest.oauth2.client-secret | s3cr3t",
      "iceberg.rest.oauth2.client-secret | iceberg.rest.oauth2.client-id     | planner",
      "iceberg.rest.headers.X-Api-Key    | iceberg.rest.headers.X-Tenant     | acme" })
  void aBarePlaceholderFailsStartUpNamingThePropertyThePlaceholderAndTheFix(String property, String beside,
      String besideValue, CapturedOutput output) {
    assertThatThrownBy(() -> run(Map.of(property, "${" + UNSET + "}", beside, besideValue))).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("The credential property '" + property + "' is '${" + UNSET + "}', a placeholder that nothing "
            + "resolved")
        .contains("Set " + UNSET + " (an environment variable, or any property), or give the placeholder a "
            + "default: ${" + UNSET + ":} leaves '" + property + "' empty");
  }

  /** Beside a placeholder, the value may be (part of) a secret: the report names the property, not the value. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "iceberg.rest.token",
      "iceberg.rest.headers.X-Api-Key" })
  void aPlaceholderInsideAValueFailsStartUpWithoutShowingTheValue(String property, CapturedOutput output) {
    assertThatThrownBy(() -> run(Map.of(property, "sk-live-4242-${" + UNSET + "}"))).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("The credential property '" + property + "' holds a placeholder that nothing resolved")
        .doesNotContain("sk-live-4242").doesNotContain(UNSET);
  }

  private static void run(Map<String, Object> properties) {
    SpringApplication application = new SpringApplication(PlannerApplication.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    Map<String, Object> all = new LinkedHashMap<>(properties);
    // never contacted: the planner is only built
    all.put("iceberg.rest.uri", "http://127.0.0.1:9/catalog");
    application.setDefaultProperties(all);
    application.run().close();
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ScanPlanningAutoConfiguration.class)
  static class PlannerApplication {
  }
}
