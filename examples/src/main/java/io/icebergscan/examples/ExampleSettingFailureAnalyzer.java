package io.icebergscan.examples;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a setting of the example that does not apply as Spring Boot reports a failed start-up: what is wrong with
 * which setting, and what to do. Registered in {@code META-INF/spring.factories}.
 */
final class ExampleSettingFailureAnalyzer extends AbstractFailureAnalyzer<ExampleSettingException> {

  @Override
  protected FailureAnalysis analyze(Throwable rootFailure, ExampleSettingException cause) {
    return new FailureAnalysis(cause.getMessage(), cause.action(), cause);
  }
}
