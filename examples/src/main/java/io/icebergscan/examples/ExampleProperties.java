package io.icebergscan.examples;

import java.time.Duration;

import io.icebergscan.planning.test.DemoTable;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The example's settings, {@code example.*}. An unknown one fails start-up: a misspelt setting would otherwise be
 * ignored without a word. {@link DemoCatalog} checks that each setting applies to the catalog planned.
 *
 * @param table the table to plan, as namespace.table. Required with iceberg.rest.uri; without it, the embedded
 *     demo catalog's only table, demo.events
 * @param filter a row filter as the REST spec's expression JSON, e.g.
 *     {"type":"eq","term":"day","value":"2026-11-04"}
 * @param read whether to read the planned rows, with deletes applied (false: plan only, e.g. for a catalog whose
 *     files this application cannot open)
 * @param warmUpPlans how many plans, each read too unless read is false, run before the measured plan and read, so
 *     that their figures are those of a warm JVM rather than of class loading and JIT compilation
 * @param demo the embedded demo catalog, started when no iceberg.rest.uri is set
 */
@ConfigurationProperties(prefix = "example", ignoreUnknownFields = false)
record ExampleProperties(@Nullable String table, @Nullable String filter, @DefaultValue("true") boolean read,
    @DefaultValue(DEFAULT_WARM_UP_PLANS) int warmUpPlans, @DefaultValue Demo demo) {

  /**
   * Measured on the demo table (2,000 files, 10 ms a fetch, 16 in flight) on 2 vCPUs shared with other builds, in
   * three runs of 50 plans, each read: the median plan time fell from 604 ms for the first to 391 ms over plans 1 to
   * 5, 223 over 6 to 10 and 173 over 11 to 15, then stayed between 149 and 185 ms; the time to the first row levelled
   * off at 40 to 50 ms after 10 plans; the read time kept falling slowly, from 555 ms over the first 5 to 246 over 16
   * to 20 and about 210 over 41 to 50. So 20: the plan time flat, the read within a fifth of where it ends, for some
   * 10 s more of start-up.
   */
  static final String DEFAULT_WARM_UP_PLANS = "20";

  /**
   * The embedded demo catalog's settings, unset unless given: when a catalog of your own is planned, those given do
   * not apply, and the example says so.
   *
   * @param files how many data files demo.events has (default 2000, at least 16)
   * @param latencyMs the delay of each /tasks answer in milliseconds, which the printed ideal is computed for
   *     (default 10)
   */
  record Demo(@Nullable Integer files, @Nullable Integer latencyMs) {

    static final int DEFAULT_LATENCY_MS = 10;

    /** The data files of the demo table. */
    int dataFiles() {
      return this.files == null ? DemoTable.DEFAULT_FILES : this.files;
    }

    /** The delay of each {@code /tasks} answer. */
    Duration tasksLatency() {
      return Duration.ofMillis(this.latencyMs == null ? DEFAULT_LATENCY_MS : this.latencyMs);
    }
  }
}
