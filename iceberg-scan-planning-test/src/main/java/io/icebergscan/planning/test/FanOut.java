package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.function.IntToLongFunction;
import java.util.function.ToIntFunction;

/**
 * The shape of the plan-task tree an {@link EmbeddedIcebergCatalog} serves: how many plan-task handles
 * the plan response holds, and how many child handles each {@code /tasks} response holds.
 *
 * <p>A node is named by its path from the root: the plan response is {@code []}, its second handle is
 * {@code [1]}, that handle's first child is {@code [1, 0]}. The shape says, for each node, how many
 * children it has. The tasks Apache Iceberg really planned are dealt over all nodes, the plan response
 * included, in contiguous runs in breadth-first order, so a breadth-first walk that visits handles in
 * response order returns them in Iceberg's own order.
 *
 * <p>The same shape is the one model of a plan-task tree everywhere: the embedded catalog serves it, the benchmarks'
 * latency servers serve it with a latency per handle, and {@link #idealTime} is the wall time a perfect scheduler
 * needs to fetch it, which the example and the benchmarks print measurements against.
 */
public final class FanOut {

  /** More nodes than this is a mistake in a test, not a shape worth serving. */
  static final int MAX_NODES = 1_000_000;

  private final ToIntFunction<List<Integer>> children;
  private final String description;

  private FanOut(ToIntFunction<List<Integer>> children, String description) {
    this.children = children;
    this.description = description;
  }

  /** {@code handles} plan-task handles in the plan response, none of which has children; 0 for a plan without any. */
  public static FanOut flat(int handles) {
    if (handles < 0) {
      throw new IllegalArgumentException("handles must not be negative: " + handles);
    }
    return new FanOut(path -> path.isEmpty() ? handles : 0, "flat(" + handles + ")");
  }

  /**
   * A full tree: the plan response holds {@code branching} handles and every handle above the leaf
   * level holds {@code branching} more, down to {@code depth} levels of handles; {@code /tasks} is then
   * called {@code branching + branching^2 + … + branching^depth} times.
   */
  public static FanOut uniform(int branching, int depth) {
    if (branching < 1 || depth < 1) {
      throw new IllegalArgumentException("branching and depth must be at least 1: " + branching + ", " + depth);
    }
    return new FanOut(path -> path.size() < depth ? branching : 0,
        "uniform(branching=" + branching + ", depth=" + depth + ")");
  }

  /**
   * One branching factor per level: {@code levels(4, 1, 3)} gives 4 handles in the plan response, one
   * child under each of them, and 3 children under each of those (4 + 4 + 12 {@code /tasks} calls).
   */
  public static FanOut levels(int... branchingPerLevel) {
    int[] levels = branchingPerLevel.clone();
    if (levels.length == 0) {
      throw new IllegalArgumentException("at least one level is needed");
    }
    for (int branching : levels) {
      if (branching < 1) {
        throw new IllegalArgumentException("every level needs at least one handle: " + Arrays.toString(levels));
      }
    }
    return new FanOut(path -> path.size() < levels.length ? levels[path.size()] : 0,
        "levels" + Arrays.toString(levels));
  }

  /**
   * Any shape: {@code children} gets a node's path (empty for the plan response) and returns how many
   * child handles that node holds (0 for a leaf). Use it for uneven trees, e.g. only the first handle of
   * each level having children: {@code path -> path.stream().allMatch(i -> i == 0) && path.size() < 5 ? 3 : 0}.
   */
  public static FanOut custom(ToIntFunction<List<Integer>> children) {
    Objects.requireNonNull(children, "children");
    return new FanOut(children, "custom");
  }

  /** How many children the node at {@code path} has; never negative. */
  int childrenOf(List<Integer> path) {
    int count = this.children.applyAsInt(List.copyOf(path));
    if (count < 0) {
      throw new IllegalStateException("the fan-out gave " + count + " children for node " + path);
    }
    return count;
  }

