package io.icebergscan.planning.autoconfigure;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Which keys the credentials sanitizer masks, in the forms configprops and env name them. */
class ScanPlanningSanitizingAutoConfigurationTests {

  private static Object sanitized(String key, Object value) {
    return ScanPlanningSanitizingAutoConfiguration.sanitize(new SanitizableData(null, key, value)).getValue();
  }

  @ParameterizedTest
  @ValueSource(strings = { "iceberg.rest.token", "iceberg.rest.oauth2.client-secret", "iceberg.rest.oauth2.clientSecret",
      "iceberg.rest.headers.X-Api-Key", "iceberg.rest.headers[X-Api-Key]", "ICEBERG_REST_OAUTH2_CLIENTSECRET",
      "iceberg.rest.scan-planning.iceberg.file-io.s3.secret-access-key",
      "iceberg.rest.scan-planning.iceberg.file-io[s3.access-key-id]", "ICEBERG_REST_SCANPLANNING_ICEBERG_FILEIO_X",
      "iceberg.rest.caller.token-exchange.client-secret", "iceberg.rest.caller.tokenExchange.clientSecret",
      "ICEBERG_REST_CALLER_TOKENEXCHANGE_CLIENTSECRET" })
  void credentialsAreMasked(String key) {
    assertThat(sanitized(key, "secret-value")).isEqualTo(SanitizableData.SANITIZED_VALUE);
  }

  @Test
  void userInfoInTheUrisIsMaskedAndTheRestShown() {
    assertThat(sanitized("iceberg.rest.uri", "https://user:pw@catalog.example.com/api"))
        .isEqualTo("https://******@catalog.example.com/api");
    assertThat(sanitized("iceberg.rest.oauth2.token-uri", "https://idp.example.com/token"))
        .isEqualTo("https://idp.example.com/token");
    assertThat(sanitized("iceberg.rest.caller.token-exchange.token-uri", "https://user:pw@idp.example.com/token"))
        .isEqualTo("https://******@idp.example.com/token");
  }

  @Test
  void otherSettingsAndOtherPrefixesAreLeftAlone() {
    assertThat(sanitized("iceberg.rest.oauth2.client-id", "planner")).isEqualTo("planner");
    assertThat(sanitized("iceberg.rest.caller.token-exchange.client-id", "exchanger")).isEqualTo("exchanger");
    assertThat(sanitized("iceberg.rest.identity", "caller")).isEqualTo("caller");
    assertThat(sanitized("iceberg.rest.scan-planning.max-concurrency", 8)).isEqualTo(8);
    assertThat(sanitized("other.token", "x")).isEqualTo("x");
  }

  @Test
  void theSanitizerIsABean() {
    new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(ScanPlanningSanitizingAutoConfiguration.class))
        .run(context -> assertThat(context).hasSingleBean(SanitizingFunction.class));
  }
}
