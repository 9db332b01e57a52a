package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * What a native image needs beyond what Spring's AOT processing infers: the one class looked up by name, Spring
 * Security's OAuth2 client manager, whose presence turns the OAuth2 client credentials on ({@link CatalogOAuth2}).
 */
final class ScanPlanningRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    hints.reflection().registerType(TypeReference.of(CatalogOAuth2.SPRING_SECURITY_OAUTH2_CLIENT));
  }
}
