package io.icebergscan.planning.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The ideal wall times the planner is measured against (docs: "The numbers it is measured against"),
 * excluding the plan call itself, which callers add.
 */
public final class IdealSchedule {

  private IdealSchedule() {
  }

  /** A flat level of {@code n} handles of latency {@code latencyNanos} with {@code c} slots: {@code ceil(n / c) * L}. */
  public static long flat(int n, int c, long latencyNanos) {
    checkSlots(c);
    return ((n + c - 1) / c) * latencyNanos;
  }

  /**
   * The makespan of the work-conserving greedy list schedule with {@code c} slots: a handle may start
   * when its parent's response has arrived; whenever a slot is free, the discovered handle with the
   * earliest walk position starts. This is the schedule the planner's contract describes (no level
   * barrier, earliest walk position first).
   */
  public static long workConserving(PlanTree tree, int c) {
    return tree.shape().idealNanos(c, tree::latencyNanos);
  }

  /**
   * A level-by-level (tier barrier) schedule with {@code c} slots, as iceberg-go walks: each level is
   * list-scheduled in walk order, and the next level starts only when the slowest handle of this one
   * has answered.
   */
  public static long tierBarrier(PlanTree tree, int c) {
    checkSlots(c);
    List<List<Integer>> levels = new ArrayList<>();
    for (int node = 0; node < tree.size(); node++) {
      int d = tree.depth(node);
      while (levels.size() < d) {
        levels.add(new ArrayList<>());
      }
      levels.get(d - 1).add(node);
    }
    long total = 0;
    for (List<Integer> level : levels) {
      PriorityQueue<Long> slots = new PriorityQueue<>();
      for (int s = 0; s < c; s++) {
        slots.add(0L);
      }
      long makespan = 0;
      for (int node : level) {
        long finish = slots.poll() + tree.latencyNanos(node);
        slots.add(finish);
        makespan = Math.max(makespan, finish);
      }
      total += makespan;
    }
    return total;
  }

  /** The critical path with unlimited slots: the longest root-to-leaf sum of latencies. */
  public static long criticalPath(PlanTree tree) {
    long[] finish = new long[tree.size()];
    long end = 0;
    for (int node = 0; node < tree.size(); node++) {
      int p = tree.parent(node);
      finish[node] = (p < 0 ? 0 : finish[p]) + tree.latencyNanos(node);
      end = Math.max(end, finish[node]);
    }
    return end;
  }

  private static void checkSlots(int c) {
    if (c < 1) {
      throw new IllegalArgumentException("at least one slot is needed: " + c);
    }
  }
}
