package io.icebergscan.planning.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;

import io.icebergscan.planning.test.FanOut;

/**
 * A plan-task tree's {@link FanOut shape} with a server latency per handle, in walk order (breadth-first, response
 * order): node {@code i} is the {@code i}-th handle the serial walk fetches. {@code parent(i)} is the node whose
 * response holds it, or {@code -1} when the plan response holds it.
 *
 * <p>Both the latency server and the {@link IdealSchedule ideal bounds} read the same tree, so a ratio
 * compares a measurement with the ideal of exactly the latencies the server applied.
 */
public final class PlanTree {

  private final FanOut shape;
  private final int[] parent;
  private final int[] depth;
  private final long[] latencyNanos;
  private final List<List<Integer>> children;
  private final List<Integer> roots;

  private PlanTree(FanOut shape, IntToLongFunction latencyNanos) {
    this.shape = shape;
    this.parent = shape.parents();
    this.latencyNanos = new long[this.parent.length];
    this.depth = new int[this.parent.length];
    this.children = new ArrayList<>(this.parent.length);
    this.roots = new ArrayList<>();
    for (int i = 0; i < this.parent.length; i++) {
      this.children.add(new ArrayList<>());
      this.latencyNanos[i] = latencyNanos.applyAsLong(i);
      int p = this.parent[i];
      if (p < 0) {
        this.roots.add(i);
        this.depth[i] = 1;
      }
      else {
        this.children.get(p).add(i);
        this.depth[i] = this.depth[p] + 1;
      }
    }
  }

  /** The shape, handle {@code i} (walk position) taking {@code latencyNanos.applyAsLong(i)}. */
  public static PlanTree of(FanOut shape, IntToLongFunction latencyNanos) {
    return new PlanTree(shape, latencyNanos);
  }

  /** The shape, every handle taking {@code latencyNanos}. */
  public static PlanTree of(FanOut shape, long latencyNanos) {
    return new PlanTree(shape, handle -> latencyNanos);
  }

  /** {@code n} handles in the plan response, none of which has children. */
  public static PlanTree flat(int n, long latencyNanos) {
    return of(FanOut.flat(n), latencyNanos);
  }

  /**
   * A chain of {@code depth} handles, each (but the last) also holding {@code sideBranches} leaf handles after the
   * next chain handle in its response; chain handles take {@code chainMillis}, side leaves {@code sideMillis}.
   */
  public static PlanTree chainWithSideBranches(int depth, int sideBranches, long chainMillis, long sideMillis) {
    FanOut shape = FanOut.custom(path -> !path.stream().allMatch(i -> i == 0) || path.size() >= depth ? 0
        : path.isEmpty() ? 1 : 1 + sideBranches);
    List<List<Integer>> handles = shape.handles();
    return of(shape, i -> (handles.get(i).stream().allMatch(step -> step == 0) ? chainMillis : sideMillis)
        * 1_000_000L);
  }

  public FanOut shape() {
    return this.shape;
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
