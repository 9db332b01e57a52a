package io.icebergscan.planning.test;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.MergedContextConfiguration;
import org.springframework.util.ClassUtils;

/**
 * Starts a catalog for an application context, registers it as a bean, and, when the auto-configuration is on
 * the classpath, a primary {@code IcebergRestConnectionDetails} bean that points the planner at it (winning over
 * {@code iceberg.rest.*} and over the application's own connection details); closes the catalog when that
 * context closes.
 *
 * <p>Equal (hence one cached context) when the annotation attributes are equal.
 */
final class EmbeddedIcebergCatalogContextCustomizer implements ContextCustomizer {

  static final String BEAN_NAME = "embeddedIcebergCatalog";
  static final String CONNECTION_DETAILS_BEAN_NAME = "embeddedIcebergCatalogConnectionDetails";
  static final String CONNECTION_DETAILS =
      "io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails";

  private final EmbeddedIcebergCatalogTest settings;

  EmbeddedIcebergCatalogContextCustomizer(EmbeddedIcebergCatalogTest settings) {
    this.settings = settings;
  }

  @Override
  public void customizeContext(ConfigurableApplicationContext context, MergedContextConfiguration mergedConfig) {
    EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalogExtension.start(this.settings);
    context.getBeanFactory().registerSingleton(BEAN_NAME, catalog);
    if (ClassUtils.isPresent(CONNECTION_DETAILS, context.getClassLoader())
        && context instanceof BeanDefinitionRegistry registry) {
      // primary, so that it wins over connection details of the application's own, as over its properties
      RootBeanDefinition details = new RootBeanDefinition(EmbeddedIcebergCatalogConnectionDetails.class,
          () -> new EmbeddedIcebergCatalogConnectionDetails(catalog, this.settings.authentication()));
      details.setPrimary(true);
      registry.registerBeanDefinition(CONNECTION_DETAILS_BEAN_NAME, details);
    }
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
