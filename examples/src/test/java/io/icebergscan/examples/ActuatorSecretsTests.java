package io.icebergscan.examples;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.web.reactive.function.client.WebClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The example authenticating with OAuth2 client credentials at Apache Iceberg's own token endpoint:
 * the client secret and header values never show in the actuator endpoints, even set to show values,
 * nor in the logs.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
    "example.demo.files=40", "example.demo.latency-ms=1", "example.warm-up-plans=1",
    "iceberg.rest.oauth2.client-id=example-client",
    "iceberg.rest.oauth2.client-secret=" + ActuatorSecretsTests.CLIENT_SECRET,
    "iceberg.rest.oauth2.client-authentication-method=client_secret_post",
    "iceberg.rest.headers.X-Api-Key=" + ActuatorSecretsTests.HEADER_SECRET,
    "management.endpoints.web.exposure.include=health,configprops,env",
    "management.endpoint.configprops.show-values=always",
    "management.endpoint.env.show-values=always" })
@ExtendWith(OutputCaptureExtension.class)
class ActuatorSecretsTests {

  static final String CLIENT_SECRET = "example-secret-4c1d";
  static final String HEADER_SECRET = "example-api-key-8e2b";

  @Value("${local.server.port}")
  private int port;

  private String get(String path) {
    return WebClient.create("http://localhost:" + this.port).get().uri(path)
        .exchangeToMono(response -> response.bodyToMono(String.class)).block(Duration.ofSeconds(30));
  }

  @Test
  void theDemoPlanRanWithATokenFromIcebergsEndpoint(CapturedOutput output) {
    assertThat(output).contains("Scan plan for demo.events").contains("file scan tasks      40");
  }

  @Test
  void configpropsShowsTheSettingsButNotTheSecrets() {
    String body = get("/actuator/configprops/iceberg.rest");
    JsonNode properties = JsonMapper.builder().build().readTree(body).findParents("prefix").stream()
        .filter(bean -> bean.get("prefix").asString().equals("iceberg.rest")).findFirst().orElseThrow()
        .get("properties");
    assertThat(properties.path("oauth2").path("clientId").asString()).as("values are shown").isEqualTo("example-client");
    assertThat(properties.path("oauth2").path("clientSecret").asString()).isEqualTo("******");
    assertThat(properties.path("headers").path("X-Api-Key").asString()).isEqualTo("******");
    assertThat(body).doesNotContain(CLIENT_SECRET).doesNotContain(HEADER_SECRET);
  }

  @Test
  void envShowsNeitherTheSecretNorTheHeaderValue() {
    assertThat(get("/actuator/env")).contains("iceberg.rest.oauth2.client-id").contains("example-client")
        .doesNotContain(CLIENT_SECRET).doesNotContain(HEADER_SECRET);
    assertThat(get("/actuator/env/iceberg.rest.oauth2.client-secret")).contains("******").doesNotContain(CLIENT_SECRET);
  }

  @Test
  void healthDetailsAndLogsHoldNoSecret(CapturedOutput output) {
    assertThat(get("/actuator/health")).contains("icebergScanPlanning").doesNotContain(CLIENT_SECRET)
        .doesNotContain(HEADER_SECRET);
    assertThat(output.getAll()).doesNotContain(CLIENT_SECRET).doesNotContain(HEADER_SECRET);
  }
}
