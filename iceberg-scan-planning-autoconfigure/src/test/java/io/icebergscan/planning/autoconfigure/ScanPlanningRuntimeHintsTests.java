package io.icebergscan.planning.autoconfigure;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

class ScanPlanningRuntimeHintsTests {

  @Test
  void theClassLookedUpByNameIsRegisteredForReflection() {
    RuntimeHints hints = new RuntimeHints();
    new ScanPlanningRuntimeHints().registerHints(hints, getClass().getClassLoader());

    assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(CatalogOAuth2.SPRING_SECURITY_OAUTH2_CLIENT)))
        .accepts(hints);
    assertThat(ClassUtils.isPresent(CatalogOAuth2.SPRING_SECURITY_OAUTH2_CLIENT, getClass().getClassLoader()))
        .as("the name is a real class").isTrue();
  }

  @Test
  void theAutoConfigurationImportsTheHints() {
    assertThat(ScanPlanningAutoConfiguration.class.getAnnotation(ImportRuntimeHints.class).value())
        .containsExactly(ScanPlanningRuntimeHints.class);
  }
}
