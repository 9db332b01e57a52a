package io.icebergscan.planning;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.observation.Outcome;

/**
 * The planner contract's reference walk, written as plainly as the contract states it: the oracle
 * every concurrent result is compared with.
 */
public final class SerialWalkOracle {

  /** What a handle answers in a test graph: tasks and children, or a failure. */
  public record Outcome(List<String> tasks, List<String> children, RuntimeException failure) {

    public static Outcome answer(List<String> tasks, List<String> children) {
      return new Outcome(List.copyOf(tasks), List.copyOf(children), null);
    }

    public static Outcome failure(RuntimeException failure) {
      return new Outcome(List.of(), List.of(), failure);
    }
  }

  /** The walk's result: tasks in order, or the failure and the handle that failed. */
  public record Result(List<String> tasks, String failedHandle, Class<?> failureType) {
  }

  private SerialWalkOracle() {
  }

  public static Result walk(List<String> rootTasks, List<String> rootPlanTasks, Map<String, Outcome> graph) {
    List<String> out = new ArrayList<>(rootTasks);
    ArrayDeque<String> queue = new ArrayDeque<>(rootPlanTasks);
    Set<String> seen = new HashSet<>();
    while (!queue.isEmpty()) {
      String handle = queue.removeFirst();
      if (!seen.add(handle)) {
        continue;
      }
      Outcome outcome = graph.get(handle);
      if (outcome.failure() != null) {
        return new Result(null, handle, outcome.failure().getClass());
      }
      out.addAll(outcome.tasks());
      queue.addAll(outcome.children());
    }
    return new Result(out, null, null);
  }
}
