package io.icebergscan.planning.model;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** An endpoint is a method and a path template, read and written as the spec and {@code GET /v1/config} write it. */
class EndpointTest {

  @Test
  void isWrittenAsTheSpecWritesIt() {
    assertThat(Endpoint.SUBMIT_PLAN).hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan");
    assertThat(Endpoint.FETCH_PLAN)
        .hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}");
    assertThat(Endpoint.CANCEL_PLAN)
        .hasToString("DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}");
    assertThat(Endpoint.FETCH_PLAN_TASKS).hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks");
    assertThat(Endpoint.LOAD_TABLE).hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}");
    assertThat(Endpoint.TABLE_EXISTS).hasToString("HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}");
    assertThat(Endpoint.LOAD_CREDENTIALS)
        .hasToString("GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials");
    assertThat(Endpoint.REPORT_METRICS).hasToString("POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics");
  }

  @Test
  void isReadAsACatalogListsIt() {
    assertThat(Endpoint.parse("  post\t /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan "))
        .isEqualTo(Endpoint.SUBMIT_PLAN);
    assertThat(Endpoint.parse(Endpoint.LOAD_CREDENTIALS.toString())).isEqualTo(Endpoint.LOAD_CREDENTIALS);
  }

  @ParameterizedTest
  @ValueSource(strings = { "", "   ", "GET", "/v1/config", "GET v1/config", "GET /v1/a /v1/b" })
  void textThatIsNotAMethodAndAPathIsRefusedNamingIt(String text) {
    assertThatIllegalArgumentException().isThrownBy(() -> Endpoint.parse(text))
        .withMessageStartingWith("'" + text + "' is not an endpoint: expected \"<METHOD> <path>\"");
  }

  @Test
  void aMethodThatIsNotHttpsIsRefusedNamingIt() {
    assertThatIllegalArgumentException().isThrownBy(() -> Endpoint.parse("FETCH /v1/x"))
        .withMessageStartingWith("'FETCH' is not an HTTP method");
    assertThatIllegalArgumentException().isThrownBy(() -> new Endpoint("get", "/v1/x"))
        .withMessageContaining("upper case");
  }

  @Test
  void aPathThatIsNotATemplateIsRefusedNamingIt() {
    assertThatIllegalArgumentException().isThrownBy(() -> new Endpoint("GET", "v1/x"))
        .withMessageStartingWith("'v1/x' is not a path template");
    assertThatIllegalArgumentException().isThrownBy(() -> new Endpoint("GET", "/v1/a b"))
        .withMessageStartingWith("'/v1/a b' is not a path template");
  }
}
