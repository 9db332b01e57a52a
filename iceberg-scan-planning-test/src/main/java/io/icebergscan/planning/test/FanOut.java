package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
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
    List<List<Integer>> nodes = new ArrayList<>();
    nodes.add(List.of());
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
      }
    }
    return nodes;
  }

  @Override
  public String toString() {
    return "FanOut." + this.description;
  }
}
