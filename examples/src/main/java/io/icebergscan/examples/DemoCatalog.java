package io.icebergscan.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.autoconfigure.IcebergRestProperties;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.test.DemoCustomers;
import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.AotDetector;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.Environment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * When no catalog is configured, starts Apache Iceberg's REST catalog in this JVM with the demo table
 * ({@link DemoTable}: real rows, deletion vectors and equality deletes) whose plan fans out over a tree of
 * plan-tasks, points {@code iceberg.rest.uri} at it before the planner is configured, and hands it to the
 * application as a {@link Started} bean, whose time answering plans the example measures. Closed with the
 * application. Registered in {@code META-INF/spring.factories}, so tests of the application get it too.
 *
 * <p>First it checks the {@code example.*} settings against the catalog planned, before the demo table is filled: an
 * unknown setting, a table other than the demo's without a catalog of your own, no table with one, or a value out of
 * range fails start-up ({@link ExampleSettingException}); demo settings given while a catalog of your own is planned
 * are reported in a warning, since they do not apply.
 *
 * <p>With {@code iceberg.rest.identity=caller} (the {@code callers} profile) the demo catalog tells its callers apart
 * ({@link DemoCallers}): it knows the demo users' tokens and the application's own, which it sets as
 * {@code iceberg.rest.token} unless the application has an identity of its own configured already.
 */
public final class DemoCatalog implements SmartApplicationListener {

  static final String DEMO_TABLE = DemoTable.NAME;

  /** Set while Spring AOT processes the application at build time ({@code AbstractAotProcessor}). */
  private static final String AOT_PROCESSING = "spring.aot.processing";

  private static final Log logger = LogFactory.getLog(DemoCatalog.class);

  /**
   * The demo catalog this listener started, a bean of the application it started for.
   *
   * @param catalog the catalog, whose {@code requestCounts()} tell what answering a plan cost it
   * @param tasksLatency the delay of each of its {@code /tasks} answers
   */
  record Started(EmbeddedIcebergCatalog catalog, Duration tasksLatency) {
  }

  private @Nullable Started started;

