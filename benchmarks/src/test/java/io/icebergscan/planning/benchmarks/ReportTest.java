package io.icebergscan.planning.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ReportTest {

  /** One JMH result as {@code -rf json} writes it: µs or ms per operation, iterations in {@code rawData}. */
  /** {@code result} with {@code ClientCost}'s counters added to its secondary results. */
  private static String withCost(String result, long cpuNanos, long allocatedBytes, long operations) {
    return result.replace("\"secondaryMetrics\":{", "\"secondaryMetrics\":{\"clientCpuNanos\":{\"score\":" + cpuNanos
        + "},\"clientAllocatedBytes\":{\"score\":" + allocatedBytes + "},\"operations\":{\"score\":" + operations
        + "},");
  }

  private static String result(String benchmark, String params, double... iterations) {
    StringBuilder raw = new StringBuilder();
    double sum = 0;
    for (double value : iterations) {
      raw.append(raw.length() == 0 ? "" : ",").append(value);
      sum += value;
    }
    return "{\"benchmark\":\"io.icebergscan.planning.benchmarks." + benchmark + "\",\"jdkVersion\":\"17.0.15\","
        + "\"vmName\":\"OpenJDK 64-Bit Server VM\",\"params\":{" + params + "},\"primaryMetric\":{\"score\":"
        + sum / iterations.length + ",\"scoreError\":1.0,\"scoreUnit\":\"ms/op\",\"rawData\":[[" + raw + "]]},"
        + "\"secondaryMetrics\":{\"gc.alloc.rate.norm\":{\"score\":65536.0}}}";
  }

  @Test
  void rewritesTheSuiteSectionOfTheDocsWithRatiosToTheIdealAndTheFloorAndDrawsTheCharts(@TempDir Path dir)
      throws Exception {
    Path json = dir.resolve("flat.json");
    String flat = "\"handles\":\"64\",\"limit\":\"8\",\"latencyMillis\":\"10\"";
    String against = "\"shape\":\"flat-64\",\"workers\":\"8\",\"latencyMillis\":\"10\"";
    String perFetch = "\"handles\":\"16\",\"latencyMillis\":\"10\",\"primeOps\":\"3000\"";
    Files.writeString(json, "[" + String.join(",",
        result("FlatFanOut.plan", flat, 90, 88, 92),
        result("FlatFanOut.floor", flat, 81, 82, 83),
        result("FlatFanOut.netty", flat, 86, 86, 86),
        result("PerFetchOverhead.fetch", "\"client\":\"socket\"," + perFetch, 165_100, 165_100, 165_100),
        result("PerFetchOverhead.fetch", "\"client\":\"planner\"," + perFetch, 177_000, 177_000, 177_000),
        // tree-1-8-64 at limit 64: every handle of a level in flight at once, so the tier-barrier ideal is the
        // work-conserving one (110 ms); chain-16x4 at limit 8: 270 against 460 ms
        result("UnevenTree.plan", "\"shape\":\"tree-1-8-64\",\"limit\":\"64\"", 116, 116, 116),
        result("UnevenTree.plan", "\"shape\":\"tree-1-8-64\",\"limit\":\"4\"", 320, 320, 320),
        result("UnevenTree.plan", "\"shape\":\"chain-16x4\",\"limit\":\"8\"", 285, 285, 285),
        // a result from before the server parameter (the embedded catalog), and a pair on the plain catalog
        result("AgainstIceberg.plan", against + ",\"client\":\"ours\"", 100, 100, 100),
        result("AgainstIceberg.plan", against + ",\"client\":\"iceberg\"", 120, 120, 120),
        result("AgainstIceberg.plan", against + ",\"client\":\"ours\",\"server\":\"plain\"", 90, 90, 90),
        result("AgainstIceberg.plan", against + ",\"client\":\"iceberg\",\"server\":\"plain\"", 99, 99, 99),
        // pinned, with the client's costs: 10 plans of 65 requests each
        withCost(result("AgainstIceberg.plan", against + ",\"client\":\"ours\",\"setup\":\"pinned\"", 95, 95, 95),
            13_000_000, 10 * 65 * 16 * 1024, 10),
        withCost(result("AgainstIceberg.plan", against + ",\"client\":\"iceberg\",\"setup\":\"pinned\"", 95, 95, 95),
            26_000_000, 10 * 65 * 8 * 1024, 10))
        + "]");
    Path memory = dir.resolve("memory-stream.txt");
    Files.writeString(memory, "noise\nmode=stream handles=2000 peakHeapUsedMiB=70.1 outcome=completed\n");
    Path load = dir.resolve("load.txt");
    Files.writeString(load, "1 0.50\n2 1.50\n3 1.00\n");
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, "# Benchmarks\n\nprose before\n\n" + Report.BEGIN + "\nstale figures\n" + Report.END
        + "\n\nprose after\n" + Report.READ_BEGIN + "\nreading as it was\n" + Report.READ_END + "\n");

    Report.main(new String[] { "--docs", docs.toString(), "--charts", dir.resolve("images").toString(), "--load",
        load.toString(), "--commit", "abc1234", json.toString(), memory.toString() });

    String text = Files.readString(docs);
    assertThat(text).startsWith("# Benchmarks\n\nprose before\n\n" + Report.BEGIN).endsWith(Report.END
        + "\n\nprose after\n" + Report.READ_BEGIN + "\nreading as it was\n" + Report.READ_END + "\n")
        .doesNotContain("stale figures")
        .contains("at `abc1234`", "load average 0.50 to 1.50, median 1.00 (3 samples")
        // ideal: ceil(64 / 8) x 10 ms = 80 ms; medians 90 and 82
        .contains("| 64 | 10 | 8 | 80.0 | 90.0 (88.0 to 92.0) | 86.0 (86.0 to 86.0) | 82.0 (81.0 to 83.0) | 1.13 | 1.08 "
            + "| 1.03 | 1.10 | 1.05 | 1406 | 1.00 |")
        // (177,000 - 16 x 10,000) / 17 = 1,000 µs; the floor (165,100 - 160,000) / 17 = 300 µs
        .contains("| the planner, limit 1 | 1000 (1000 to 1000) | 700 |")
        .contains("| tree-1-8-64 | 64 | 116 ± 1.00 | 110 | 1.05 | 110 | 1.05 | met (the barrier costs nothing here) |")
        // within 1.15 of the ideal of 290 ms, but slower than the barrier's 310
        .contains("| tree-1-8-64 | 4 | 320 ± 1.00 | 290 | 1.10 | 310 | 1.03 | missed |")
        .contains("| chain-16x4 | 8 | 285 ± 1.00 | 270 | 1.06 | 460 | 0.62 | met |")
        // ideal: 8 rounds of 10 ms on 8 workers
        .contains("| flat-64 | embedded | shared | 8 | 80.0 | 100 (100 to 100) | 120 (120 to 120) | 1.25 | 1.50 | 1.20 "
            + "|  /  |  /  |")
        .contains("| flat-64 | plain | shared | 8 | 80.0 | 90.0 (90.0 to 90.0) | 99.0 (99.0 to 99.0) | 1.13 | 1.24 | 1.10 "
            + "|  /  |  /  |")
        // per request: 13 ms over 10 plans of 65 requests is 20 µs; 10,649,600 bytes 16 KiB
        .contains("| flat-64 | embedded | pinned | 8 | 80.0 | 95.0 (95.0 to 95.0) | 95.0 (95.0 to 95.0) | 1.19 | 1.19 | 1.00 "
            + "| 20.0 / 40.0 | 16.0 / 8.00 |")
        .contains("mode=stream handles=2000 peakHeapUsedMiB=70.1 outcome=completed").doesNotContain("noise")
        .contains("![Ratio to the ideal against the concurrency limit](images/flat-ratio-to-ideal.png)");
    for (String chart : new String[] { "flat-ratio-to-ideal.png", "per-fetch-overhead.png", "against-iceberg.png" }) {
      byte[] png = Files.readAllBytes(dir.resolve("images").resolve(chart));
      assertThat(png).as(chart).hasSizeGreaterThan(1000).startsWith(0x89, 'P', 'N', 'G');
    }
  }

  @Test
  void planAndReadIsSetAgainstIcebergAndTheIdealPerRowAndFirstRow(@TempDir Path dir) throws Exception {
    Path json = dir.resolve("read.json");
    String demo = "\"table\":\"demo\",\"catalogLatencyMillis\":\"10\",\"storageLatencyMillis\":\"10\","
        + "\"workers\":\"8\",\"files\":\"2000\",\"parquetFiles\":\"64\",\"parquetRows\":\"50000\"";
    String cpu = ",\"clientCpuNanos\":{\"score\":7990000000.0},\"operations\":{\"score\":10.0}}}";
    Files.writeString(json, "[" + String.join(",",
        result("PlanAndRead.ours", demo + ",\"readConcurrency\":\"16\"", 1500, 1500, 1500).replace("}}}", "}" + cpu),
        result("PlanAndRead.oursPlanned", demo + ",\"readConcurrency\":\"16\"", 1600, 1600, 1600),
        // no latency at all: no ideal to divide by
        result("PlanAndRead.ours", demo.replace("\"10\"", "\"0\"") + ",\"readConcurrency\":\"1\"", 250, 250, 250),
        // Iceberg's client reads one task at a time: its run's read concurrency is whichever it ran at
        result("PlanAndRead.iceberg", demo + ",\"readConcurrency\":\"1\"", 22_500, 22_500, 22_500),
        result("PlanAndRead.oursPlanOnly", demo + ",\"readConcurrency\":\"16\"", 120, 120, 120).replace("}}}", "}" + cpu),
        result("PlanAndRead.oursFirstRow", demo + ",\"readConcurrency\":\"16\"", 15, 15, 15),
        result("PlanAndRead.icebergFirstRow", demo + ",\"readConcurrency\":\"16\"", 300, 300, 300)) + "]");
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, Report.BEGIN + "\nplanning as it was\n" + Report.END + "\n" + Report.READ_BEGIN + "\n"
        + Report.READ_END + "\n");
    Report.main(new String[] { "--docs", docs.toString(), json.toString() });
    assertThat(Files.readString(docs)).as("a run of the read parts leaves the planning section as it was")
        .contains(Report.BEGIN + "\nplanning as it was\n" + Report.END);
    // ideal: ceil(2000 / 16) x 10 ms = 1,250 ms of storage, and the demo tree's 8 -> 4 -> 2 at 10 ms on 8 workers,
    // 1 + 4 + 8 rounds of 10 ms: 1,380 ms; 7,990 rows in 1.5 s; 799 ms of client CPU per operation over 7,990 rows
    // is 100 µs a row; 65,536 bytes an operation
    assertThat(Files.readString(docs))
        .contains("| demo | 10 | 10 | 16 | 1500 (1500 to 1500) |  | 1600 (1600 to 1600) | 22500 (22500 to 22500) "
            + "| 15.0 | 1.09 | 5327 | 100 /  | 8.20 / 8.20 |")
        .contains("| demo | 0 | 0 | 1 | 250 (250 to 250) |  |  |  |  | n/a | 31960 |")
        .contains("| demo | 10 | 10 | 16 | 15.0 (15.0 to 15.0) | 300 (300 to 300) | 0.050 |")
        // 7,990 ms of CPU over 10 operations
        .contains("| oursPlanOnly | demo | 10 | 10 | 16 | 120 (120 to 120) | 799 |");
  }

  @Test
  void namesTheRunOfEachPartWhenThePartsRanApart(@TempDir Path dir) throws Exception {
    Path runs = dir.resolve("runs.txt");
    Files.writeString(runs, "plancall 2026-12-01 aaa1111\nflat64 2026-12-01 aaa1111\n");
    String together = Files.readString(runs);
    Files.writeString(runs, together + "iceberg 2026-12-02 bbb2222\n");
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, Report.BEGIN + "\n" + Report.END + "\n");
    Report.main(new String[] { "--docs", docs.toString(), "--runs", runs.toString() });
    assertThat(Files.readString(docs)).contains("Run of 2026-12-02 at `bbb2222`", "in parts: plancall, flat64 on "
        + "2026-12-01 at `aaa1111`; iceberg on 2026-12-02 at `bbb2222`");
    Files.writeString(runs, together);
    Report.main(new String[] { "--docs", docs.toString(), "--runs", runs.toString() });
    assertThat(Files.readString(docs)).contains("Run of 2026-12-01 at `aaa1111` on").doesNotContain("in parts");
  }

  @Test
  void refusesDocsWithoutTheSuiteSection(@TempDir Path dir) throws Exception {
    Path docs = dir.resolve("benchmarks.md");
    Files.writeString(docs, "# Benchmarks\n");
    assertThatThrownBy(() -> Report.main(new String[] { "--docs", docs.toString() }))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("suite:begin");
    assertThat(Files.readString(docs)).isEqualTo("# Benchmarks\n");
  }
}
