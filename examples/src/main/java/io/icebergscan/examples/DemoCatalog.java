package io.icebergscan.examples;

import java.time.Duration;
import java.util.Map;

import io.icebergscan.planning.test.DemoTable;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.boot.context.event.ApplicationPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * When no catalog is configured, starts Apache Iceberg's REST catalog in this JVM with the demo table
 * ({@link DemoTable}: real rows, deletion vectors and equality deletes) whose plan fans out over a tree of
 * plan-tasks, points {@code iceberg.rest.uri} at it before the planner is configured, and hands it to the
 * application as a {@link Started} bean, whose time answering plans the example measures. Closed with the
 * application. Registered in {@code META-INF/spring.factories}, so tests of the application get it too.
 */
public final class DemoCatalog implements SmartApplicationListener {

  static final String DEMO_TABLE = DemoTable.NAME;

  /** The demo catalog's delay before each {@code /tasks} answer, in milliseconds. */
  static final String LATENCY_MS = "example.demo.latency-ms";

  static final int DEFAULT_LATENCY_MS = 10;

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
    if (StringUtils.hasText(environment.getProperty("iceberg.rest.uri"))) {
      return;
    }
    if (Boolean.getBoolean(AOT_PROCESSING)) {
      // Spring AOT decides the beans at build time: a catalog is configured, the one started at run time
      environment.getPropertySources().addFirst(new MapPropertySource("demoCatalog",
          Map.of("iceberg.rest.uri", "http://localhost/started-at-run-time", "example.table", DEMO_TABLE)));
      return;
    }
    // An application set up to authenticate meets a catalog that insists, as a real one would.
    boolean authenticates = environment.containsProperty("iceberg.rest.oauth2.client-id")
        || environment.containsProperty("iceberg.rest.token");
    int files = environment.getProperty("example.demo.files", Integer.class, DemoTable.DEFAULT_FILES);
    Duration latency = Duration.ofMillis(environment.getProperty(LATENCY_MS, Integer.class, DEFAULT_LATENCY_MS));
    EmbeddedIcebergCatalog demo = EmbeddedIcebergCatalog.create()
        .requireBearerToken(authenticates)
        .fanOut(DemoTable.FAN_OUT)
        .tasksLatency(latency);
    long started = System.nanoTime();
    // filled before it starts: should filling fail, there is no server to stop
    DemoTable.create(demo, files);
    long filled = System.nanoTime() - started;
    demo.start();
    this.started = new Started(demo, latency);
    environment.getPropertySources().addFirst(new MapPropertySource("demoCatalog",
        Map.of("iceberg.rest.uri", demo.uri(), "example.table", DEMO_TABLE)));
    logger.info(String.format("No iceberg.rest.uri configured: planning against an embedded Apache Iceberg "
        + "catalog at %s, its table %s filled with %,d data files of %,d rows in %,d ms", demo.uri(), DEMO_TABLE,
        files, DemoTable.rows(files), filled / 1_000_000));
  }

  private void stop() {
    if (this.started != null) {
      this.started.catalog().close();
      this.started = null;
    }
  }
}
