package io.icebergscan.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.types.Types;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * When no catalog is configured, starts Apache Iceberg's REST catalog in this JVM with a demo table
 * whose plan fans out over a tree of plan-tasks, and points {@code iceberg.rest.uri} at it before the
 * planner is configured. Closed with the application. Registered in {@code META-INF/spring.factories},
 * so tests of the application get it too.
 */
public final class DemoCatalog implements SmartApplicationListener {

  static final String DEMO_TABLE = "demo.events";

  /** Set while Spring AOT processes the application at build time ({@code AbstractAotProcessor}). */
  private static final String AOT_PROCESSING = "spring.aot.processing";

  private static final Log logger = LogFactory.getLog(DemoCatalog.class);

  private @Nullable EmbeddedIcebergCatalog catalog;

  @Override
  public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
    return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
        || ContextClosedEvent.class.isAssignableFrom(eventType);
  }

  @Override
  public void onApplicationEvent(ApplicationEvent event) {
    if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
      start(prepared.getEnvironment());
    }
    else if (event instanceof ContextClosedEvent && this.catalog != null) {
      this.catalog.close();
      this.catalog = null;
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
    EmbeddedIcebergCatalog demo = EmbeddedIcebergCatalog.create()
        .requireBearerToken(authenticates)
        .fanOut(FanOut.levels(8, 4, 2))
        .tasksLatency(Duration.ofMillis(environment.getProperty("example.demo.latency-ms", Integer.class, 10)))
        .start();
    fill(demo, environment.getProperty("example.demo.files", Integer.class, 2000));
    this.catalog = demo;
    environment.getPropertySources().addFirst(new MapPropertySource("demoCatalog",
        Map.of("iceberg.rest.uri", demo.uri(), "example.table", DEMO_TABLE)));
    logger.info("No iceberg.rest.uri configured: planning against an embedded Apache Iceberg catalog at "
        + demo.uri());
  }

  /** A partitioned v3 table with data in several snapshots, position and equality deletes and deletion vectors. */
  private static void fill(EmbeddedIcebergCatalog catalog, int files) {
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.required(2, "day", Types.StringType.get()),
        Types.NestedField.optional(3, "payload", Types.StringType.get()));
    PartitionSpec byDay = PartitionSpec.builderFor(schema).identity("day").build();
    EmbeddedTable table = catalog.createTable(TableIdentifier.of("demo", "events"), schema, byDay, 3);
    int days = 16;
    List<DataFile> firstOfEachDay = new ArrayList<>();
    for (int snapshot = 0; snapshot < 4; snapshot++) {
      List<DataFile> batch = new ArrayList<>();
      for (int i = snapshot; i < files; i += 4) {
        String day = "day=2026-11-" + String.format("%02d", 1 + i % days);
        DataFile file = table.dataFile("s3://demo/events/" + day + "/part-" + i + ".parquet", 10_000 + i)
            .withPartitionPath(day).build();
        batch.add(file);
        if (i < days) {
          firstOfEachDay.add(file);
        }
      }
      table.append(batch);
    }
    List<DeleteFile> deletes = new ArrayList<>(table.deletionVectors("s3://demo/events/deletes/dv-1.puffin")
        .vector(firstOfEachDay.get(0), 12).vector(firstOfEachDay.get(1), 7).vector(firstOfEachDay.get(2), 3)
        .build());
    deletes.add(table.equalityDeleteFile("s3://demo/events/day=2026-11-04/eq-0.parquet", 25, 1)
        .withPartitionPath("day=2026-11-04").build());
    table.rowDelta(List.of(), deletes);
  }
}
