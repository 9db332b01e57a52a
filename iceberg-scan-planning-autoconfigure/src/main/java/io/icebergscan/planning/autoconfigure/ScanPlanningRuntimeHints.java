package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image needs beyond what Spring's AOT processing infers: the classes looked up by name at run time,
 * Spring Security's OAuth2 client manager, whose presence turns the OAuth2 client credentials on
 * ({@link CatalogOAuth2}), and its resource server's bearer token authentication, whose absence fails
 * {@code iceberg.rest.identity=caller} ({@link SpringSecurityCallers}).
 */
final class ScanPlanningRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    hints.reflection().registerType(TypeReference.of(CatalogOAuth2.SPRING_SECURITY_OAUTH2_CLIENT));
    hints.reflection().registerType(TypeReference.of(SpringSecurityCallers.BEARER_TOKEN_AUTHENTICATION));
  }
}
