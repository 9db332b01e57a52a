package io.icebergscan.planning.test;

import java.util.List;

import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

@SpringJUnitConfig(SpringIntegrationTests.Config.class)
@EmbeddedIcebergCatalogTest(tasksPerPlanTask = 3)
class SpringIntegrationTests {

  @Autowired
  Environment environment;

  @Autowired
  IcebergRestConnectionDetails connectionDetails;

  @Autowired
  EmbeddedIcebergCatalog bean;

  EmbeddedIcebergCatalog injected;

  @Test
  void registersConnectionDetailsOfTheContextsCatalogInsteadOfAProperty() {
    assertThat(this.bean.isRunning()).isTrue();
    assertThat(this.connectionDetails.getUri()).isEqualTo(this.bean.uri());
    assertThat(this.environment.containsProperty("iceberg.rest.uri")).isFalse();
    assertThat(this.injected).isSameAs(this.bean);
  }

  @Test
  void theCatalogClosesWithItsContext() {
    ContextCustomizer customizer = customizer(Plain.class);
    EmbeddedIcebergCatalog catalog;
    try (GenericApplicationContext context = new GenericApplicationContext()) {
      customizer.customizeContext(context, null);
      context.refresh();
      catalog = context.getBean(EmbeddedIcebergCatalog.class);
      assertThat(catalog.isRunning()).isTrue();
      assertThat(context.getBean(IcebergRestConnectionDetails.class).getUri()).isEqualTo(catalog.uri());
    }
    assertThat(catalog.isRunning()).isFalse();
  }

  @Test
  void equalAttributesMakeEqualCustomizersSoContextsAreShared() {
    assertThat(customizer(Plain.class)).isEqualTo(customizer(AlsoPlain.class))
        .hasSameHashCodeAs(customizer(AlsoPlain.class)).isNotEqualTo(customizer(Async.class));
    assertThat(new EmbeddedIcebergCatalogContextCustomizerFactory().createContextCustomizer(Config.class, List.of()))
        .isNull();
  }

  private static ContextCustomizer customizer(Class<?> testClass) {
    return new EmbeddedIcebergCatalogContextCustomizerFactory().createContextCustomizer(testClass, List.of());
  }

  @Configuration(proxyBeanMethods = false)
  static class Config {
  }

  @EmbeddedIcebergCatalogTest
  static class Plain {
  }

  @EmbeddedIcebergCatalogTest
  static class AlsoPlain {
  }

  @EmbeddedIcebergCatalogTest(planAsync = true)
  static class Async {
  }
}
