package io.icebergscan.planning.autoconfigure;

import io.icebergscan.planning.internal.Redaction;
import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.context.annotation.Bean;

/**
 * Keeps the catalog's credentials out of {@code /actuator/configprops} and {@code /actuator/env} even
 * when they are set to show values: the token, the OAuth2 client secrets (the application's own and the one of the
 * callers' token exchange), every static header value
 * (they carry API keys), every FileIO property of the iceberg module (they carry storage keys) and the user
 * info of the catalog URI and of the token endpoints.
 */
@AutoConfiguration
@ConditionalOnClass(SanitizingFunction.class)
public final class ScanPlanningSanitizingAutoConfiguration {

  @Bean
  SanitizingFunction icebergRestCredentialsSanitizer() {
    return ScanPlanningSanitizingAutoConfiguration::sanitize;
  }

  static SanitizableData sanitize(SanitizableData data) {
    // one form for iceberg.rest.oauth2.client-secret (env), clientSecret (configprops) and
    // ICEBERG_REST_OAUTH2_CLIENTSECRET (environment variables): icebergrestoauth2clientsecret
    String key = data.getLowerCaseKey().replaceAll("[-_.\\[\\]]", "");
    if (!key.startsWith("icebergrest") || data.getValue() == null) {
      return data;
    }
    if (key.equals("icebergresttoken") || key.equals("icebergrestoauth2clientsecret")
        || key.equals("icebergrestcallertokenexchangeclientsecret")
        || key.startsWith("icebergrestheaders") || key.startsWith("icebergrestscanplanningicebergfileio")) {
      return data.withSanitizedValue();
    }
    if (key.equals("icebergresturi") || key.equals("icebergrestoauth2tokenuri")
        || key.equals("icebergrestcallertokenexchangetokenuri")) {
      String value = data.getValue().toString();
      String redacted = Redaction.maskUserInfo(value);
      return redacted.equals(value) ? data : data.withValue(redacted);
    }
    return data;
  }
}