  @Override
  public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
    return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
        || ApplicationPreparedEvent.class.isAssignableFrom(eventType)
        || ContextClosedEvent.class.isAssignableFrom(eventType)
        || ApplicationFailedEvent.class.isAssignableFrom(eventType);
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
      start(prepared.getEnvironment());
    }
    else if (event instanceof ApplicationPreparedEvent prepared && this.started != null) {
      prepared.getApplicationContext().getBeanFactory().registerSingleton("demoCatalog", this.started);
    }
    else if (event instanceof ContextClosedEvent || event instanceof ApplicationFailedEvent) {
      // a context that failed to refresh is closed without a ContextClosedEvent: the failure closes the catalog then
      stop();
    }
  }

  private void start(ConfigurableEnvironment environment) {
    boolean ownCatalog = StringUtils.hasText(environment.getProperty("iceberg.rest.uri"));
    if (Boolean.getBoolean(AOT_PROCESSING)) {
      if (!ownCatalog) {
        // Spring AOT decides the beans at build time: a catalog is configured, the one started at run time
        environment.getPropertySources().addFirst(new MapPropertySource("demoCatalog",
            Map.of("iceberg.rest.uri", "http://localhost/started-at-run-time", "example.table", DEMO_TABLE)));
      }
      return;
    }
    ExampleProperties settings = bind(environment);
    check(settings);
    checkIdentity(environment);
    if (ownCatalog) {
      checkOwnCatalog(settings, environment.getProperty("iceberg.rest.uri"));
      return;
    }
    checkDemo(settings);
    // An application set up to authenticate meets a catalog that insists, as a real one would.
    boolean authenticates = environment.containsProperty("iceberg.rest.oauth2.client-id")
        || environment.containsProperty("iceberg.rest.token");
    int files = settings.demo().dataFiles();
    Duration latency = settings.demo().tasksLatency();
    EmbeddedIcebergCatalog demo = EmbeddedIcebergCatalog.create()
        .requireBearerToken(authenticates)
        .fanOut(DemoTable.FAN_OUT)
        .tasksLatency(latency);
    long started = System.nanoTime();
    // filled before it starts: should filling fail, there is no server to stop
    DemoTable.create(demo, files);
    DemoCustomers.create(demo);
    long filled = System.nanoTime() - started;
    boolean callers = plansAsCallers(environment);
    // planning as the callers, the catalog tells them apart: it knows the demo's users and the application
    Map<String, Object> properties = new HashMap<>(callers ? DemoCallers.define(demo, environment) : Map.of());
    demo.start();
    this.started = new Started(demo, latency);
    String planned = StringUtils.hasText(settings.table()) ? settings.table().strip() : DEMO_TABLE;
    properties.put("iceberg.rest.uri", demo.uri());
    properties.put("example.table", planned);
    environment.getPropertySources().addFirst(new MapPropertySource("demoCatalog", properties));
    logger.info(String.format("No iceberg.rest.uri configured: planning against an embedded Apache Iceberg "
        + "catalog at %s, its table %s filled with %,d data files of %,d rows, and the governed %s, in %,d ms",
        demo.uri(), DEMO_TABLE, files, DemoTable.rows(files), DemoCustomers.NAME, filled / 1_000_000));
    if (callers) {
      logger.info(String.format("iceberg.rest.identity is caller: the catalog knows the demo callers %s, served %s "
          + "restricted, and %s, served it in full; the application's own identity only checks its health",
          DemoCallers.ALICE, DemoCustomers.NAME, DemoCallers.BOB));
    }
  }

  /** Whether {@code iceberg.rest.identity} is {@code caller}, in any form Spring Boot binds to it. */
  static boolean plansAsCallers(Environment environment) {
    return Binder.get(environment).bind("iceberg.rest.identity", IcebergRestProperties.Identity.class)
        .map(IcebergRestProperties.Identity.CALLER::equals).orElse(false);
  }

  private void stop() {
    if (this.started != null) {
      this.started.catalog().close();
      this.started = null;
    }
  }

  /**
   * The {@code example.*} settings, bound as the application binds them, and as strictly: an unknown setting fails
   * here already, with Spring Boot's report naming it, before the demo table is filled.
   */
  private static ExampleProperties bind(ConfigurableEnvironment environment) {
    return Binder.get(environment).bindOrCreate("example", Bindable.of(ExampleProperties.class),
        new NoUnboundElementsBindHandler(BindHandler.DEFAULT));
  }

  private static void check(ExampleProperties settings) {
    if (settings.warmUpPlans() < 0) {
      throw new ExampleSettingException("example.warm-up-plans", "example.warm-up-plans is "
          + settings.warmUpPlans() + ": a number of plans cannot be negative.",
          "Set example.warm-up-plans to 0 (measure the first, cold plan) or more (default "
              + ExampleProperties.DEFAULT_WARM_UP_PLANS + "), or remove it.");
    }
  }

  /**
   * The code Spring AOT generates at build time has the beans of the identity the build processed it with, the
   * default's: planning as the callers needs beans it lacks (the planner would fail, naming a missing bean).
   */
  private static void checkIdentity(Environment environment) {
    if (AotDetector.useGeneratedArtifacts() && plansAsCallers(environment)) {
      throw new ExampleSettingException("iceberg.rest.identity", "iceberg.rest.identity is caller, but the "
          + "application runs from the code Spring AOT generated at build time (spring.aot.enabled), which holds the "
          + "beans of the default iceberg.rest.identity=service only: those that find each call's caller are not "
          + "among them.", "Start the application without -Dspring.aot.enabled=true to plan as the callers (the "
          + "callers profile), or remove iceberg.rest.identity=caller.");
    }
  }

  private static void checkOwnCatalog(ExampleProperties settings, @Nullable String uri) {
    if (!StringUtils.hasText(settings.table())) {
      throw new ExampleSettingException("example.table", "example.table is not set: iceberg.rest.uri points to a "
          + "catalog of your own (" + uri + "), and the example does not know which of its tables to plan.",
          "Name the table to plan as namespace.table: --example.table=sales.orders on the command line, or "
              + "example.table in application.yml; or remove iceberg.rest.uri to plan the embedded demo table.");
    }
    try {
      TableIdentifier.parse(settings.table());
    }
    catch (IllegalArgumentException notATable) {
      throw new ExampleSettingException("example.table", "example.table is '" + settings.table() + "': "
          + notATable.getMessage() + ".", "Name the table to plan as namespace.table, e.g. sales.orders.");
    }
    List<String> demoSettings = new ArrayList<>();
    if (settings.demo().files() != null) {
      demoSettings.add("example.demo.files");
    }
    if (settings.demo().latencyMs() != null) {
      demoSettings.add("example.demo.latency-ms");
    }
    if (!demoSettings.isEmpty()) {
      logger.warn(String.join(" and ", demoSettings) + (demoSettings.size() == 1 ? " is" : " are") + " set, but "
          + "iceberg.rest.uri points to a catalog of your own (" + uri + "): the demo settings configure the "
          + "embedded demo catalog, which is not started, and do not apply. Remove them, or iceberg.rest.uri to "
          + "plan the demo table.");
    }
  }

  private static void checkDemo(ExampleProperties settings) {
    String table = settings.table();
    if (StringUtils.hasText(table) && !DEMO_TABLE.equals(table.strip())
        && !DemoCustomers.NAME.equals(table.strip())) {
      throw new ExampleSettingException("example.table", "example.table is '" + table + "', but no "
          + "iceberg.rest.uri is set: the example plans on its embedded demo catalog, whose tables are "
          + DEMO_TABLE + " and the governed " + DemoCustomers.NAME + ".",
          "To plan " + table + ", set iceberg.rest.uri to the base URI of the catalog that holds it (the part "
              + "before /v1/...), e.g. --iceberg.rest.uri=https://your-catalog/api/catalog; to plan the demo "
              + "table, remove example.table.");
    }
    int files = settings.demo().dataFiles();
    if (files < DemoTable.MIN_FILES) {
      throw new ExampleSettingException("example.demo.files", "example.demo.files is " + files + ": the demo "
          + "table needs at least " + DemoTable.MIN_FILES + " data files, for each of its deletes to have the file it "
          + "deletes from.",
          "Set example.demo.files to " + DemoTable.MIN_FILES + " or more (default " + DemoTable.DEFAULT_FILES
              + "), or remove it.");
    }
    if (settings.demo().tasksLatency().isNegative()) {
      throw new ExampleSettingException("example.demo.latency-ms", "example.demo.latency-ms is "
          + settings.demo().latencyMs() + ": a delay cannot be negative.",
          "Set example.demo.latency-ms to 0 or more (default " + ExampleProperties.Demo.DEFAULT_LATENCY_MS
              + "), or remove it.");
    }
  }
}
