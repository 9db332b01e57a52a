package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.data.IcebergConversionService;
import io.icebergscan.planning.data.config.EnableIcebergRepositories;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.iceberg.autoconfigure.jdbc.Driver;
import io.icebergscan.planning.iceberg.autoconfigure.jdbc.DriverRepository;
import io.icebergscan.planning.iceberg.autoconfigure.jdbc.MixedApplication;
import io.icebergscan.planning.iceberg.autoconfigure.refused.RefusedApplication;
import io.icebergscan.planning.iceberg.autoconfigure.repositories.RepositoriesApplication;
import io.icebergscan.planning.iceberg.autoconfigure.repositories.Trip;
import io.icebergscan.planning.iceberg.autoconfigure.repositories.TripRepository;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.data.jdbc.autoconfigure.DataJdbcRepositoriesAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.JdbcTemplateAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.repository.query.QueryCreationException;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Iceberg repositories in real Spring contexts: found in the application's package and read through the
 * auto-configured planner, beside Spring Data JDBC's repositories (H2) in one context, refused at start-up for a
 * keyword Iceberg cannot plan, backing off for the application's own {@code @EnableIcebergRepositories}, and run as
 * the caller when the planner plans as its callers.
 */
class IcebergRepositoriesAutoConfigurationTests {

  private static final TableIdentifier TRIPS = TableIdentifier.of("fleet", "trips");
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "region", Types.StringType.get()),
      Types.NestedField.optional(3, "driver", Types.StringType.get()));

  private static EmbeddedIcebergCatalog catalog;

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
          TaskExecutionAutoConfiguration.class, IcebergReadingAutoConfiguration.class,
          IcebergRepositoriesAutoConfiguration.class))
      .withBean(IcebergRestConnectionDetails.class, () -> () -> catalog.uri());

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start().recordRequests(true);
    catalog.createNamespace("fleet");
    EmbeddedTable trips = catalog.createTable(TRIPS, SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 12; id++) {
      rows.add(trips.newRecord(id, id % 3 == 0 ? "north" : "south", "driver-" + id));
    }
    trips.appendRows(FileFormat.AVRO, rows);
    // callers but bob see only the north; bob sees every row
    catalog.readRestrictions(TRIPS, RestrictionPolicy.builder().rowFilter(Expressions.equal("region", "north"))
        .build());
    catalog.readRestrictions(TRIPS, "bob-token", RestrictionPolicy.json("{}"));
  }

  @AfterAll
  static void stop() {
    catalog.close();
  }

  @Test
  void anIcebergRepositoryInTheApplicationsPackageReadsThroughThePlanner() {
    this.runner.withUserConfiguration(RepositoriesApplication.class).run(context -> {
          assertThat(context).hasSingleBean(TripRepository.class).hasSingleBean(IcebergConversionService.class);
          TripRepository trips = context.getBean(TripRepository.class);
          assertThat(trips.findByRegion("north")).extracting(Trip::id).containsExactlyInAnyOrder(0L, 3L, 6L, 9L);
          assertThat(trips.countByRegion("north")).isEqualTo(4);
        });
  }

  @Test
  void icebergAndJdbcRepositoriesLiveInOneContextEachReadingItsOwnStore() {
    this.runner.withUserConfiguration(MixedApplication.class)
        .withConfiguration(AutoConfigurations.of(DataSourceAutoConfiguration.class,
            JdbcTemplateAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
            DataJdbcRepositoriesAutoConfiguration.class))
        .withPropertyValues("spring.datasource.url=jdbc:h2:mem:repositories;DB_CLOSE_DELAY=-1",
            "spring.datasource.generate-unique-name=false")
        .run(context -> {
          assertThat(context).hasNotFailed().hasSingleBean(TripRepository.class)
              .hasSingleBean(DriverRepository.class);
          context.getBean(JdbcTemplate.class)
              .execute("create table \"driver\" (id bigint auto_increment primary key, name varchar(40))");
          DriverRepository drivers = context.getBean(DriverRepository.class);
          Driver saved = drivers.save(new Driver(null, "Ana"));
          assertThat(drivers.findById(saved.id())).get().extracting(Driver::name).isEqualTo("Ana");
          assertThat(context.getBean(TripRepository.class).findByRegion("north")).hasSize(4);
        });
  }

  @Test
  void aQueryIcebergCannotPlanFailsStartUpNamingTheMethod() {
    this.runner.withUserConfiguration(RefusedApplication.class).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause().isInstanceOf(QueryCreationException.class)
          .hasMessageContaining("LikeRepository.findByRegionLike(String) uses Like");
    });
  }

  @Test
  void theApplicationsOwnEnableIcebergRepositoriesTakesOver() {
    this.runner.withUserConfiguration(OwnRepositories.class).run(context -> {
      assertThat(context).hasNotFailed().hasSingleBean(TripRepository.class);
      assertThat(context).doesNotHaveBean(IcebergConversionService.class)
          .as("the auto-configuration backed off");
    });
  }

  @Test
  void withoutSpringDataCommonsThereAreNoRepositories() {
    this.runner.withUserConfiguration(RepositoriesApplication.class)
        .withClassLoader(new FilteredClassLoader(org.springframework.data.repository.Repository.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(TripRepository.class)
            .doesNotHaveBean(IcebergConversionService.class));
  }

  @Test
  void aRepositoryCallRunsAsTheCaller() {
    ThreadLocalCallers callers = new ThreadLocalCallers();
    this.runner.withUserConfiguration(RepositoriesApplication.class)
        .withBean(Callers.class, () -> callers)
        .withPropertyValues("iceberg.rest.identity=caller")
        .run(context -> {
          TripRepository trips = context.getBean(TripRepository.class);
          catalog.clearRecordedRequests();
          assertThat(callers.as("alice-token", () -> trips.findByRegion("south"))).as("alice's row filter")
              .isEmpty();
          assertThat(catalog.recordedRequests()).isNotEmpty()
              .allSatisfy(request -> assertThat(request.authorization()).isEqualTo("Bearer alice-token"));

          catalog.clearRecordedRequests();
          assertThat(callers.as("bob-token", () -> trips.findByRegion("south"))).hasSize(8);
          assertThat(catalog.recordedRequests()).isNotEmpty()
              .allSatisfy(request -> assertThat(request.authorization()).isEqualTo("Bearer bob-token"));

          assertThatThrownBy(() -> trips.findByRegion("south")).isInstanceOf(MissingCallerException.class);
        });
  }

  @Configuration(proxyBeanMethods = false)
  @EnableIcebergRepositories(basePackageClasses = TripRepository.class)
  static class OwnRepositories {
  }

  /** The caller of the calls on a thread, as a security context would hold it. */
  static final class ThreadLocalCallers implements Callers {

    private final ThreadLocal<CatalogCredentials> current = new ThreadLocal<>();

    @Override
    public @Nullable CatalogCredentials current() {
      return this.current.get();
    }

    <T> T as(String token, java.util.function.Supplier<T> call) {
      this.current.set(CatalogCredentials.bearer(token));
      try {
        return call.get();
      }
      finally {
        this.current.remove();
      }
    }
  }
}
