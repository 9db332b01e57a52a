package io.icebergscan.planning.test;

import java.util.concurrent.atomic.AtomicReference;

import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.testkit.engine.EventConditions.finishedWithFailure;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.instanceOf;
import static org.junit.platform.testkit.engine.TestExecutionResultConditions.message;

@EmbeddedIcebergCatalogTest(branching = 2, depth = 2, tasksPerPlanTask = 1)
class EmbeddedIcebergCatalogExtensionTests {

  static EmbeddedIcebergCatalog classCatalog;

  EmbeddedIcebergCatalog catalog;

  @Test
  void injectsOneRunningCatalogIntoFieldsAndParameters(EmbeddedIcebergCatalog parameter) {
    assertThat(this.catalog).isNotNull().isSameAs(classCatalog).isSameAs(parameter);
    assertThat(this.catalog.isRunning()).isTrue();
  }

  @Test
  void configuresTheCatalogFromTheAnnotation() {
    TableIdentifier identifier = TableIdentifier.of("extension", "t");
    EmbeddedTable table = this.catalog.createTable(identifier, Tables.SCHEMA);
    table.appendDataFiles(10);
    this.catalog.resetRequestCounts();

    assertThat(Tables.plannedByIcebergClient(this.catalog, identifier, scan -> scan))
        .containsExactlyInAnyOrderElementsOf(Tables.plannedLocally(table, scan -> scan));
    // branching 2, depth 2 (tasksPerPlanTask = 1 would have made a chain of 9).
    assertThat(this.catalog.requestCounts().tasks()).isEqualTo(2 + 4);
  }

  @Test
  void closesTheCatalogAfterTheClass() {
    Events tests = EngineTestKit.engine("junit-jupiter").selectors(selectClass(RecordingFixture.class)).execute()
        .testEvents();

    tests.assertStatistics(stats -> stats.succeeded(1).failed(0));
    assertThat(RecordingFixture.seen.get()).isNotNull();
    assertThat(RecordingFixture.seen.get().isRunning()).isFalse();
  }

  @Test
  void rejectsTwoFanOutsAtOnce() {
    EngineTestKit.engine("junit-jupiter").selectors(selectClass(ConflictingFixture.class)).execute().containerEvents()
        .assertThatEvents().haveExactly(1, finishedWithFailure(instanceOf(ExtensionConfigurationException.class),
            message(text -> text.contains("either branching/depth or fanOut"))));
  }

  @Nested
  class NestedTests {

    EmbeddedIcebergCatalog nestedCatalog;

    @Test
    void sharesTheEnclosingClassCatalog() {
      assertThat(this.nestedCatalog).isSameAs(classCatalog);
    }
  }

  @EmbeddedIcebergCatalogTest
  static class RecordingFixture {

    static final AtomicReference<EmbeddedIcebergCatalog> seen = new AtomicReference<>();

    @Test
    void records(EmbeddedIcebergCatalog catalog) {
      seen.set(catalog);
      assertThat(catalog.isRunning()).isTrue();
    }
  }

  @EmbeddedIcebergCatalogTest(branching = 2, fanOut = {2, 2})
  static class ConflictingFixture {

    @Test
    void neverRuns() {
    }
  }
}
