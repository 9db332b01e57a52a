package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.Map;
import java.util.concurrent.Callable;

import io.icebergscan.planning.ClassPathWithout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A plain start of an application that reads with the iceberg module logs nothing of Iceberg's format registry at
 * INFO. The registry logs once per JVM, when its class initializes: each start runs in a class loader of its own over
 * this class path, where Iceberg's classes (and Logback) are loaded afresh.
 */
@ExtendWith(OutputCaptureExtension.class)
class IcebergLoggingDefaultsTests {

  private static final String NOISE = "Unable to call register for";

  @Test
  void aPlainStartLogsNoneOfTheFormatRegistrysMissingEngines(CapturedOutput output) throws Exception {
    assertThat(ClassPathWithout.run(path -> false, Quiet.class).outcome()).isEqualTo("started");
    assertThat(output).doesNotContain(NOISE).doesNotContain("FormatModelRegistry");
  }

  /** The default is beneath the application's own settings: asked for, the registry's lines are there. */
  @Test
  void theApplicationsOwnLevelWins(CapturedOutput output) throws Exception {
    assertThat(ClassPathWithout.run(path -> false, Verbose.class).outcome()).isEqualTo("started");
    assertThat(output).contains(NOISE);
  }

  /** Starts the application, then initializes Iceberg's format registry, as the first read of a file does. */
  abstract static class Start implements Callable<String> {

    abstract Map<String, Object> properties();

    @Override
    public String call() throws ClassNotFoundException {
      SpringApplication application = new SpringApplication(Application.class);
      application.setWebApplicationType(WebApplicationType.NONE);
      application.setDefaultProperties(properties());
      try (ConfigurableApplicationContext context = application.run()) {
        Class.forName("org.apache.iceberg.formats.FormatModelRegistry", true, getClass().getClassLoader());
        return context.isActive() ? "started" : "not active";
      }
    }
  }

  public static final class Quiet extends Start {

    @Override
    Map<String, Object> properties() {
      return Map.of("iceberg.rest.scan-planning.enabled", "false");
    }
  }

  public static final class Verbose extends Start {

    @Override
    Map<String, Object> properties() {
      return Map.of("iceberg.rest.scan-planning.enabled", "false", IcebergLoggingDefaults.REGISTRY_LEVEL, "info");
    }
  }

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  static class Application {
  }
}
