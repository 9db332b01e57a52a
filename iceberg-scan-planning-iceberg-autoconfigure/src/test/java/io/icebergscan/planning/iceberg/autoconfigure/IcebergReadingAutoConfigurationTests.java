package io.icebergscan.planning.iceberg.autoconfigure;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.autoconfigure.ScanPlannerBuilderCustomizer;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.relocated.com.google.common.collect.Lists;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.util.unit.DataSize;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import org.springframework.web.reactive.function.client.ClientRequest;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

class IcebergReadingAutoConfigurationTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "reading_autoconfigure";
  private static final String PREFIX = "iceberg.rest.scan-planning.iceberg.";
  private static final String DELEGATION = "X-Iceberg-Access-Delegation";

  private static EmbeddedIcebergCatalog catalog;

  /** Every request the auto-configured planner sends, as its HTTP client's filter sees it. */
  private final List<ClientRequest> requests = new CopyOnWriteArrayList<>();

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(IcebergReadingAutoConfiguration.class));

  /** With the planner's own auto-configuration, pointed at the embedded catalog. */
  private final ApplicationContextRunner onCatalog = this.runner
      .withConfiguration(AutoConfigurations.of(ScanPlanningAutoConfiguration.class,
          TaskExecutionAutoConfiguration.class))
      .withBean(IcebergRestConnectionDetails.class, () -> () -> catalog.uri())
      .withBean(ScanPlannerBuilderCustomizer.class, () -> builder -> builder.filter((request, next) -> {
        this.requests.add(request);
        return next.exchange(request);
      }));

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
  }

  @AfterAll
  static void stop() {
    catalog.close();
  }

  @Test
  void aScanPlannerBeanGetsAnIcebergScanPlannerOverIt() {
    this.onCatalog.run(context -> {
      assertThat(context).hasSingleBean(IcebergScanPlanner.class);
      assertThat(context.getBean(IcebergScanPlanner.class).planner()).isSameAs(context.getBean(ScanPlanner.class));
    });
  }

  /** The planner's auto-configured bean is {@code icebergScanPlanner}: this one must not take its name. */
  @Test
  void theBeanIsNamedApartFromThePlannersBean() {
    this.onCatalog.run(context -> {
      assertThat(context.getBeanNamesForType(ScanPlanner.class)).containsExactly("icebergScanPlanner");
      assertThat(context.getBeanNamesForType(IcebergScanPlanner.class)).containsExactly("icebergReadingScanPlanner");
    });
  }

  @Test
  void theIcebergScanPlannerReadsTheRowsOfATableOnTheCatalog() {
    EmbeddedTable table = table("rows");
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one"), table.newRecord(2L, "two")));
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(3L, "three")));
    this.onCatalog.run(context -> {
      IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
      try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(table.identifier()), IcebergScan.all())) {
        assertThat(plan.tasks()).hasSize(2);
        assertThat(read(plan.rows())).extracting(row -> row.getField("id"), row -> row.getField("name"))
            .containsExactlyInAnyOrder(tuple(1L, "one"), tuple(2L, "two"), tuple(3L, "three"));
      }
    });
  }

  @Test
  void aUsersOwnIcebergScanPlannerWins() {
    this.onCatalog.withUserConfiguration(OwnIcebergScanPlanner.class).run(context -> {
      assertThat(context).hasSingleBean(IcebergScanPlanner.class);
      assertThat(context.getBean(IcebergScanPlanner.class)).isSameAs(context.getBean("ownIcebergScanPlanner"));
    });
  }

  @Test
  void noScanPlannerMeansNoIcebergScanPlanner() {
    this.runner.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IcebergScanPlanner.class)
        .doesNotHaveBean(IcebergReadingProperties.class));
    this.onCatalog.withPropertyValues("iceberg.rest.scan-planning.enabled=false").run(context -> assertThat(context)
        .hasNotFailed().doesNotHaveBean(ScanPlanner.class).doesNotHaveBean(IcebergScanPlanner.class));
  }

  @Test
  void withoutTheIcebergModuleThereIsNoIcebergScanPlanner() {
    this.onCatalog.withClassLoader(new FilteredClassLoader(IcebergScanPlanner.class)).run(context ->
        assertThat(context).hasNotFailed().hasSingleBean(ScanPlanner.class).doesNotHaveBean(IcebergScanPlanner.class));
  }

  @Test
  void aPlannerOfTheApplicationsOwnIsReadToo() {
    this.runner.withBean("ownPlanner", ScanPlanner.class, IcebergReadingAutoConfigurationTests::planner)
        .run(context -> assertThat(context.getBean(IcebergScanPlanner.class).planner())
            .isSameAs(context.getBean("ownPlanner")));
  }

  /** Which of several planners would be a guess: there is none unless one of them is primary. */
  @Test
  void ofSeveralPlannersOnlyThePrimaryOneIsRead() {
    ApplicationContextRunner two = this.runner
        .withBean("first", ScanPlanner.class, IcebergReadingAutoConfigurationTests::planner)
        .withBean("second", ScanPlanner.class, IcebergReadingAutoConfigurationTests::planner);
    two.run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IcebergScanPlanner.class));
    two.withBean("primary", ScanPlanner.class, IcebergReadingAutoConfigurationTests::planner,
        definition -> definition.setPrimary(true)).run(context ->
            assertThat(context.getBean(IcebergScanPlanner.class).planner()).isSameAs(context.getBean("primary")));
  }

  @Test
  void theSplitSizeReplacesTheTablesTargetSize() {
    EmbeddedTable table = table("split_size");
    table.table().updateProperties().set(TableProperties.SPLIT_SIZE, "12345").commit();
    this.onCatalog.run(context -> {
      IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
      assertThat(iceberg.splitSettings(iceberg.loadTable(table.identifier())).splitSize()).isEqualTo(12345);
    });
    this.onCatalog.withPropertyValues(PREFIX + "split-size=3MB").run(context -> {
      IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
      assertThat(iceberg.splitSettings(iceberg.loadTable(table.identifier())).splitSize()).isEqualTo(3 * 1024 * 1024);
    });
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "split-size       | 0B | '0B' | splitSize must be positive",
      "read-concurrency | 0  | '0'  | readConcurrency must be at least 1",
      "read-buffer      | 0B | '0B' | readBufferBytes must be at least 1" })
  void aValueTheBuilderRefusesFailsStartUpNamingTheProperty(String property, String value, String shown,
      String refusal) {
    this.onCatalog.withPropertyValues(PREFIX + property + "=" + value).run(context -> {
      assertThat(context).hasFailed();
      assertThat(context.getStartupFailure()).rootCause()
          .isInstanceOf(InvalidConfigurationPropertyValueException.class)
          .hasMessageContaining(PREFIX + property).hasMessageContaining(shown).hasMessageContaining(refusal);
    });
  }

  @Test
  void theReadBufferIsEveryReadsBudgetInBytesAndATinyOneStillReadsEveryRow() {
    EmbeddedTable table = table("buffer");
    for (long id = 0; id < 6; id++) {
      table.appendRows(FileFormat.AVRO, List.of(table.newRecord(id, "row-" + id)));
    }
    this.onCatalog.run(context -> {
      assertThat(context.getBean(IcebergScanPlanner.class).readBufferBytes()).isEqualTo(64L * 1024 * 1024);
    });
    this.onCatalog.withPropertyValues(PREFIX + "read-buffer=1B").run(context -> {
      IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
      assertThat(iceberg.readBufferBytes()).isEqualTo(1);
      try (IcebergScanPlan plan = plan(iceberg, table)) {
        assertThat(read(plan.rows())).hasSize(6);
      }
    });
  }

  @Test
  void rowsAreReadOnAnExecutorOfTheirOwnWithAThreadPerTaskReadAtOnce() {
    EmbeddedTable table = table("executor");
    for (long id = 0; id < 6; id++) {
      table.appendRows(FileFormat.AVRO, List.of(table.newRecord(id, "row-" + id)));
    }
    this.onCatalog.withPropertyValues(PREFIX + "read-concurrency=3").run(context -> {
      assertThat(context).hasBean("applicationTaskExecutor");
      ThreadPoolTaskExecutor executor = context.getBean(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME,
          ThreadPoolTaskExecutor.class);
      assertThat(executor.getMaxPoolSize()).isEqualTo(3);
      assertThat(((AbstractBeanDefinition) context.getBeanFactory()
          .getBeanDefinition(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME)).isDefaultCandidate())
          .as("never injected by type").isFalse();
      IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
      assertThat(iceberg.readConcurrency()).isEqualTo(3);
      try (IcebergScanPlan plan = plan(iceberg, table)) {
        assertThat(read(plan.rows())).hasSize(6);
      }
      // the tasks were read on the reading executor
      await().atMost(Duration.ofSeconds(10)).until(() -> executor.getThreadPoolExecutor().getCompletedTaskCount() >= 6);
    });
  }

  @Test
  void withoutSpringBootsExecutorTheReadingExecutorIsAnOwnOneTheApplicationGives() {
    this.onCatalog.withBean(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME, Executor.class,
        () -> Runnable::run, definition -> ((AbstractBeanDefinition) definition).setDefaultCandidate(false))
        .run(context -> {
          assertThat(context).hasNotFailed();
          assertThat(context.getBean(IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME))
              .isNotInstanceOf(ThreadPoolTaskExecutor.class);
        });
  }

  @Test
  void theReadingExecutorIsMeteredUnderItsBeanName() {
    EmbeddedTable table = table("metered");
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one")));
    this.onCatalog.withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
        IcebergReadingMetricsAutoConfiguration.class))
        .withBean(SimpleMeterRegistry.class, SimpleMeterRegistry::new)
        .withPropertyValues(PREFIX + "read-concurrency=2").run(context -> {
          MeterRegistry registry = context.getBean(MeterRegistry.class);
          String name = IcebergReadingAutoConfiguration.READ_EXECUTOR_BEAN_NAME;
          assertThat(registry.get("executor.pool.max").tag("name", name).gauge().value()).isEqualTo(2);
          IcebergScanPlanner iceberg = context.getBean(IcebergScanPlanner.class);
          try (IcebergScanPlan plan = plan(iceberg, table)) {
            assertThat(read(plan.rows())).hasSize(1);
          }
          await().atMost(Duration.ofSeconds(10)).until(() -> registry.get("executor.completed").tag("name", name)
              .functionCounter().count() >= 1);
        });
  }

  @Test
  void tableLoadsAskForVendedCredentialsUnlessSwitchedOff() {
    EmbeddedTable table = table("vended");
    String load = "/v1/namespaces/" + NAMESPACE + "/tables/vended";
    this.onCatalog.run(context -> {
      context.getBean(IcebergScanPlanner.class).loadTable(table.identifier());
      assertThat(requestsTo(load)).singleElement()
          .satisfies(request -> assertThat(request.headers().get(DELEGATION)).containsExactly("vended-credentials"));
    });
    this.requests.clear();
    this.onCatalog.withPropertyValues(PREFIX + "vended-credentials=false").run(context -> {
      context.getBean(IcebergScanPlanner.class).loadTable(table.identifier());
      assertThat(requestsTo(load)).singleElement()
          .satisfies(request -> assertThat(request.headers().containsHeader(DELEGATION)).isFalse());
    });
  }

  @Test
  void plansReportTheirScansUnlessSwitchedOff() {
    EmbeddedTable table = table("reports");
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one")));
    String metrics = "/v1/namespaces/" + NAMESPACE + "/tables/reports/metrics";
    this.onCatalog.run(context -> {
      plan(context.getBean(IcebergScanPlanner.class), table).close();
      assertThat(requestsTo(metrics)).hasSize(1);
    });
    this.requests.clear();
    this.onCatalog.withPropertyValues(PREFIX + "scan-reports=false").run(context -> {
      plan(context.getBean(IcebergScanPlanner.class), table).close();
      assertThat(requestsTo("/v1/namespaces/" + NAMESPACE + "/tables/reports/plan")).hasSize(1);
      assertThat(requestsTo(metrics)).isEmpty();
    });
  }

  @Test
  void fileIoPropertiesReachThePlansFileIO() {
    EmbeddedTable table = table("file_io");
    table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "one")));
    this.onCatalog.withPropertyValues(PREFIX + "file-io.s3.endpoint=http://s3.example.com",
        PREFIX + "file-io.client.region=eu-west-1").run(context -> {
          try (IcebergScanPlan plan = plan(context.getBean(IcebergScanPlanner.class), table)) {
            assertThat(plan.io().properties()).containsEntry("s3.endpoint", "http://s3.example.com")
                .containsEntry("client.region", "eu-west-1");
          }
        });
  }

  @Test
  void thePropertiesShowNoFileIoValue() {
    this.onCatalog.withPropertyValues(PREFIX + "file-io.s3.secret-access-key=s3cr3t").run(context ->
        assertThat(context.getBean(IcebergReadingProperties.class).toString()).doesNotContain("s3cr3t")
            .contains("s3.secret-access-key"));
  }

  /**
   * Spring Boot leaves a placeholder that nothing resolved in place: a FileIO credential would reach the object store
   * as the text {@code ${…}}. Start-up fails instead, with the planner's analysis of an unresolved credential.
   */
  @Test
  @ExtendWith(OutputCaptureExtension.class)
  void anUnresolvedPlaceholderInAFileIoPropertyFailsStartUpNamingIt(CapturedOutput output) {
    SpringApplication application = new SpringApplication(ReadingApplication.class);
    application.setWebApplicationType(WebApplicationType.NONE);
    application.setDefaultProperties(Map.of("iceberg.rest.uri", catalog.uri(),
        PREFIX + "file-io.s3.secret-access-key", "${ICEBERG_SCAN_PLANNING_TEST_UNSET_7F3A}"));

    assertThatThrownBy(application::run).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START").contains("The credential property '" + PREFIX
        + "file-io.s3.secret-access-key' is '${ICEBERG_SCAN_PLANNING_TEST_UNSET_7F3A}', a placeholder that nothing "
        + "resolved");
  }

  /** The properties hold only what is set: every default is the builder's, not a second copy in the record. */
  @Test
  void unsetPropertiesStayUnsetSoTheBuildersDefaultsApply() {
    this.onCatalog.run(context -> {
      IcebergReadingProperties properties = context.getBean(IcebergReadingProperties.class);
      assertThat(properties.splitSize()).isNull();
      assertThat(properties.readBuffer()).isNull();
      assertThat(properties.scanReports()).isNull();
      assertThat(properties.vendedCredentials()).isNull();
      assertThat(properties.fileIo()).isEmpty();
    });
  }

  /**
   * The defaults the metadata documents (what IDEs and docs/configuration.md show) are the builder's own, and
   * every default of the builder is documented.
   */
  @Test
  void everyDocumentedDefaultIsTheBuildersDefault() throws Exception {
    Map<String, Object> builder = new LinkedHashMap<>();
    builder.put(PREFIX + "read-concurrency", IcebergScanPlanner.Builder.DEFAULT_READ_CONCURRENCY);
    builder.put(PREFIX + "read-buffer", IcebergScanPlanner.Builder.DEFAULT_READ_BUFFER_BYTES);
    builder.put(PREFIX + "scan-reports", IcebergScanPlanner.Builder.DEFAULT_SCAN_REPORTS);
    builder.put(PREFIX + "vended-credentials", IcebergScanPlanner.Builder.DEFAULT_VENDED_CREDENTIALS);

    Map<String, Object> documented = new LinkedHashMap<>();
    for (JsonNode property : ModuleMetadata.properties()) {
      if (property.has("defaultValue")) {
        JsonNode value = property.get("defaultValue");
        Object documentedValue;
        if (value.isBoolean()) {
          documentedValue = value.asBoolean();
        }
        else if (value.isString()) {
          // a size, as Spring Boot binds it
          documentedValue = DataSize.parse(value.asString()).toBytes();
        }
        else {
          documentedValue = value.asInt();
        }
        documented.put(property.get("name").asString(), documentedValue);
      }
    }
    assertThat(documented).containsExactlyInAnyOrderEntriesOf(builder);
    List<String> constants = new ArrayList<>();
    for (Field field : IcebergScanPlanner.Builder.class.getFields()) {
      if (Modifier.isStatic(field.getModifiers()) && field.getName().startsWith("DEFAULT_")) {
        constants.add(field.getName());
      }
    }
    assertThat(constants).as("the default constants, each put in the table above")
        .containsExactlyInAnyOrder("DEFAULT_READ_CONCURRENCY", "DEFAULT_READ_BUFFER_BYTES", "DEFAULT_SCAN_REPORTS",
            "DEFAULT_VENDED_CREDENTIALS");
  }

  @Test
  void everyPropertyIsInTheMetadataWithADescription() throws Exception {
    Map<String, String> types = new LinkedHashMap<>();
    for (JsonNode property : ModuleMetadata.properties()) {
      String name = property.get("name").asString();
      types.put(name, property.get("type").asString());
      assertThat(property.path("description").asString("")).as(name).isNotBlank().endsWith(".");
    }
    assertThat(types).containsOnly(
        Map.entry(PREFIX + "split-size", "org.springframework.util.unit.DataSize"),
        Map.entry(PREFIX + "read-concurrency", "java.lang.Integer"),
        Map.entry(PREFIX + "read-buffer", "org.springframework.util.unit.DataSize"),
        Map.entry(PREFIX + "scan-reports", "java.lang.Boolean"),
        Map.entry(PREFIX + "vended-credentials", "java.lang.Boolean"),
        Map.entry(PREFIX + "file-io", "java.util.Map<java.lang.String,java.lang.String>"));
  }

  private List<ClientRequest> requestsTo(String path) {
    return this.requests.stream().filter(request -> request.url().getRawPath().equals(path)).toList();
  }

  private static ScanPlanner planner() {
    return ScanPlanner.builder().uri(catalog.uri()).build();
  }

  private static EmbeddedTable table(String name) {
    return catalog.createTable(org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, name), SCHEMA);
  }

  private static TableIdentifier identifier(EmbeddedTable table) {
    return TableIdentifier.of(NAMESPACE, table.identifier().name());
  }

  private static IcebergScanPlan plan(IcebergScanPlanner iceberg, EmbeddedTable table) {
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    return iceberg.plan(loaded, IcebergScan.all());
  }

  /** Every row, the rows closed after. */
  private static List<Record> read(CloseableIterable<Record> rows) throws IOException {
    try (rows) {
      return Lists.newArrayList(rows);
    }
  }

  @Configuration(proxyBeanMethods = false)
  @ImportAutoConfiguration({ ScanPlanningAutoConfiguration.class, IcebergReadingAutoConfiguration.class })
  static class ReadingApplication {
  }

  @Configuration(proxyBeanMethods = false)
  static class OwnIcebergScanPlanner {

    @Bean
    IcebergScanPlanner ownIcebergScanPlanner(ScanPlanner planner) {
      return IcebergScanPlanner.builder(planner).build();
    }
  }
}
