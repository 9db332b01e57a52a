package io.icebergscan.planning.test;

import java.util.List;

import org.jspecify.annotations.Nullable;
import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Gives the application context of a Spring test annotated with {@link EmbeddedIcebergCatalogTest} a
 * running catalog; registered in {@code META-INF/spring.factories}.
 */
public final class EmbeddedIcebergCatalogContextCustomizerFactory implements ContextCustomizerFactory {

  @Override
  public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
      List<ContextConfigurationAttributes> configAttributes) {
    EmbeddedIcebergCatalogTest settings = TestContextAnnotationUtils.findMergedAnnotation(testClass,
        EmbeddedIcebergCatalogTest.class);
    return settings == null ? null : new EmbeddedIcebergCatalogContextCustomizer(settings);
  }
}
