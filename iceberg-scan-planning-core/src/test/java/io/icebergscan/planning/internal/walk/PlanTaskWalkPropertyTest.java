package io.icebergscan.planning.internal.walk;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.stream.LongStream;

import io.icebergscan.planning.SerialWalkOracle;
import io.icebergscan.planning.SerialWalkOracle.Outcome;
import io.icebergscan.planning.SerialWalkOracle.Result;
import io.icebergscan.planning.TestTasks;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.FileScanTask;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walk against the serial oracle over random plan-task graphs (duplicates, self references,
 * cycles, diamonds, deep chains, wide levels), random per-handle outcomes, every completion order
 * the seed picks, several limits, and slow consumers. Each fetch's completion time is chosen by the
 * test, one fetch at a time, so an interleaving that fails is replayed exactly from its seed (run
 * more cases with {@code -Dwalk.cases=N}, other ones with {@code -Dwalk.seed=S}).
 */
class PlanTaskWalkPropertyTest {

  static LongStream seeds() {
    SplittableRandom seeds = new SplittableRandom(Long.getLong("walk.seed", 20261130L));
    return LongStream.generate(seeds::nextLong).limit(Long.getLong("walk.cases", 400L));
  }

  static LongStream fewerSeeds() {
    return seeds().limit(Math.max(1, Long.getLong("walk.cases", 400L) / 3));
  }

  private static final int[] LIMITS = { 1, 2, 3, 5, 8, 64 };

