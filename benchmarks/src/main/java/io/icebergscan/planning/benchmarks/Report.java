package io.icebergscan.planning.benchmarks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns JMH JSON results ({@code -rf json -rff x.json}) into markdown tables, with the ideals computed by
 * {@link IdealSchedule} from the same shapes and latencies the benchmarks used, the ratios to the floor client
 * timed in the same run, and ({@code --charts}) PNG charts drawn by {@link Charts}. {@code MemoryFootprint}'s
 * output lines ({@code memory-*.txt}) are reported as they are.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.Report plancall.json flat64.json ...
 * java -cp … Report --docs docs/benchmarks.md --charts docs/images --load load.txt --commit abc1234 *.json memory-*.txt
 * </pre>
 *
 * With {@code --docs} the tables replace what stands between the markers of their section in that file: planning
 * between {@value #BEGIN} and {@value #END}, plan and read ({@code PlanAndRead}, {@code ConvertTasks}, the
 * {@code read} parts, {@code memory-read-*.txt}) between {@value #READ_BEGIN} and {@value #READ_END}. A section
 * the results hold nothing for is left as it stands, so a partial run rewrites only its own ({@code
 * benchmarks/suite.sh} runs the suite and then this); without {@code --docs} the tables are printed.
 */
public final class Report {

  static final String BEGIN = "<!-- suite:begin (written by benchmarks/suite.sh; edit the prose outside) -->";
  static final String END = "<!-- suite:end -->";
  static final String READ_BEGIN = "<!-- suite:read:begin (written by benchmarks/suite.sh; edit the prose outside) -->";
  static final String READ_END = "<!-- suite:read:end -->";

  private static final double MS = 1_000_000.0;
  private static final ByteArrayOutputStream BUFFER = new ByteArrayOutputStream();
  private static final PrintStream OUT = new PrintStream(BUFFER, true, StandardCharsets.UTF_8);

  record Row(String benchmark, Map<String, String> params, double score, double error, String unit, double allocNorm,
      List<Double> iterations, String jdk, Map<String, Double> secondary) {

    String param(String name) {
      return this.params.get(name);
    }

    int intParam(String name) {
      return Integer.parseInt(this.params.get(name));
    }

    String measured() {
      return Double.isNaN(this.error) ? fmt(this.score) : fmt(this.score) + " ± " + fmt(this.error);
    }

    /** The median of the measurement iterations (all forks), or the score when the file has none. */
    double median() {
      if (this.iterations.isEmpty()) {
        return this.score;
      }
      List<Double> sorted = this.iterations.stream().sorted().toList();
      int n = sorted.size();
      return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** The median and the range of the iterations, divided by {@code per}: "median (min to max)". */
    String spread(double per) {
      if (this.iterations.isEmpty()) {
        return fmt(this.score / per);
      }
      double min = this.iterations.stream().mapToDouble(Double::doubleValue).min().getAsDouble();
      double max = this.iterations.stream().mapToDouble(Double::doubleValue).max().getAsDouble();
      return fmt(median() / per) + " (" + fmt(min / per) + " to " + fmt(max / per) + ")";
    }
  }

  private Report() {
  }

  public static void main(String[] args) throws IOException {
    BUFFER.reset();
    Path docs = null;
    Path charts = null;
    Path load = null;
    String commit = null;
    Path runs = null;
    List<Path> memory = new ArrayList<>();
    List<Row> rows = new ArrayList<>();
    JsonMapper mapper = JsonMapper.builder().build();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--docs" -> docs = Path.of(args[++i]);
        case "--charts" -> charts = Path.of(args[++i]);
        case "--load" -> load = Path.of(args[++i]);
        case "--commit" -> commit = args[++i];
        case "--runs" -> runs = Path.of(args[++i]);
        default -> {
          Path file = Path.of(args[i]);
          if (file.getFileName().toString().endsWith(".txt")) {
            memory.add(file);
          }
          else {
            rows.addAll(read(mapper, file));
          }
        }
      }
    }
    List<Row> reading = rows.stream().filter(Report::reading).toList();
    List<Row> planning = rows.stream().filter(r -> !reading(r)).toList();
    List<Path> readMemory = memory.stream().filter(f -> f.getFileName().toString().startsWith("memory-read-")).toList();
    List<Path> planMemory = memory.stream().filter(f -> !readMemory.contains(f)).toList();
    List<String> runLines = runs == null ? List.of() : Files.readAllLines(runs);
    List<String> readRuns = runLines.stream().filter(line -> line.startsWith("read")).toList();
    List<String> planRuns = runLines.stream().filter(line -> !readRuns.contains(line)).toList();
    boolean readSection = !reading.isEmpty() || !readMemory.isEmpty() || !readRuns.isEmpty();
    boolean planSection = !planning.isEmpty() || !planMemory.isEmpty() || !planRuns.isEmpty() || !readSection;

    header(planning, load, commit, runs == null ? null : planRuns);
    planCallAndTheRest(planning, charts);
    memory(planMemory);
    String planTables = section();
    header(reading, load, commit, runs == null ? null : readRuns);
    planAndRead(reading);
    convert(reading);
    memory(readMemory);
    String readTables = section();
    if (docs == null) {
      System.out.print((planSection ? planTables : "") + (readSection ? readTables : ""));
      return;
    }
    String text = Files.readString(docs);
    if (planSection) {
      text = replace(docs, text, BEGIN, END, planTables);
    }
    if (readSection) {
      text = replace(docs, text, READ_BEGIN, READ_END, readTables);
    }
    Files.writeString(docs, text);
  }

  /** Results of the plan-and-read section: {@code PlanAndRead} and {@code ConvertTasks}. */
  private static boolean reading(Row r) {
    return r.benchmark().startsWith("PlanAndRead.") || r.benchmark().startsWith("ConvertTasks.");
  }

  /** What has been written since the last call. */
  private static String section() {
    String text = BUFFER.toString(StandardCharsets.UTF_8);
    BUFFER.reset();
    return text;
  }

  private static String replace(Path docs, String text, String begin, String end, String tables) {
    int from = text.indexOf(begin);
    int to = text.indexOf(end);
    if (from < 0 || to < from) {
      throw new IllegalArgumentException(docs + " has no " + begin + " … " + end + " section to replace");
    }
    return text.substring(0, from + begin.length()) + "\n\n" + tables + text.substring(to);
  }

  private static List<Row> read(JsonMapper mapper, Path file) {
    List<Row> rows = new ArrayList<>();
    for (JsonNode result : mapper.readTree(file.toFile())) {
      Map<String, String> params = new LinkedHashMap<>();
      JsonNode ps = result.get("params");
      if (ps != null) {
        ps.properties().forEach(e -> params.put(e.getKey(), e.getValue().asString()));
      }
      JsonNode primary = result.get("primaryMetric");
      double alloc = Double.NaN;
      Map<String, Double> others = new LinkedHashMap<>();
      JsonNode secondary = result.get("secondaryMetrics");
      if (secondary != null) {
        for (var e : secondary.properties()) {
          if (e.getKey().endsWith("gc.alloc.rate.norm")) {
            alloc = e.getValue().get("score").asDouble();
          }
          others.put(e.getKey(), e.getValue().get("score").asDouble());
        }
      }
      List<Double> iterations = new ArrayList<>();
      JsonNode raw = primary.get("rawData");
      if (raw != null) {
        raw.forEach(fork -> fork.forEach(value -> iterations.add(value.asDouble())));
      }
      String name = result.get("benchmark").asString();
      rows.add(new Row(name.substring(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1), params,
          primary.get("score").asDouble(), primary.get("scoreError").asDouble(Double.NaN),
          primary.get("scoreUnit").asString(), alloc, List.copyOf(iterations),
          result.path("vmName").asString("") + " " + result.path("jdkVersion").asString(""), Map.copyOf(others)));
    }
    return rows;
  }

  /**
   * When, where, at which commit, and how loaded the machine was while the suite ran. {@code runs} has a line per
   * part, {@code part date commit}, the latest last: the header names the latest run, and when the parts ran apart,
   * which ran in each.
   */
  private static void header(List<Row> rows, @Nullable Path load, @Nullable String commit,
      @Nullable List<String> runs) throws IOException {
    if (load == null && commit == null && runs == null) {
      return;
    }
    Map<String, List<String>> partsByRun = new LinkedHashMap<>();
    String when = LocalDate.now() + (commit != null ? " at `" + commit + "`" : "");
    if (runs != null) {
      for (String line : runs) {
        String[] cells = line.trim().split("\\s+");
        if (cells.length == 3) {
          when = cells[1] + " at `" + cells[2] + "`";
          partsByRun.computeIfAbsent(when, run -> new ArrayList<>()).add(cells[0]);
        }
      }
    }
    OUT.printf(Locale.ROOT, "Run of %s on %d vCPUs, %s, JMH 1.37", when, Runtime.getRuntime().availableProcessors(),
        rows.isEmpty() ? Runtime.version() : rows.get(0).jdk().trim());
    if (partsByRun.size() > 1) {
      List<String> each = new ArrayList<>();
      partsByRun.forEach((run, parts) -> each.add(String.join(", ", parts) + " on " + run));
      OUT.print(" (in parts: " + String.join("; ", each) + ")");
    }
    if (load != null) {
      List<Double> samples = Files.readAllLines(load).stream().filter(line -> !line.isBlank())
          .map(line -> Double.parseDouble(line.trim().split("\\s+")[1])).sorted().toList();
      if (!samples.isEmpty()) {
        OUT.printf(Locale.ROOT, "; one-minute load average %s to %s, median %s (%d samples, every 10 s)",
            fmt(samples.get(0)), fmt(samples.get(samples.size() - 1)), fmt(samples.get(samples.size() / 2)),
            samples.size());
      }
    }
    OUT.println(". Figures are medians of the measurement iterations with their range; ratios are of medians.");
    OUT.println();
  }

  private static void planCallAndTheRest(List<Row> rows, @Nullable Path charts) throws IOException {
    double planCall = rows.stream().filter(r -> r.benchmark().startsWith("PlanCall.")).mapToDouble(Row::score)
        .findFirst().orElse(0);
    if (rows.stream().anyMatch(r -> r.benchmark().startsWith("PlanCall."))) {
      OUT.printf(Locale.ROOT, "Plan call (no plan-task, same server): %s ms; added to every ideal.%n%n",
          fmt(planCall));
    }
    perFetch(rows, charts);
    flat(rows, planCall, charts);
    uneven(rows, planCall);
    againstIceberg(rows, charts);
    parse(rows);
  }

  /** {@code PerFetchOverhead}: µs per request above the latency, each client next to the floor of the same run. */
  private static void perFetch(List<Row> rows, @Nullable Path charts) throws IOException {
    List<Row> runs = rows.stream().filter(r -> r.benchmark().startsWith("PerFetchOverhead.")).toList();
    if (runs.isEmpty()) {
      return;
    }
    List<String> clients = runs.stream().map(r -> r.param("client")).distinct().toList();
    List<String> latencies = runs.stream().map(r -> r.param("latencyMillis")).distinct().toList();
    OUT.println("Per-fetch overhead (`PerFetchOverhead`): µs per request above the latency, "
        + "(time - handles x latency) / (handles + 1), and the difference to the floor client of the same run.");
    OUT.println();
    OUT.print("| client |");
    latencies.forEach(latency -> OUT.print(" " + latency + " ms: µs above latency | above the floor |"));
    OUT.println();
    OUT.print("|---|");
    latencies.forEach(latency -> OUT.print("---:|---:|"));
    OUT.println();
    Map<String, List<Double>> chart = new LinkedHashMap<>();
    for (String latency : latencies) {
      chart.put(latency + " ms", new ArrayList<>());
    }
    List<String> labels = new ArrayList<>();
    for (String client : clients) {
      String label = switch (client) {
        case "socket" -> "raw socket (the floor)";
        case "netty" -> "Reactor Netty HttpClient";
        case "webclient" -> "WebClient";
        case "catalogclient" -> "the planner's CatalogClient";
        case "planner" -> "the planner, limit 1";
        default -> client;
      };
      labels.add(label);
      OUT.print("| " + label + " |");
      for (String latency : latencies) {
        Row r = find(runs, client, latency);
        Row floor = find(runs, "socket", latency);
        double over = r == null ? Double.NaN : overhead(r);
        OUT.print(" " + (r == null ? "n/a" : overheadSpread(r)) + " | "
            + (floor == null || r == null ? "n/a" : fmt(over - overhead(floor))) + " |");
        chart.get(latency + " ms").add(over);
      }
      OUT.println();
    }
    OUT.println();
    if (charts != null) {
      Charts.bars(charts.resolve("per-fetch-overhead.png"), "Overhead per request, next to the floor (raw socket)",
          "µs per request above the latency", labels, chart);
      OUT.println("![Overhead per request by client](images/per-fetch-overhead.png)");
      OUT.println();
    }
  }

  private static @Nullable Row find(List<Row> runs, String client, String latency) {
    return runs.stream().filter(r -> r.param("client").equals(client) && r.param("latencyMillis").equals(latency))
        .findFirst().orElse(null);
  }

  /** µs above the latency per request, from the median µs per operation. */
  private static double overhead(Row r) {
    return overhead(r, r.median());
  }

  private static double overhead(Row r, double microsPerOp) {
    int handles = r.intParam("handles");
    return (microsPerOp - handles * r.intParam("latencyMillis") * 1000.0) / (handles + 1);
  }

  private static String overheadSpread(Row r) {
    double min = r.iterations().stream().mapToDouble(Double::doubleValue).min().orElse(r.score());
    double max = r.iterations().stream().mapToDouble(Double::doubleValue).max().orElse(r.score());
    return fmt(overhead(r)) + " (" + fmt(overhead(r, min)) + " to " + fmt(overhead(r, max)) + ")";
  }

  /** {@code FlatFanOut}: the planner, Reactor Netty alone and the floor client of the same run, against the ideal. */
  private static void flat(List<Row> rows, double planCall, @Nullable Path charts) throws IOException {
    List<Row> plans = rows.stream().filter(r -> r.benchmark().equals("FlatFanOut.plan")).toList();
    if (plans.isEmpty()) {
      return;
    }
    OUT.println("Flat fan-out (`FlatFanOut`): the planner (`plan`), Reactor Netty's `HttpClient` alone (`netty`, "
        + "answers not parsed) and raw sockets (`floor`), `limit` requests at a time, in the same run. "
        + "Ideal: plan call + ceil(handles / limit) x latency.");
    OUT.println();
    OUT.println("| handles | latency ms | limit | ideal ms | planner ms/plan | Netty ms/plan | floor ms/plan "
        + "| planner / ideal | Netty / ideal | floor / ideal | planner / floor | Netty / floor "
        + "| planner µs per fetch | planner KiB allocated per fetch |");
    OUT.println("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    Map<String, List<double[]>> ratios = new LinkedHashMap<>();
    for (Row r : plans) {
      int n = r.intParam("handles");
      int c = r.intParam("limit");
      int latencyMillis = r.intParam("latencyMillis");
      Row netty = sameRun(rows, "FlatFanOut.netty", r);
      Row floor = sameRun(rows, "FlatFanOut.floor", r);
      double ideal = planCall + IdealSchedule.flat(n, c, latencyMillis * 1_000_000L) / MS;
      boolean latency = latencyMillis > 0;
      OUT.printf(Locale.ROOT, "| %d | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", n,
          latencyMillis, c, latency ? fmt(ideal) : "-", r.spread(1), netty == null ? "n/a" : netty.spread(1),
          floor == null ? "n/a" : floor.spread(1), ratio(latency, r, ideal), ratio(latency, netty, ideal),
          ratio(latency, floor, ideal), ratio(true, r, floor == null ? Double.NaN : floor.median()),
          ratio(true, netty, floor == null ? Double.NaN : floor.median()), fmt(r.median() * 1000 / n),
          fmt(r.allocNorm() / 1024 / n));
      if (latency) {
        for (Row series : new Row[] { r, netty, floor }) {
          if (series != null) {
            String client = switch (series.benchmark()) {
              case "FlatFanOut.plan" -> "planner";
              case "FlatFanOut.netty" -> "Reactor Netty";
              default -> "floor";
            };
            ratios.computeIfAbsent(client + ", " + n + " handles", k -> new ArrayList<>())
                .add(new double[] { c, series.median() / ideal });
          }
        }
      }
    }
    OUT.println();
    if (charts != null && !ratios.isEmpty()) {
      Charts.lines(charts.resolve("flat-ratio-to-ideal.png"), "Flat fan-out: ratio to the ideal",
          "concurrency limit", "time / ideal", ratios);
      OUT.println("![Ratio to the ideal against the concurrency limit](images/flat-ratio-to-ideal.png)");
      OUT.println();
    }
  }

  /** The result of {@code benchmark} with the same parameters as {@code of}, if the files hold one. */
  private static @Nullable Row sameRun(List<Row> rows, String benchmark, Row of) {
    return rows.stream().filter(r -> r.benchmark().equals(benchmark) && r.params().equals(of.params())).findFirst()
        .orElse(null);
  }

  private static String ratio(boolean meaningful, @Nullable Row r, double to) {
    return meaningful && r != null && !Double.isNaN(to) ? fmt(r.median() / to) : "-";
  }

  private static void uneven(List<Row> rows, double planCall) {
    List<Row> uneven = rows.stream().filter(r -> r.benchmark().startsWith("UnevenTree.")).toList();
    if (uneven.isEmpty()) {
      return;
    }
    OUT.println("| shape | limit | measured ms/plan | work-conserving ideal ms | ratio | tier-barrier ideal ms | ratio | target <= 1.15 and below the barrier |");
    OUT.println("|---|---:|---:|---:|---:|---:|---:|:---:|");
    for (Row r : uneven) {
      PlanTree tree = UnevenTree.tree(r.param("shape"));
      int c = Integer.parseInt(r.param("limit"));
      double greedy = planCall + IdealSchedule.workConserving(tree, c) / MS;
      double barrier = planCall + IdealSchedule.tierBarrier(tree, c) / MS;
      double ratio = r.score() / greedy;
      OUT.printf(Locale.ROOT, "| %s | %d | %s | %s | %.2f | %s | %.2f | %s |%n", r.param("shape"), c, r.measured(),
          fmt(greedy), ratio, fmt(barrier), r.score() / barrier, target(ratio, r.score(), greedy, barrier));
    }
    OUT.println();
  }

  /**
   * Within 1.15 of the work-conserving ideal, and faster than a walk waiting for each level could be; where that
   * walk's ideal is the work-conserving one (a level's slowest handle is never waited for), only the first applies.
   */
  private static String target(double ratio, double measured, double greedy, double barrier) {
    if (ratio > 1.15) {
      return "missed";
    }
    if (measured < barrier) {
      return "met";
    }
    return barrier <= greedy ? "met (the barrier costs nothing here)" : "missed";
  }

  private static void againstIceberg(List<Row> rows, @Nullable Path charts) throws IOException {
    List<Row> against = rows.stream().filter(r -> r.benchmark().startsWith("AgainstIceberg.")).toList();
    if (against.isEmpty()) {
      return;
    }
    OUT.println("Against Apache Iceberg Java (`AgainstIceberg`): `RESTCatalog` with `scan-planning-mode=server` "
        + "and this planner, on the same server and fan-out, as many workers each. Servers: `embedded`, the test "
        + "module's `EmbeddedIcebergCatalog`; `plain`, `PlainFanOutCatalog` (Iceberg's adapter and servlet with a "
        + "fixed fan-out and nothing else). Setups: `shared`, the catalog in the benchmark's JVM, both on the 2 "
        + "vCPUs; `pinned`, a remote catalog's stand-in, the catalog in a process of its own on CPU 1 and the "
        + "client on CPU 0. The ideal is the `/tasks` requests alone at their latency on that many workers "
        + "(`IdealSchedule`), without the plan call. CPU and allocation are the client's (`ClientCost`: the "
        + "catalog's threads left out) per request of the plan (its plan call and its fetches).");
    OUT.println();
    OUT.println("| shape | server | setup | workers | ideal ms | this planner ms/plan | Iceberg ms/plan | ours / ideal "
        + "| Iceberg / ideal | Iceberg / ours | CPU µs/request, ours / Iceberg | KiB/request, ours / Iceberg |");
    OUT.println("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    List<String> categories = new ArrayList<>();
    Map<String, List<Double>> speedups = new LinkedHashMap<>();
    for (Row r : against) {
      if (!r.param("client").equals("ours")) {
        continue;
      }
      Row theirs = against.stream().filter(t -> t.param("client").equals("iceberg")
          && t.param("shape").equals(r.param("shape")) && t.param("workers").equals(r.param("workers"))
          && server(t).equals(server(r)) && setup(t).equals(setup(r))).findFirst().orElse(null);
      if (theirs == null) {
        continue;
      }
      PlanTree tree = AgainstIceberg.tree(r.param("shape"), r.intParam("latencyMillis"));
      double ideal = IdealSchedule.workConserving(tree, r.intParam("workers")) / MS;
      double ratio = theirs.median() / r.median();
      // the plan call and one fetch a handle
      int requests = tree.size() + 1;
      OUT.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %.2f | %s / %s | %s / %s |%n",
          r.param("shape"), server(r), setup(r), r.param("workers"), fmt(ideal), r.spread(1), theirs.spread(1),
          fmt(r.median() / ideal), fmt(theirs.median() / ideal), ratio,
          perRequest(r, "clientCpuNanos", requests * 1000.0), perRequest(theirs, "clientCpuNanos", requests * 1000.0),
          perRequest(r, "clientAllocatedBytes", requests * 1024.0),
          perRequest(theirs, "clientAllocatedBytes", requests * 1024.0));
      String category = r.param("workers") + " workers";
      if (!categories.contains(category)) {
        categories.add(category);
      }
      speedups.computeIfAbsent(r.param("shape") + ", " + server(r) + ", " + setup(r), k -> new ArrayList<>())
          .add(ratio);
    }
    OUT.println();
    if (charts != null && !categories.isEmpty()) {
      Charts.bars(charts.resolve("against-iceberg.png"), "Iceberg Java's time / this planner's (above 1: faster)",
          "Iceberg / ours", categories, speedups);
      OUT.println("![This planner against Iceberg Java for each shape](images/against-iceberg.png)");
      OUT.println();
    }
  }

  /** A {@link ClientCost} counter per operation, divided by {@code unit}; empty without the counters. */
  private static String perRequest(Row r, String counter, double unit) {
    double perOperation = perOperation(r, counter);
    return Double.isNaN(perOperation) ? "" : fmt(perOperation / unit);
  }

  /** The setup an {@code AgainstIceberg} result ran in; results from before the parameter ran shared. */
  private static String setup(Row r) {
    String setup = r.param("setup");
    return setup == null ? "shared" : setup;
  }

  /** The server an {@code AgainstIceberg} result ran on; results from before the parameter ran on the embedded one. */
  private static String server(Row r) {
    String server = r.param("server");
    return server == null ? "embedded" : server;
  }

  private static void parse(List<Row> rows) {
    List<Row> parse = rows.stream().filter(r -> r.benchmark().startsWith("ParseTasks.")).toList();
    if (parse.isEmpty()) {
      return;
    }
    OUT.println("| tasks per response | parser | ms/response | tasks/s | bytes allocated/task |");
    OUT.println("|---:|---|---:|---:|---:|");
    for (Row r : parse) {
      int tasks = Integer.parseInt(r.param("tasks"));
      String parser = r.benchmark().endsWith(".ours") ? "this planner (parse + validate + resolve deletes)"
          : "Iceberg FetchScanTasksResponseParser (+ validate)";
      OUT.printf(Locale.ROOT, "| %d | %s | %s | %,.0f | %s |%n", tasks, parser, r.measured(),
          tasks / (r.score() / 1000.0), fmt(r.allocNorm() / tasks));
    }
    OUT.println();
  }

  /**
   * {@code PlanAndRead}: plan and read against Apache Iceberg Java per table and latency, with the ideal (files ×
   * storage latency ÷ read concurrency, plus the plan's own ideal: the work-conserving schedule of its plan-task tree,
   * and the plan call), rows per second, and client CPU and allocation per row; then the time to the first row.
   */
  private static void planAndRead(List<Row> rows) {
    List<Row> runs = rows.stream().filter(r -> r.benchmark().startsWith("PlanAndRead.")).toList();
    if (runs.isEmpty()) {
      return;
    }
    OUT.println("Plan and read (`PlanAndRead`): load, plan and read every row, with deletes applied, against Apache "
        + "Iceberg Java (`RESTCatalog` + `IcebergGenerics`); `streamed` reads as the plan streams (`readRows`), "
        + "`unordered` the same with rows handed over as they are read, `planned` plans first (`plan` + `rows()`). The "
        + "ideal is files × storage latency ÷ read concurrency, plus the plan's ideal (n/a where both are 0).");
    OUT.println();
    OUT.println("| table | catalog ms | storage ms | read concurrency | streamed ms | unordered ms | planned ms "
        + "| Iceberg ms "
        + "| Iceberg / streamed | streamed / ideal | rows/s streamed | client CPU µs/row streamed / Iceberg "
        + "| bytes/row streamed / Iceberg |");
    OUT.println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (Row r : runs) {
      if (!r.benchmark().equals("PlanAndRead.ours")) {
        continue;
      }
      Row unordered = twin(runs, "PlanAndRead.oursUnordered", r, false);
      Row planned = twin(runs, "PlanAndRead.oursPlanned", r, false);
      Row theirs = twin(runs, "PlanAndRead.iceberg", r, true);
      long rowsRead = readRows(r);
      double ideal = planAndReadIdeal(r);
      OUT.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
          r.param("table"), r.param("catalogLatencyMillis"), r.param("storageLatencyMillis"),
          r.param("readConcurrency"), r.spread(1), unordered == null ? "" : unordered.spread(1),
          planned == null ? "" : planned.spread(1), theirs == null ? "" : theirs.spread(1),
          theirs == null ? "" : String.format(Locale.ROOT, "%.1f", theirs.median() / r.median()),
          ideal > 0 ? String.format(Locale.ROOT, "%.2f", r.median() / ideal) : "n/a", fmt(rowsRead / (r.median() / 1000.0)),
          perRow(r, theirs, rowsRead, true), perRow(r, theirs, rowsRead, false));
    }
    OUT.println();
    List<Row> layers = runs.stream().filter(r -> r.benchmark().endsWith("PlanOnly")
        || r.benchmark().endsWith("ReadOnly")).toList();
    if (!layers.isEmpty()) {
      OUT.println("| layer | table | catalog ms | storage ms | read concurrency | ms | client CPU ms |");
      OUT.println("|---|---|---:|---:|---:|---:|---:|");
      for (Row r : layers) {
        OUT.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", r.benchmark().substring("PlanAndRead.".length()),
            r.param("table"), r.param("catalogLatencyMillis"), r.param("storageLatencyMillis"),
            r.param("readConcurrency"), r.spread(1), Double.isNaN(cpuNanos(r)) ? "" : fmt(cpuNanos(r) / MS));
      }
      OUT.println();
    }
    List<Row> first = runs.stream().filter(r -> r.benchmark().equals("PlanAndRead.oursFirstRow")).toList();
    if (!first.isEmpty()) {
      OUT.println("| table | catalog ms | storage ms | read concurrency | time to the first row, ours ms | Iceberg ms "
          + "| ours / Iceberg |");
      OUT.println("|---|---:|---:|---:|---:|---:|---:|");
      for (Row r : first) {
        Row theirs = twin(runs, "PlanAndRead.icebergFirstRow", r, true);
        OUT.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s |%n", r.param("table"),
            r.param("catalogLatencyMillis"), r.param("storageLatencyMillis"), r.param("readConcurrency"),
            r.spread(1), theirs == null ? "" : theirs.spread(1),
            theirs == null ? "" : String.format(Locale.ROOT, "%.3f", r.median() / theirs.median()));
      }
      OUT.println();
    }
  }

  /**
   * The run of {@code benchmark} with {@code r}'s parameters; for Iceberg's client, whose reading does not take a read
   * concurrency, any read concurrency.
   */
  private static @Nullable Row twin(List<Row> runs, String benchmark, Row r, boolean anyConcurrency) {
    return runs.stream().filter(t -> t.benchmark().equals(benchmark) && t.params().entrySet().stream()
        .allMatch(e -> anyConcurrency && e.getKey().equals("readConcurrency") || e.getValue().equals(r.param(e.getKey()))))
        .findFirst().orElse(null);
  }

  /** The rows an operation reads: the demo table's live rows, or the Parquet table's. */
  static long readRows(Row r) {
    return r.param("table").equals("demo") ? io.icebergscan.planning.test.DemoTable.liveRows(r.intParam("files"))
        : (long) r.intParam("parquetFiles") * r.intParam("parquetRows");
  }

  /** Files × storage latency ÷ read concurrency (rounded up to whole rounds), plus the plan's own ideal, in ms. */
  static double planAndReadIdeal(Row r) {
    int files = r.param("table").equals("demo") ? r.intParam("files") : r.intParam("parquetFiles");
    int concurrency = r.intParam("readConcurrency");
    long storage = (long) ((files + concurrency - 1) / concurrency) * r.intParam("storageLatencyMillis");
    double plan = 0;
    if (r.param("table").equals("demo")) {
      long latency = r.intParam("catalogLatencyMillis") * 1_000_000L;
      plan = io.icebergscan.planning.test.DemoTable.FAN_OUT.idealNanos(r.intParam("workers"), handle -> latency)
          / MS;
    }
    return storage + plan;
  }

  /** Client CPU µs, or bytes allocated, per row: ours / Iceberg's. */
  private static String perRow(Row ours, @Nullable Row theirs, long rows, boolean cpu) {
    String mine = perRow(ours, rows, cpu);
    return theirs == null ? mine : mine + " / " + perRow(theirs, rows, cpu);
  }

  private static String perRow(Row r, long rows, boolean cpu) {
    if (!cpu) {
      return Double.isNaN(r.allocNorm()) ? "" : fmt(r.allocNorm() / rows);
    }
    return Double.isNaN(cpuNanos(r)) ? "" : fmt(cpuNanos(r) / 1000.0 / rows);
  }

  /** The client CPU time of one operation, from the {@code Cpu} counters, in ns; NaN without them. */
  private static double cpuNanos(Row r) {
    return perOperation(r, "clientCpuNanos");
  }

  /** A {@link ClientCost} counter divided by the operations it counted over; NaN without them. */
  private static double perOperation(Row r, String counter) {
    Double total = r.secondary().get(counter);
    Double operations = r.secondary().get("operations");
    return total == null || operations == null || operations == 0 ? Double.NaN : total / operations;
  }

  private static void convert(List<Row> rows) {
    List<Row> runs = rows.stream().filter(r -> r.benchmark().startsWith("ConvertTasks.")).toList();
    if (runs.isEmpty()) {
      return;
    }
    Map<String, Map<String, Row>> byTasks = new LinkedHashMap<>();
    for (Row r : runs) {
      byTasks.computeIfAbsent(r.param("tasks"), tasks -> new LinkedHashMap<>())
          .put(r.benchmark().substring("ConvertTasks.".length()), r);
    }
    OUT.println("| tasks per response | step | µs per task | bytes allocated/task |");
    OUT.println("|---:|---|---:|---:|");
    byTasks.forEach((tasks, steps) -> {
      int n = Integer.parseInt(tasks);
      for (String step : List.of("parse", "convert", "parseAndConvert", "iceberg")) {
        Row r = steps.get(step);
        if (r != null) {
          OUT.printf(Locale.ROOT, "| %d | %s | %s | %s |%n", n, step, r.spread(n), fmt(r.allocNorm() / n));
        }
      }
    });
    OUT.println();
    OUT.println("| tasks per response | Iceberg / ours (parse + convert) | Iceberg / our parse alone |");
    OUT.println("|---:|---:|---:|");
    byTasks.forEach((tasks, steps) -> {
      Row ours = steps.get("parseAndConvert");
      Row parse = steps.get("parse");
      Row iceberg = steps.get("iceberg");
      if (ours != null && parse != null && iceberg != null) {
        OUT.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", tasks, iceberg.median() / ours.median(),
            iceberg.median() / parse.median());
      }
    });
    OUT.println();
  }

  /** {@code MemoryFootprint}'s result lines, as they are. */
  private static void memory(List<Path> files) throws IOException {
    if (files.isEmpty()) {
      return;
    }
    OUT.println("Memory (`MemoryFootprint`, planning, one JVM each at `-Xmx96m`; `ReadMemoryFootprint`, planning and "
        + "reading, `mode=read-…`, one JVM each at `-Xmx128m`):");
    OUT.println();
    OUT.println("```");
    for (Path file : files) {
      Files.readAllLines(file).stream().filter(line -> line.startsWith("mode=")).forEach(OUT::println);
    }
    OUT.println("```");
    OUT.println();
  }

  static String fmt(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
  }
}
