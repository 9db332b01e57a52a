package io.icebergscan.planning.test;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.model.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configured planner of a Spring test plans on the test's embedded catalog, through the connection
 * details it registers, even where the application's {@code iceberg.rest.uri} and connection details of its own
 * name other catalogs.
 */
@SpringJUnitConfig(EmbeddedCatalogConnectionDetailsTests.Config.class)
@TestPropertySource(properties = "iceberg.rest.uri=http://127.0.0.1:1/not-this-catalog")
@EmbeddedIcebergCatalogTest(branching = 2, depth = 2)
class EmbeddedCatalogConnectionDetailsTests {

  @Autowired
  ScanPlanner planner;

  EmbeddedIcebergCatalog catalog;

  @Test
  void theAutoConfiguredPlannerPlansOnTheEmbeddedCatalog() {
    this.catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "events"), Tables.SCHEMA)
        .appendDataFiles(12);

    ScanPlan plan = this.planner.plan(TableIdentifier.of("db", "events"));

    assertThat(plan.tasks()).hasSize(12);
    assertThat(plan.statistics().planTasksFetched()).isEqualTo(2 + 4);
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(2 + 4);
  }

  /** An application with connection details of its own, to a catalog the test must not reach. */
  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ScanPlanningAutoConfiguration.class)
  static class Config {

    @Bean
    IcebergRestConnectionDetails applicationsCatalog() {
      return () -> "http://127.0.0.1:1/not-this-catalog-either";
    }
  }
}
