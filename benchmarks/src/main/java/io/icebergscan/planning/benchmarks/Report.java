package io.icebergscan.planning.benchmarks;

import java.io.File;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Turns JMH JSON results ({@code -rf json -rff x.json}) into the README's markdown tables, with the
 * ideals computed by {@link IdealSchedule} from the same shapes and latencies the benchmarks used.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.Report plancall.json flat64.json ...
 * </pre>
 */
public final class Report {

  private static final double MS = 1_000_000.0;

  record Row(String benchmark, Map<String, String> params, double score, double error, String unit, double allocNorm,
      List<Double> iterations) {

    String param(String name) {
      return this.params.get(name);
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

  public static void main(String[] args) {
    JsonMapper mapper = JsonMapper.builder().build();
    List<Row> rows = new ArrayList<>();
    for (String file : args) {
      for (JsonNode result : mapper.readTree(new File(file))) {
        Map<String, String> params = new LinkedHashMap<>();
        JsonNode ps = result.get("params");
        if (ps != null) {
          ps.properties().forEach(e -> params.put(e.getKey(), e.getValue().asString()));
        }
        JsonNode primary = result.get("primaryMetric");
        double alloc = Double.NaN;
        JsonNode secondary = result.get("secondaryMetrics");
        if (secondary != null) {
          for (var e : secondary.properties()) {
            if (e.getKey().endsWith("gc.alloc.rate.norm")) {
              alloc = e.getValue().get("score").asDouble();
            }
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
            primary.get("scoreUnit").asString(), alloc, List.copyOf(iterations)));
      }
    }
    double planCall = rows.stream().filter(r -> r.benchmark().startsWith("PlanCall.")).mapToDouble(Row::score)
        .findFirst().orElse(0);
    if (rows.stream().anyMatch(r -> r.benchmark().startsWith("PlanCall."))) {
      System.out.printf(Locale.ROOT, "Plan call (no plan-task, same server): %s ms; added to every ideal.%n%n",
          fmt(planCall));
    }
    flat(rows, planCall);
    uneven(rows, planCall);
    againstIceberg(rows);
    parse(rows);
    planAndRead(rows);
    convert(rows);
  }

  private static void flat(List<Row> rows, double planCall) {
    List<Row> flat = rows.stream().filter(r -> r.benchmark().startsWith("FlatFanOut.")).toList();
    if (flat.isEmpty()) {
      return;
    }
    System.out.println("| handles | limit | measured ms/plan | ideal ms | ratio | allocated KiB/plan | target <= 1.10 |");
    System.out.println("|---:|---:|---:|---:|---:|---:|:---:|");
    for (Row r : flat) {
      int n = Integer.parseInt(r.param("handles"));
      int c = Integer.parseInt(r.param("limit"));
      long latency = Long.parseLong(r.param("latencyMillis")) * 1_000_000L;
      double ideal = planCall + IdealSchedule.flat(n, c, latency) / MS;
      double ratio = r.score() / ideal;
      System.out.printf(Locale.ROOT, "| %d | %d | %s | %s | %.2f | %s | %s |%n", n, c, r.measured(), fmt(ideal), ratio,
          fmt(r.allocNorm() / 1024), ratio <= 1.10 ? "met" : "missed");
    }
    System.out.println();
  }

  private static void uneven(List<Row> rows, double planCall) {
    List<Row> uneven = rows.stream().filter(r -> r.benchmark().startsWith("UnevenTree.")).toList();
    if (uneven.isEmpty()) {
      return;
    }
    System.out.println("| shape | limit | measured ms/plan | work-conserving ideal ms | ratio | tier-barrier ideal ms | ratio | target <= 1.15 and below the barrier |");
    System.out.println("|---|---:|---:|---:|---:|---:|---:|:---:|");
    for (Row r : uneven) {
      PlanTree tree = UnevenTree.tree(r.param("shape"));
      int c = Integer.parseInt(r.param("limit"));
      double greedy = planCall + IdealSchedule.workConserving(tree, c) / MS;
      double barrier = planCall + IdealSchedule.tierBarrier(tree, c) / MS;
      double ratio = r.score() / greedy;
      System.out.printf(Locale.ROOT, "| %s | %d | %s | %s | %.2f | %s | %.2f | %s |%n", r.param("shape"), c, r.measured(),
          fmt(greedy), ratio, fmt(barrier), r.score() / barrier, ratio <= 1.15 && r.score() < barrier ? "met" : "missed");
    }
    System.out.println();
  }

  private static void againstIceberg(List<Row> rows) {
    List<Row> against = rows.stream().filter(r -> r.benchmark().startsWith("AgainstIceberg.")).toList();
    if (against.isEmpty()) {
      return;
    }
    System.out.println("| shape | workers | this planner ms/plan | Iceberg RESTTableScan ms/plan | Iceberg / ours | target |");
    System.out.println("|---|---:|---:|---:|---:|:---:|");
    Map<String, Row> ours = new LinkedHashMap<>();
    Map<String, Row> iceberg = new LinkedHashMap<>();
    for (Row r : against) {
      String key = r.param("shape") + "|" + r.param("workers");
      (r.param("client").equals("ours") ? ours : iceberg).put(key, r);
    }
    for (var e : ours.entrySet()) {
      Row theirs = iceberg.get(e.getKey());
      if (theirs == null) {
        continue;
      }
      double ratio = theirs.score() / e.getValue().score();
      boolean flatShape = e.getKey().startsWith("flat");
      String met = flatShape ? (ratio >= 1.0 ? "met (no slower)" : "missed (slower)")
          : (ratio > 1.0 ? "met (faster)" : "missed (not faster)");
      System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %.2f | %s |%n", e.getValue().param("shape"),
          e.getValue().param("workers"), e.getValue().measured(), theirs.measured(), ratio, met);
    }
    System.out.println();
  }

  private static void parse(List<Row> rows) {
    List<Row> parse = rows.stream().filter(r -> r.benchmark().startsWith("ParseTasks.")).toList();
    if (parse.isEmpty()) {
      return;
    }
    System.out.println("| tasks per response | parser | ms/response | tasks/s | bytes allocated/task |");
    System.out.println("|---:|---|---:|---:|---:|");
    for (Row r : parse) {
      int tasks = Integer.parseInt(r.param("tasks"));
      String parser = r.benchmark().endsWith(".ours") ? "this planner (parse + validate + resolve deletes)"
          : "Iceberg FetchScanTasksResponseParser (+ validate)";
      System.out.printf(Locale.ROOT, "| %d | %s | %s | %,.0f | %s |%n", tasks, parser, r.measured(),
          tasks / (r.score() / 1000.0), fmt(r.allocNorm() / tasks));
    }
    System.out.println();
  }

  private static void planAndRead(List<Row> rows) {
    List<Row> runs = rows.stream().filter(r -> r.benchmark().startsWith("PlanAndRead.")).toList();
    if (runs.isEmpty()) {
      return;
    }
    System.out.println("| what | latency ms | workers | this planner ms | Iceberg ms | Iceberg / ours (medians) |");
    System.out.println("|---|---:|---:|---:|---:|---:|");
    for (String[] pair : new String[][] { { "ours", "iceberg", "plan + read" },
        { "oursPlanOnly", "icebergPlanOnly", "plan only" } }) {
      for (Row r : runs) {
        if (!r.benchmark().equals("PlanAndRead." + pair[0])) {
          continue;
        }
        Row theirs = runs.stream().filter(t -> t.benchmark().equals("PlanAndRead." + pair[1])
            && t.params().equals(r.params())).findFirst().orElse(null);
        if (theirs == null) {
          continue;
        }
        System.out.printf(Locale.ROOT, "| %s | %s | %s | %s | %s | %.2f |%n", pair[2], r.param("latencyMillis"),
            r.param("workers"), r.spread(1), theirs.spread(1), theirs.median() / r.median());
      }
    }
    System.out.println();
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
    System.out.println("| tasks per response | step | µs per task | bytes allocated/task |");
    System.out.println("|---:|---|---:|---:|");
    byTasks.forEach((tasks, steps) -> {
      int n = Integer.parseInt(tasks);
      for (String step : List.of("parse", "convert", "parseAndConvert", "iceberg")) {
        Row r = steps.get(step);
        if (r != null) {
          System.out.printf(Locale.ROOT, "| %d | %s | %s | %s |%n", n, step, r.spread(n), fmt(r.allocNorm() / n));
        }
      }
    });
    System.out.println();
    System.out.println("| tasks per response | Iceberg / ours (parse + convert) | Iceberg / our parse alone |");
    System.out.println("|---:|---:|---:|");
    byTasks.forEach((tasks, steps) -> {
      Row ours = steps.get("parseAndConvert");
      Row parse = steps.get("parse");
      Row iceberg = steps.get("iceberg");
      if (ours != null && parse != null && iceberg != null) {
        System.out.printf(Locale.ROOT, "| %s | %.2f | %.2f |%n", tasks, iceberg.median() / ours.median(),
            iceberg.median() / parse.median());
      }
    });
    System.out.println();
  }

  static String fmt(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    return String.format(Locale.ROOT, value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value);
  }
}