  /**
   * Every node's path, breadth-first, the plan response first; fails if the tree exceeds
   * {@link #MAX_NODES} (which also stops a shape that never returns 0).
   */
  List<List<Integer>> nodesBreadthFirst() {
    return walk().nodes();
  }

  /**
   * The paths of the plan-task handles in walk order (breadth-first, each response's handles in their order): the
   * {@code i}-th is the {@code i}-th handle a serial walk fetches.
   */
  public List<List<Integer>> handles() {
    List<List<Integer>> nodes = nodesBreadthFirst();
    return nodes.subList(1, nodes.size());
  }

  /**
   * For each handle in walk order, the walk position of the handle whose {@code /tasks} response holds it, or
   * {@code -1} for the handles of the plan response.
   */
  public int[] parents() {
    int[] parents = walk().parents();
    return Arrays.copyOfRange(parents, 1, parents.length);
  }

  /**
   * The wall time a perfect scheduler needs to fetch every handle with at most {@code slots} fetches in flight, each
   * taking {@code latency}; see {@link #idealNanos}.
   */
  public Duration idealTime(int slots, Duration latency) {
    long nanos = latency.toNanos();
    return Duration.ofNanos(idealNanos(slots, handle -> nanos));
  }

  /**
   * The makespan of the work-conserving greedy schedule the planner's contract describes, without the plan call
   * itself: a handle may start once the response holding it has arrived, and whenever one of the {@code slots} is
   * free the known handle earliest in walk order starts; handle {@code i} (walk position) takes
   * {@code latencyNanos.applyAsLong(i)}. Every fetch answering at one instant frees its slot before the next start,
   * and there is no level barrier.
   */
  public long idealNanos(int slots, IntToLongFunction latencyNanos) {
    if (slots < 1) {
      throw new IllegalArgumentException("at least one slot is needed: " + slots);
    }
    int[] parents = parents();
    List<List<Integer>> children = new ArrayList<>(parents.length);
    PriorityQueue<Integer> ready = new PriorityQueue<>();
    for (int handle = 0; handle < parents.length; handle++) {
      children.add(new ArrayList<>());
      if (parents[handle] < 0) {
        ready.add(handle);
      }
      else {
        children.get(parents[handle]).add(handle);
      }
    }
    // in flight: {finish time, handle}, earliest finish first, then walk order
    PriorityQueue<long[]> running = new PriorityQueue<>(
        (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    long now = 0;
    while (!ready.isEmpty() || !running.isEmpty()) {
      while (running.size() < slots && !ready.isEmpty()) {
        int handle = ready.poll();
        running.add(new long[] { now + latencyNanos.applyAsLong(handle), handle });
      }
      long[] done = running.poll();
      now = done[0];
      ready.addAll(children.get((int) done[1]));
      while (!running.isEmpty() && running.peek()[0] == now) {
        ready.addAll(children.get((int) running.poll()[1]));
      }
    }
    return now;
  }

  /** The nodes breadth-first, the plan response first, with the position of each one's parent (-1 for the root). */
  private Walk walk() {
    List<List<Integer>> nodes = new ArrayList<>();
    List<Integer> parents = new ArrayList<>();
    nodes.add(List.of());
    parents.add(-1);
    for (int next = 0; next < nodes.size(); next++) {
      List<Integer> path = nodes.get(next);
      int count = childrenOf(path);
      for (int child = 0; child < count; child++) {
        if (nodes.size() >= MAX_NODES) {
          throw new IllegalStateException("the fan-out " + this.description + " has more than " + MAX_NODES + " nodes");
        }
        List<Integer> childPath = new ArrayList<>(path);
        childPath.add(child);
        nodes.add(List.copyOf(childPath));
        // as a handle's walk position, the parent node is one less: the plan response is not a handle
        parents.add(next - 1);
      }
    }
    return new Walk(nodes, parents.stream().mapToInt(Integer::intValue).toArray());
  }

  private record Walk(List<List<Integer>> nodes, int[] parents) {
  }

  @Override
  public String toString() {
    return "FanOut." + this.description;
  }
}
