package io.icebergscan.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A setting that cannot apply is never ignored without a word: a table the demo catalog does not have, no table for a
 * catalog of your own, a misspelt setting and values out of range fail start-up, before the demo table is filled,
 * with Spring Boot's report naming the setting and what to do; demo settings given with a catalog of your own, which
 * are harmless, are reported in a warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class ExampleSettingsTests {

  /** Never contacted: start-up fails before the planner is built. */
  private static final String NO_CATALOG = "--iceberg.rest.uri=http://127.0.0.1:9/catalog";

  @Test
  void aTableOtherThanTheDemosWithoutACatalogFailsStartUpNamingTheSettingAndTheCatalogToSet(CapturedOutput output) {
    assertThatExceptionOfType(ExampleSettingException.class).isThrownBy(() -> run("--example.table=nope.nope"))
        .satisfies(failure -> assertThat(failure.setting()).isEqualTo("example.table"));

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("example.table is 'nope.nope', but no iceberg.rest.uri is set: the example plans on its embedded "
            + "demo catalog, whose tables are demo.events and the governed demo.customers.")
        .contains("To plan nope.nope, set iceberg.rest.uri to the base URI of the catalog that holds it")
        .as("no demo table filled for a plan that cannot happen").doesNotContain("filled with");
  }

  @Test
  void theDemoTableNamedWithoutACatalogIsTheDemo(CapturedOutput output) {
    try (ConfigurableApplicationContext context = run("--example.table=demo.events", "--example.demo.files=16")) {
      assertThat(context.getBean(PlanSummary.class).lastRun().plan().tasks()).hasSize(16);
    }
    assertThat(output).doesNotContain("WARN");
  }

  @Test
  void aCatalogOfYourOwnWithoutATableFailsStartUp(CapturedOutput output) {
    assertThatExceptionOfType(ExampleSettingException.class).isThrownBy(() -> run(NO_CATALOG))
        .satisfies(failure -> assertThat(failure.setting()).isEqualTo("example.table"));

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("example.table is not set: iceberg.rest.uri points to a catalog of your own "
            + "(http://127.0.0.1:9/catalog), and the example does not know which of its tables to plan.")
        .contains("Name the table to plan as namespace.table: --example.table=sales.orders");
  }

  @Test
  void aTableOfYourOwnThatIsNoTableIdentifierFailsStartUp(CapturedOutput output) {
    assertThatExceptionOfType(ExampleSettingException.class).isThrownBy(() -> run(NO_CATALOG, "--example.table=orders"))
        .satisfies(failure -> assertThat(failure.setting()).isEqualTo("example.table"));

    assertThat(output).contains("APPLICATION FAILED TO START").contains("example.table is 'orders': ")
        .contains("expected namespace.table");
  }

  @Test
  void planningAsTheCallersOfACatalogOfYourOwnWithoutAWayToAuthenticateThemFailsStartUp(CapturedOutput output) {
    assertThatThrownBy(() -> run(NO_CATALOG, "--example.table=sales.orders", "--iceberg.rest.identity=caller"))
        .rootCause().isInstanceOfSatisfying(ExampleSettingException.class,
            failure -> assertThat(failure.setting()).isEqualTo("iceberg.rest.identity"));

    assertThat(output).contains("APPLICATION FAILED TO START")
        .contains("iceberg.rest.identity is caller, and iceberg.rest.uri points to a catalog of your own "
            + "(http://127.0.0.1:9/catalog), but the application has no way to authenticate its callers' bearer "
            + "tokens: it has neither a ReactiveJwtDecoder nor a ReactiveOpaqueTokenIntrospector bean")
        .contains("Define a bean for your identity provider: a ReactiveJwtDecoder for JWTs")
        .contains("as application-callers.yml shows");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = { "--iceberg.rest.token=a-token-of-my-own",
      "--iceberg.rest.oauth2.client-id=my-client --iceberg.rest.oauth2.client-secret=my-secret" })
  void planningAsTheCallersOfTheDemoCatalogTheApplicationsOwnIdentityIsTheOneSet(String identity) {
    List<String> args = new ArrayList<>(List.of(identity.split(" ")));
    args.add("--spring.profiles.active=callers");
    try (ConfigurableApplicationContext context = run(args.toArray(String[]::new))) {
      // the demo catalog, which refuses a token of no principal of its, knows the application by it
      assertThat(context.getBean(ScanPlanner.class).checkCatalog(Duration.ofSeconds(10)).supportsPlanning()).isTrue();
      assertThat(context.getBean(DemoCatalog.Started.class).catalog().tokenRequests("client_credentials"))
          .isEqualTo(identity.contains("client-id") ? 1 : 0);
    }
  }

  @Test
  void aMisspeltSettingFailsStartUpWithSpringBootsReportNamingIt(CapturedOutput output) {
    assertThatThrownBy(() -> run("--example.tabel=demo.events")).isNotNull();

    assertThat(output).contains("APPLICATION FAILED TO START").contains("Property: example.tabel")
        .contains("The elements [example.tabel] were left unbound.").doesNotContain("filled with");
  }

  @ParameterizedTest(name = "{0}={1}")
  @CsvSource(delimiter = '|', value = {
      "example.demo.files       | 8  | the demo table needs at least 16 data files",
      "example.demo.latency-ms  | -1 | a delay cannot be negative",
      "example.warm-up-plans    | -1 | a number of plans cannot be negative" })
  void aValueOutOfRangeFailsStartUpNamingTheSettingAndItsDefault(String setting, String value, String why,
      CapturedOutput output) {
    assertThatExceptionOfType(ExampleSettingException.class).isThrownBy(() -> run("--" + setting + "=" + value))
        .satisfies(failure -> assertThat(failure.setting()).isEqualTo(setting));

    assertThat(output).contains("APPLICATION FAILED TO START").contains(setting + " is " + value + ": " + why)
        .contains("Set " + setting + " to ").contains("(default ").doesNotContain("filled with");
  }

  @Test
  void demoSettingsWithACatalogOfYourOwnWarnThatTheyDoNotApply(CapturedOutput output) {
    try (EmbeddedIcebergCatalog yours = EmbeddedIcebergCatalog.create().fanOut(DemoTable.FAN_OUT)) {
      DemoTable.create(yours, DemoTable.MIN_FILES);
      yours.start();

      try (ConfigurableApplicationContext context = run("--iceberg.rest.uri=" + yours.uri(),
          "--example.table=demo.events", "--example.demo.files=40", "--example.demo.latency-ms=1")) {
        PlanSummary.Run run = context.getBean(PlanSummary.class).lastRun();
        assertThat(run.plan().tasks()).as("your catalog's table, not a demo of 40 files").hasSize(DemoTable.MIN_FILES);
        assertThat(run.answering()).as("only the demo catalog's time is known").isNull();
        assertThat(run.ideal()).isNull();
      }
    }
    assertThat(output).contains("WARN")
        .contains("example.demo.files and example.demo.latency-ms are set, but iceberg.rest.uri points to a catalog "
            + "of your own (http://127.0.0.1:")
        .contains("the demo settings configure the embedded demo catalog, which is not started, and do not apply.")
        .doesNotContain("planning against an embedded Apache Iceberg catalog")
        .contains("catalog's part       (measured by the embedded demo catalog only)")
        .contains("ideal                (known for the demo catalog's plan-task tree only)");
  }

  /** The example as a user starts it, with arguments; no web server, and no warm-up unless the test sets one. */
  private static ConfigurableApplicationContext run(String... args) {
    List<String> all = new ArrayList<>(List.of(args));
    all.add("--spring.main.web-application-type=none");
    // an option given twice would be both values, comma-separated
    if (all.stream().noneMatch(arg -> arg.startsWith("--example.warm-up-plans="))) {
      all.add("--example.warm-up-plans=0");
    }
    return new SpringApplicationBuilder(ScanPlanningExampleApplication.class).run(all.toArray(String[]::new));
  }
}
