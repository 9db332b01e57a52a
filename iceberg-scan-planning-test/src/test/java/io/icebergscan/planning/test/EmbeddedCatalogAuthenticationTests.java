package io.icebergscan.planning.test;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.model.TableIdentifier;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.TestPropertySource;
import org.springframework.test.context.junit.jupiter.SpringJUnitConfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A catalog behind authentication: its connection details carry the credentials, in place of the application's
 * own credentials properties, and the auto-configured planner plans with them. One subclass per
 * {@link EmbeddedIcebergCatalogTest.Authentication}.
 */
@SpringJUnitConfig(EmbeddedCatalogAuthenticationTests.Config.class)
@TestPropertySource(properties = "iceberg.rest.token=the-applications-token-for-another-catalog")
abstract class EmbeddedCatalogAuthenticationTests {

  @Autowired
  ScanPlanner planner;

  EmbeddedIcebergCatalog catalog;

  @Test
  void thePlannerAuthenticatesThroughTheConnectionDetails() {
    this.catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of("db", "events"), Tables.SCHEMA)
        .appendDataFiles(4);

    ScanPlan plan = this.planner.plan(TableIdentifier.of("db", "events"));

    assertThat(plan.tasks()).hasSize(4);
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(2);
  }

  @Test
  void theCatalogRefusesAPlannerWithoutThem() {
    try (ScanPlanner unauthenticated = ScanPlanner.builder().uri(this.catalog.uri()).build()) {
      assertThatThrownBy(() -> unauthenticated.plan(TableIdentifier.of("db", "nothing-here")))
          .hasMessageContaining("401");
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration(ScanPlanningAutoConfiguration.class)
  static class Config {
  }
}
