package io.icebergscan.examples;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The wall time a perfect scheduler needs to fetch every plan-task of a full tree when each fetch takes the same
 * latency and at most {@code slots} fetches are in flight: a handle can start once the response holding it has
 * arrived, and whenever a slot is free the known handle earliest in walk order starts. This is the
 * work-conserving ideal of the benchmarks' {@code IdealSchedule}, computed the same way (the example does not
 * depend on the benchmarks), and like it leaves out the plan call itself.
 */
final class IdealPlanTime {

  private IdealPlanTime() {
  }

  /**
   * The ideal for a tree with one branching factor per level ({@code [8, 4, 2]}: 8 handles in the plan response,
   * 4 in each of their responses, 2 in each of those).
   */
  static Duration of(List<Integer> levels, int slots, Duration latency) {
    if (slots < 1) {
      throw new IllegalArgumentException("at least one slot is needed: " + slots);
    }
    List<List<Integer>> children = new ArrayList<>();
    List<Integer> roots = new ArrayList<>();
    List<Integer> level = new ArrayList<>();
    for (int i = 0; i < levels.get(0); i++) {
      roots.add(node(children));
      level.add(roots.get(i));
    }
    for (int depth = 1; depth < levels.size(); depth++) {
      // breadth-first numbering: a level's handles come after all of the level above, in response order
      List<Integer> next = new ArrayList<>();
      for (int parent : level) {
        for (int i = 0; i < levels.get(depth); i++) {
          int child = node(children);
          children.get(parent).add(child);
          next.add(child);
        }
      }
      level = next;
    }
    long latencyNanos = latency.toNanos();
    PriorityQueue<Integer> ready = new PriorityQueue<>(roots);
    // in flight: {finish time, node}, earliest finish first, then walk order
    PriorityQueue<long[]> running = new PriorityQueue<>(
        (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    long now = 0;
    while (!ready.isEmpty() || !running.isEmpty()) {
      while (running.size() < slots && !ready.isEmpty()) {
        running.add(new long[] { now + latencyNanos, ready.poll() });
      }
      long[] done = running.poll();
      now = done[0];
      ready.addAll(children.get((int) done[1]));
      // every fetch answering at this instant frees its slot before the next ones start
      while (!running.isEmpty() && running.peek()[0] == now) {
        ready.addAll(children.get((int) running.poll()[1]));
      }
    }
    return Duration.ofNanos(now);
  }

  private static int node(List<List<Integer>> children) {
    children.add(new ArrayList<>());
    return children.size() - 1;
  }
}
