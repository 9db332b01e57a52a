package io.icebergscan.planning.autoconfigure;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.context.annotation.ImportRuntimeHints;
import org.springframework.util.ClassUtils;

import static org.assertj.core.api.Assertions.assertThat;

class ScanPlanningRuntimeHintsTests {

  @Test
  void theClassesLookedUpByNameAreRegisteredForReflection() {
    RuntimeHints hints = new RuntimeHints();
    new ScanPlanningRuntimeHints().registerHints(hints, getClass().getClassLoader());

    for (String name : List.of(CatalogOAuth2.SPRING_SECURITY_OAUTH2_CLIENT,
        SpringSecurityCallers.BEARER_TOKEN_AUTHENTICATION)) {
      assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(name))).as(name).accepts(hints);
      assertThat(ClassUtils.isPresent(name, getClass().getClassLoader())).as("%s is a real class", name).isTrue();
    }
  }

  @Test
  void theAutoConfigurationImportsTheHints() {
    assertThat(ScanPlanningAutoConfiguration.class.getAnnotation(ImportRuntimeHints.class).value())
        .containsExactly(ScanPlanningRuntimeHints.class);
  }
}
