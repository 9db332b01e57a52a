package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;

/**
 * The fan-out plans of one catalog: each plan's tree of plan-task handles and the tasks each node
 * serves. Held per catalog instance (unlike Iceberg's JVM-wide planning state), so catalogs in one JVM
 * neither see nor clear each other's plans.
 */
final class FanOutPlans {

  /**
   * One node of a plan's tree: the tasks it serves, the handles of its children, and the table's
   * partition specs when it was planned (every response carries them).
   */
  record Node(TableIdentifier table, Map<Integer, PartitionSpec> specs, List<FileScanTask> tasks,
      List<String> children) {
  }

  /**
   * A plan: its table, its root node (the plan response), and how many more polls answer
   * {@code submitted} before one answers with the root.
   */
  record Plan(String planId, TableIdentifier table, Node root, List<String> handles, AtomicInteger submittedPolls) {
  }

  private final String idPrefix = "fanout-" + UUID.randomUUID() + "-";
  private final Map<String, Plan> plans = new ConcurrentHashMap<>();
  private final Map<String, Node> nodes = new ConcurrentHashMap<>();

  /**
   * Spreads the tasks over the tree of {@code shape}: node {@code i} of {@code m} (breadth-first, the
   * root first) serves tasks {@code [i*n/m, (i+1)*n/m)}, so every node gets {@code n/m} tasks give or
   * take one and the breadth-first concatenation is the input order.
   */
  Plan add(TableIdentifier table, Map<Integer, PartitionSpec> specs, List<FileScanTask> tasks, FanOut shape,
      int submittedPolls) {
    String planId = this.idPrefix + UUID.randomUUID();
    // The shape is asked once per node (in nodesBreadthFirst), so a shape that varies between calls
    // still yields one consistent tree.
    List<List<Integer>> paths = shape.nodesBreadthFirst();
    Map<List<Integer>, String> handles = new HashMap<>();
    Map<List<Integer>, List<String>> children = new HashMap<>();
    for (List<Integer> path : paths) {
      children.put(path, new ArrayList<>());
      if (!path.isEmpty()) {
        String handle = planId + "-" + path.stream().map(String::valueOf).collect(Collectors.joining("."));
        handles.put(path, handle);
        // breadth-first: a node's parent came before it
        Objects.requireNonNull(children.get(path.subList(0, path.size() - 1))).add(handle);
      }
    }
    long n = tasks.size();
    long m = paths.size();
    @Nullable Node root = null;
    List<String> allHandles = new ArrayList<>();
    for (int i = 0; i < paths.size(); i++) {
      List<Integer> path = paths.get(i);
      List<FileScanTask> share = List.copyOf(tasks.subList((int) (i * n / m), (int) ((i + 1) * n / m)));
      Node node = new Node(table, specs, share, List.copyOf(children.get(path)));
      if (path.isEmpty()) {
        root = node;
      }
      else {
        String handle = handles.get(path);
        this.nodes.put(handle, node);
        allHandles.add(handle);
      }
    }
    // the shape's first path is the root's, the empty one
    Plan plan = new Plan(planId, table, Objects.requireNonNull(root), List.copyOf(allHandles), new AtomicInteger(submittedPolls));
    this.plans.put(planId, plan);
    return plan;
  }

  boolean owns(String planIdOrHandle) {
    return planIdOrHandle.startsWith(this.idPrefix);
  }

  @Nullable Plan plan(String planId) {
    return this.plans.get(planId);
  }

  @Nullable Node node(String handle) {
    return this.nodes.get(handle);
  }

  /** Forgets a plan and its handles; later fetches of them fail as unknown plan-tasks. */
  void remove(String planId) {
    Plan plan = this.plans.remove(planId);
    if (plan != null) {
      plan.handles().forEach(this.nodes::remove);
    }
  }

  void clear() {
    this.plans.clear();
    this.nodes.clear();
  }
}
