package io.icebergscan.planning.test;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

class EmbeddedIcebergCatalogRuntimeHintsTests {

  @Test
  void theClassLookedUpByNameIsRegisteredForReflectionThroughAotFactories() {
    RuntimeHints hints = new RuntimeHints();
    SpringFactoriesLoader.forResourceLocation("META-INF/spring/aot.factories")
        .load(RuntimeHintsRegistrar.class)
        .forEach(registrar -> registrar.registerHints(hints, getClass().getClassLoader()));

    String name = EmbeddedIcebergCatalogContextCustomizer.CONNECTION_DETAILS;
    assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name))).accepts(hints);
    assertThat(ClassUtils.isPresent(name, getClass().getClassLoader())).as("the name is a real class").isTrue();
  }
}
