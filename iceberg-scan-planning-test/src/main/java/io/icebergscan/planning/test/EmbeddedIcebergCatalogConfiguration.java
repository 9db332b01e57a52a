package io.icebergscan.planning.test;

import java.nio.file.Path;

import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.test.EmbeddedIcebergCatalogTest.Authentication;
import org.apache.commons.logging.LogFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Primary;

/**
 * The embedded catalog at development time, the way Spring Boot runs an application on a service that Testcontainers
 * starts: a test main {@code SpringApplication.from(App::main).with(EmbeddedIcebergCatalogConfiguration.class)
 * .run(args)} (or {@code mvn spring-boot:test-run}) runs the application with the auto-configured planner pointed at
 * a catalog started in its JVM, filled by the application's {@link EmbeddedIcebergCatalogSeed} beans, and closed
 * with it. A primary {@code IcebergRestConnectionDetails} bean wins over {@code iceberg.rest.*}.
 *
 * <p>The warehouse is in memory, so only this JVM can read its files, unless
 * {@code embedded-iceberg-catalog.warehouse} names a directory: then the files are written there, and another process
 * given the catalog's URI (logged at start) reads them too, while this one runs.
 */
@Configuration(proxyBeanMethods = false)
@EnableConfigurationProperties(EmbeddedIcebergCatalogProperties.class)
public class EmbeddedIcebergCatalogConfiguration {

  /** The property naming a local-disk warehouse directory; empty or unset for an in-memory warehouse. */
  public static final String WAREHOUSE_PROPERTY = EmbeddedIcebergCatalogProperties.PREFIX + ".warehouse";

  @Bean(destroyMethod = "close")
  EmbeddedIcebergCatalog embeddedIcebergCatalog(EmbeddedIcebergCatalogProperties properties,
      ObjectProvider<EmbeddedIcebergCatalogSeed> seeds) {
    String set = properties.warehouse();
    String warehouse = set == null ? "" : set;
    EmbeddedIcebergCatalog catalog = warehouse.isBlank() ? EmbeddedIcebergCatalog.create()
        : EmbeddedIcebergCatalog.create(Path.of(warehouse));
    catalog.start();
    try {
      seeds.orderedStream().forEach(seed -> seed.seed(catalog));
    }
    catch (RuntimeException failure) {
      catalog.close();
      throw failure;
    }
    LogFactory.getLog(EmbeddedIcebergCatalogConfiguration.class)
        .info("Embedded Apache Iceberg REST catalog at " + catalog.uri()
            + (warehouse.isBlank() ? ", its warehouse in memory" : ", its warehouse in " + Path.of(warehouse)
                .toAbsolutePath()));
    return catalog;
  }

  @Bean
  @Primary
  IcebergRestConnectionDetails embeddedIcebergCatalogConnectionDetails(EmbeddedIcebergCatalog catalog) {
    return new EmbeddedIcebergCatalogConnectionDetails(catalog, Authentication.NONE);
  }
}
