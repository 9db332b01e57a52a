package io.icebergscan.planning.test;

import java.util.Map;

import org.jspecify.annotations.Nullable;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.MapPropertySource;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;

/**
 * Starts a catalog for an application context, registers it as a bean, points {@value #URI_PROPERTY}
 * at it ahead of every other property source, and closes it when that context closes.
 *
 * <p>Equal (hence one cached context) when the annotation attributes are equal.
 */
final class EmbeddedIcebergCatalogContextCustomizer implements ContextCustomizer {

  static final String URI_PROPERTY = "iceberg.rest.uri";
  static final String BEAN_NAME = "embeddedIcebergCatalog";

  private final EmbeddedIcebergCatalogTest settings;

  EmbeddedIcebergCatalogContextCustomizer(EmbeddedIcebergCatalogTest settings) {
    this.settings = settings;
  }

  @Override
  public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
    EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalogExtension.start(this.settings);
    context.getBeanFactory().registerSingleton(BEAN_NAME, catalog);
    context.getEnvironment().getPropertySources()
        .addFirst(new MapPropertySource(BEAN_NAME, Map.of(URI_PROPERTY, catalog.uri())));
    context.addApplicationListener(new ApplicationListener<ContextClosedEvent>() {
      @Override
      public void onApplicationEvent(ContextClosedEvent event) {
        // A child context's close event reaches its parent's listeners too.
        if (event.getApplicationContext() == context) {
          catalog.close();
        }
      }
    });
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof EmbeddedIcebergCatalogContextCustomizer customizer
        && this.settings.equals(customizer.settings);
  }

  @Override
  public int hashCode() {
    return this.settings.hashCode();
  }
}
