package io.icebergscan.planning.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntUnaryOperator;
import java.util.function.ToIntFunction;

/**
 * A plan-task tree with a server latency per handle, in walk order (breadth-first, response order):
 * node {@code i} is the {@code i}-th handle the serial walk fetches. {@code parent[i]} is the node whose
 * response holds it, or {@code -1} when the plan response holds it.
 *
 * <p>Both the latency server and the {@link IdealSchedule ideal bounds} read the same tree, so a ratio
 * compares a measurement with the ideal of exactly the latencies the server applied.
 */
public final class PlanTree {

  private final int[] parent;
  private final int[] depth;
  private final long[] latencyNanos;
  private final List<List<Integer>> children;
  private final List<Integer> roots;

  private PlanTree(int[] parent, long[] latencyNanos) {
    this.parent = parent;
    this.latencyNanos = latencyNanos;
    this.depth = new int[parent.length];
    this.children = new ArrayList<>(parent.length);
    this.roots = new ArrayList<>();
    for (int i = 0; i < parent.length; i++) {
      this.children.add(new ArrayList<>());
    }
    for (int i = 0; i < parent.length; i++) {
      int p = parent[i];
      if (p >= i) {
        throw new IllegalArgumentException("node " + i + " must come after its parent " + p + " (walk order)");
      }
      if (p < 0) {
        this.roots.add(i);
        this.depth[i] = 1;
      }
      else {
        this.children.get(p).add(i);
        this.depth[i] = this.depth[p] + 1;
      }
      if (i > 0 && this.depth[i] < this.depth[i - 1]) {
        throw new IllegalArgumentException("nodes must be in breadth-first order: node " + i);
      }
    }
  }

  /** A tree from parent indices and latencies (nanoseconds), both in walk order. */
  public static PlanTree of(int[] parent, long[] latencyNanos) {
    if (parent.length != latencyNanos.length) {
      throw new IllegalArgumentException("one latency per node is needed");
    }
    return new PlanTree(parent.clone(), latencyNanos.clone());
  }

  /** {@code n} handles in the plan response, none of which has children. */
  public static PlanTree flat(int n, long latencyNanos) {
    int[] parent = new int[n];
    Arrays.fill(parent, -1);
    long[] latency = new long[n];
    Arrays.fill(latency, latencyNanos);
    return new PlanTree(parent, latency);
  }

  /**
   * A full tree with one branching factor per level ({@code levels(1, 8, 8)}: 1 -> 8 -> 64), the latency
   * of node {@code i} (walk position) given by {@code latencyMillis}.
   */
  public static PlanTree levels(int[] branching, IntUnaryOperator latencyMillis) {
    List<Integer> parents = new ArrayList<>();
    List<Integer> level = new ArrayList<>();
    for (int b = 0; b < branching[0]; b++) {
      parents.add(-1);
      level.add(parents.size() - 1);
    }
    for (int d = 1; d < branching.length; d++) {
      List<Integer> next = new ArrayList<>();
      for (int p : level) {
        for (int b = 0; b < branching[d]; b++) {
          parents.add(p);
          next.add(parents.size() - 1);
        }
      }
      level = next;
    }
    return fromParents(parents, latencyMillis);
  }

  /**
   * The tree in which the node at a path (empty for the plan response, {@code [1, 0]} for the first child of its
   * second handle) has {@code children.applyAsInt(path)} child handles, every handle taking {@code latencyNanos}:
   * the plan response's handles are the roots.
   */
  public static PlanTree fromChildren(ToIntFunction<List<Integer>> children, long latencyNanos) {
    List<List<Integer>> paths = new ArrayList<>();
    List<Integer> parents = new ArrayList<>();
    for (int child = 0; child < children.applyAsInt(List.of()); child++) {
      paths.add(List.of(child));
      parents.add(-1);
    }
    for (int node = 0; node < paths.size(); node++) {
      for (int child = 0; child < children.applyAsInt(paths.get(node)); child++) {
        List<Integer> path = new ArrayList<>(paths.get(node));
        path.add(child);
        paths.add(path);
        parents.add(node);
      }
    }
    long[] latency = new long[parents.size()];
    Arrays.fill(latency, latencyNanos);
    return new PlanTree(parents.stream().mapToInt(Integer::intValue).toArray(), latency);
  }

  /**
   * A chain of {@code depth} handles, each (but the last) also holding {@code sideBranches} leaf
   * handles; chain nodes take {@code chainMillis}, side leaves {@code sideMillis}.
   */
  public static PlanTree chainWithSideBranches(int depth, int sideBranches, long chainMillis, long sideMillis) {
    List<Integer> parents = new ArrayList<>();
    List<Long> latencies = new ArrayList<>();
    parents.add(-1);
    latencies.add(chainMillis);
    int chain = 0;
    for (int d = 1; d < depth; d++) {
      // the next chain node comes first in the response, then the side leaves
      parents.add(chain);
      latencies.add(chainMillis);
      int nextChain = parents.size() - 1;
      for (int s = 0; s < sideBranches; s++) {
        parents.add(chain);
        latencies.add(sideMillis);
      }
      chain = nextChain;
    }
    // breadth-first order: the side leaves of level d come before the chain node of level d + 1, which
    // is what the construction gives since each level is appended after the previous one is complete
    long[] nanos = latencies.stream().mapToLong(ms -> ms * 1_000_000L).toArray();
    return new PlanTree(parents.stream().mapToInt(Integer::intValue).toArray(), nanos);
  }

  private static PlanTree fromParents(List<Integer> parents, IntUnaryOperator latencyMillis) {
    int[] parent = parents.stream().mapToInt(Integer::intValue).toArray();
    long[] latency = new long[parent.length];
    for (int i = 0; i < parent.length; i++) {
      latency[i] = latencyMillis.applyAsInt(i) * 1_000_000L;
    }
    return new PlanTree(parent, latency);
  }

  public int size() {
    return this.parent.length;
  }

  public int parent(int node) {
    return this.parent[node];
  }

  /** 1 for handles of the plan response, 2 for their children, ... */
  public int depth(int node) {
    return this.depth[node];
  }

  public int maxDepth() {
    return this.parent.length == 0 ? 0 : this.depth[this.parent.length - 1];
  }

  public long latencyNanos(int node) {
    return this.latencyNanos[node];
  }

  /** The handles of the plan response, in order. */
  public List<Integer> roots() {
    return this.roots;
  }

  /** The handles of node's response, in order. */
  public List<Integer> children(int node) {
    return this.children.get(node);
  }
}