  /** A generated plan: its first response and what every handle answers. */
  record Graph(String shape, List<String> rootTasks, List<String> rootPlanTasks, Map<String, Outcome> outcomes) {
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void concurrentWalkReturnsExactlyWhatTheSerialWalkReturns(long seed) {
    Random random = new Random(seed);
    Graph graph = generate(random);
    Result expected = SerialWalkOracle.walk(graph.rootTasks(), graph.rootPlanTasks(), graph.outcomes());
    for (int limit : LIMITS) {
      Simulation simulation = new Simulation(random, graph.outcomes(), limit);
      boolean slowConsumer = random.nextInt(3) == 0;
      Run run = simulation.add(graph, limit, slowConsumer ? 1 + random.nextInt(4) : Integer.MAX_VALUE, !slowConsumer);
      simulation.runToEnd();
      run.assertEquals(expected, "seed " + seed + ", limit " + limit + ", shape " + graph.shape());
      assertThat(simulation.maxInFlight).as("in flight, limit %d", limit).isLessThanOrEqualTo(limit);
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("fewerSeeds")
  void plansSharingOnePlannerStayWithinItsLimitAndEachEqualsItsSerialWalk(long seed) {
    Random random = new Random(seed);
    int plannerLimit = 1 + random.nextInt(6);
    Simulation simulation = new Simulation(random, new HashMap<>(), plannerLimit);
    List<Run> runs = new ArrayList<>();
    List<Result> expected = new ArrayList<>();
    int plans = 2 + random.nextInt(3);
    for (int i = 0; i < plans; i++) {
      Graph graph = prefixed("p" + i + "-", generate(random));
      simulation.outcomes.putAll(graph.outcomes());
      expected.add(SerialWalkOracle.walk(graph.rootTasks(), graph.rootPlanTasks(), graph.outcomes()));
      runs.add(simulation.add(graph, 1 + random.nextInt(plannerLimit), Integer.MAX_VALUE, true));
    }
    simulation.runToEnd();
    for (int i = 0; i < plans; i++) {
      runs.get(i).assertEquals(expected.get(i), "seed " + seed + ", plan " + i);
    }
    assertThat(simulation.maxInFlight).isLessThanOrEqualTo(plannerLimit);
  }

  static Graph generate(Random random) {
    String[] shapes = { "random", "forward-dag", "deep-chain", "wide-level", "duplicate-heavy" };
    String shape = shapes[random.nextInt(shapes.length)];
    int size = 1 + random.nextInt(shape.equals("deep-chain") ? 60 : 40);
    List<String> handles = new ArrayList<>();
    for (int i = 0; i < size; i++) {
      handles.add(random.nextInt(10) == 0 ? "h/" + i + "?&=%20 é" : "h" + i);
    }
    double failureRate = new double[] { 0, 0.03, 0.1, 0.3 }[random.nextInt(4)];
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      String handle = handles.get(i);
      if (random.nextDouble() < failureRate) {
        outcomes.put(handle, Outcome.failure(failure(random, handle)));
        continue;
      }
      List<String> children = new ArrayList<>();
      switch (shape) {
        case "forward-dag" -> {
          int count = random.nextInt(4);
          for (int c = 0; c < count && i + 1 < size; c++) {
            children.add(handles.get(i + 1 + random.nextInt(size - i - 1)));
          }
        }
        case "deep-chain" -> {
          if (i + 1 < size) {
            children.add(handles.get(i + 1));
          }
          if (random.nextInt(4) == 0) {
            children.add(handles.get(random.nextInt(size)));
          }
        }
        case "wide-level" -> {
          if (random.nextInt(5) == 0) {
            children.add(handles.get(random.nextInt(size)));
          }
        }
        case "duplicate-heavy" -> {
          int count = random.nextInt(5);
          for (int c = 0; c < count; c++) {
            children.add(handles.get(random.nextInt(Math.min(size, 4))));
          }
        }
        default -> {
          int count = random.nextInt(4);
          for (int c = 0; c < count; c++) {
            children.add(handles.get(random.nextInt(size)));
          }
        }
      }
      List<String> tasks = new ArrayList<>();
      int taskCount = random.nextInt(3);
      for (int t = 0; t < taskCount; t++) {
        tasks.add(handle + "#" + t);
      }
      outcomes.put(handle, Outcome.answer(tasks, children));
    }
    List<String> rootPlanTasks = new ArrayList<>();
    if (shape.equals("wide-level")) {
      rootPlanTasks.addAll(handles);
    }
    else {
      int count = random.nextInt(5);
      for (int i = 0; i < count; i++) {
        rootPlanTasks.add(handles.get(random.nextInt(size)));
      }
    }
    List<String> rootTasks = random.nextBoolean() ? List.of("root#0", "root#1") : List.of();
    return new Graph(shape, rootTasks, rootPlanTasks, outcomes);
  }

  private static RuntimeException failure(Random random, String handle) {
    return switch (random.nextInt(4)) {
      case 0 -> new RestException(500, "ServerError", "boom", handle);
      case 1 -> new NoSuchPlanTaskException(404, "NoSuchPlanTaskException", "gone", handle);
      case 2 -> new MalformedResponseException("bad", "file-scan-tasks", handle);
      default -> new TransportException("reset", handle, null);
    };
  }

  private static Graph prefixed(String prefix, Graph graph) {
    Map<String, Outcome> outcomes = new LinkedHashMap<>();
    graph.outcomes().forEach((handle, outcome) -> {
      if (outcome.failure() != null) {
        RuntimeException failure = new TransportException("reset", prefix + handle, null);
        outcomes.put(prefix + handle, Outcome.failure(failure));
      }
      else {
        outcomes.put(prefix + handle, Outcome.answer(outcome.tasks().stream().map(t -> prefix + t).toList(),
            outcome.children().stream().map(c -> prefix + c).toList()));
      }
    });
    return new Graph(graph.shape(), graph.rootTasks().stream().map(t -> prefix + t).toList(),
        graph.rootPlanTasks().stream().map(h -> prefix + h).toList(), outcomes);
  }

  /** One walk under simulation and what it emitted. */
  static final class Run implements PlanTaskWalk.Listener {
    PlanTaskWalk walk;
    final List<String> tasks = new ArrayList<>();
    ScanPlanningException error;
    int terminalSignals;
    boolean boundedDemand;

    @Override
    public void onTasks(List<FileScanTask> emitted) {
      assertThat(this.terminalSignals).as("tasks after the end").isZero();
      this.tasks.addAll(TestTasks.paths(emitted));
    }

    @Override
    public void onComplete() {
      this.terminalSignals++;
    }

    @Override
    public void onError(ScanPlanningException failure) {
      this.terminalSignals++;
      this.error = failure;
    }

    boolean ended() {
      return this.terminalSignals > 0;
    }

    void assertEquals(Result expected, String description) {
      assertThat(this.terminalSignals).as(description + ": terminal signals").isEqualTo(1);
      if (expected.failedHandle() == null) {
        assertThat(this.error).as(description).isNull();
        assertThat(this.tasks).as(description).isEqualTo(expected.tasks());
      }
      else {
        assertThat(this.error).as(description).isNotNull();
        assertThat(this.error).as(description).isExactlyInstanceOf(expected.failureType());
        assertThat(this.error.planTask()).as(description).isEqualTo(expected.failedHandle());
      }
    }
  }

  /** Fetches that complete only when the simulation picks them, in a random order. */
  static final class Simulation {
    final Random random;
    final Map<String, Outcome> outcomes;
    final ConcurrencyLimiter limiter;
    final List<Pending> pending = new ArrayList<>();
    final Map<String, Integer> fetches = new HashMap<>();
    final List<Run> runs = new ArrayList<>();
    int maxInFlight;

    record Pending(String handle, PlanTaskWalk.Callback callback, Run run) {
    }

    Simulation(Random random, Map<String, Outcome> outcomes, int plannerLimit) {
      this.random = random;
      this.outcomes = outcomes;
      this.limiter = new ConcurrencyLimiter(plannerLimit);
    }

    Run add(Graph graph, int limit, int window, boolean unboundedDemand) {
      Run run = new Run();
      run.boundedDemand = !unboundedDemand;
      PlanTaskWalk.Fetcher fetcher = (handle, callback) -> {
        assertThat(this.fetches.merge(handle, 1, Integer::sum)).as("fetches of %s", handle).isEqualTo(1);
        Pending pending = new Pending(handle, callback, run);
        this.pending.add(pending);
        long ofThisRun = this.pending.stream().filter(p -> p.run() == run).count();
        assertThat(ofThisRun).as("in flight for one plan").isLessThanOrEqualTo(limit);
        this.maxInFlight = Math.max(this.maxInFlight, this.pending.size());
        return () -> this.pending.remove(pending);
      };
      run.walk = new PlanTaskWalk(new ScanTasks(TestTasks.tasks(graph.rootTasks()), graph.rootPlanTasks()), fetcher,
          run, this.limiter, limit, window);
      this.runs.add(run);
      run.walk.start();
      run.walk.request(unboundedDemand ? Long.MAX_VALUE : 1);
      return run;
    }

    void runToEnd() {
      for (int step = 0; step < 100_000; step++) {
        if (this.runs.stream().allMatch(Run::ended)) {
          assertThat(this.pending).as("fetches left running after every walk ended").isEmpty();
          assertThat(this.limiter.inUse()).as("permits still held").isZero();
          return;
        }
        List<Run> hungry = this.runs.stream().filter(r -> r.boundedDemand && !r.ended()).toList();
        if (!hungry.isEmpty() && (this.pending.isEmpty() || this.random.nextInt(3) == 0)) {
          hungry.get(this.random.nextInt(hungry.size())).walk.request(1 + this.random.nextInt(3));
          continue;
        }
        assertThat(this.pending).as("a walk waits with nothing in flight").isNotEmpty();
        Pending next = this.pending.remove(this.random.nextInt(this.pending.size()));
        Outcome outcome = this.outcomes.get(next.handle());
        if (outcome.failure() != null) {
          next.callback().failed((ScanPlanningException) outcome.failure());
        }
        else {
          next.callback().succeeded(new ScanTasks(TestTasks.tasks(outcome.tasks()), outcome.children()));
        }
      }
      throw new AssertionError("the simulation did not end");
    }
  }
}
