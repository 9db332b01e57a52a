package io.icebergscan.planning.test;

import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * The class the Spring test support looks up by name: the connection details interface, whose presence makes a
 * test's catalog register connection details. Registered in {@code META-INF/spring/aot.factories}.
 */
final class EmbeddedIcebergCatalogRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    hints.reflection().registerType(TypeReference.of(EmbeddedIcebergCatalogContextCustomizer.CONNECTION_DETAILS));
  }
}
