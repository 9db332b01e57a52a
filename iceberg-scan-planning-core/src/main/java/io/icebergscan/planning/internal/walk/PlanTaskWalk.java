package io.icebergscan.planning.internal.walk;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.FileScanTask;
import org.jspecify.annotations.Nullable;

/**
 * The concurrent plan-task walk: the one place that decides which handle is fetched when, what is
 * emitted in which order, and what is cancelled.
 *
 * <p><b>Equal to the serial walk by construction.</b> A cursor replays the serial breadth-first walk
 * of the planner contract exactly (a FIFO queue of handles and a seen-set), consuming fetch results
 * strictly in that order and waiting whenever the next result has not arrived. Output, de-duplication
 * and the error reported are therefore the serial walk's whatever the timing: the first failure the
 * cursor meets is the first failure in walk order.
 *
 * <p><b>Fast by speculation.</b> Fetches run ahead of the cursor. Every handle seen in any response is
 * a candidate as soon as it is seen (no level barrier), and free slots go to the candidate with the
 * earliest <i>tentative walk position</i>: its position in the serial walk of the graph known so far,
 * with handles whose answers are pending treated as leaves. The tentative position of a handle is never
 * earlier than its final one, and it is final for the handle the cursor waits on, so that handle always
 * goes first. Positions are compared as breadth-first keys (depth, parent's position, index in the
 * parent's list) through parent links; when a handle turns up earlier than where it was first seen
 * (a duplicate met out of order), every position is recomputed by one breadth-first pass.
 *
 * <p><b>Failures.</b> Once a fetch fails, candidates after it are not started. Running fetches after it
 * are cancelled as soon as its position is certain, that is when no unanswered handle could still
 * announce a handle before it; so a cancelled fetch is never needed again and each handle is fetched
 * at most once. Fetches before it go on, since one of them may fail first. When the cursor reaches a
 * failure (or the walk is cancelled) every running fetch is aborted at once and the walk ends.
 *
 * <p><b>Bounds.</b> At most {@code limit} fetches of this walk run at once, each holding a permit of the
 * planner-wide {@link ConcurrencyLimiter}. At most {@code window} fetched-but-not-emitted responses are
 * held (except the one the cursor waits on), and the cursor emits only on demand, so a slow consumer
 * bounds memory.
 *
 * <p><b>Threads.</b> State is guarded by one lock; listeners, fetch starts, aborts and permit releases
 * run outside it, from a serialising drain loop, so listener calls are ordered and never concurrent.
 */
public final class PlanTaskWalk implements ConcurrencyLimiter.Waiter {

  /** Starts one plan-task fetch; the callback is completed at most once, on any thread. */
  public interface Fetcher {
    /** @return an action that aborts the fetch (a no-op once it completed) */
    Runnable fetch(String planTask, Callback callback);
  }

  /** The outcome of one fetch. */
  public interface Callback {
    void succeeded(ScanTasks tasks);

    void failed(ScanPlanningException failure);
  }

  /** Receives the walk's output, in walk order, one call at a time. */
  public interface Listener {
    void onTasks(List<FileScanTask> tasks);

    void onComplete();

    void onError(ScanPlanningException failure);
  }

  private enum State {
    /** Seen, not started. */
    KNOWN,
    RUNNING,
    ANSWERED,
    /** Answered and passed by the cursor: met again in the queue, it is a duplicate and skipped. */
    CONSUMED,
    FAILED,
    /** Aborted because it comes after a failure: never needed again. */
    CANCELLED
  }

  private static final class Node {
    /** The handle; {@code null} for the root, the plan's own answer, which is never fetched. */
    final @Nullable String handle;
    @Nullable Node parent;
    int index;
    int depth;
    State state = State.KNOWN;
    @Nullable List<String> children;
    @Nullable List<FileScanTask> tasks;
    @Nullable ScanPlanningException failure;
    @Nullable Runnable abort;

    Node(@Nullable String handle, @Nullable Node parent, int index, int depth) {
      this.handle = handle;
      this.parent = parent;
      this.index = index;
      this.depth = depth;
    }
  }

  /** Breadth-first order: depth, then the parents' order, then the index in the parent's list. */
  private static final Comparator<Node> WALK_ORDER = PlanTaskWalk::compare;

  @SuppressWarnings("NullAway") // two different nodes of one depth are below the root: both have parents
  private static int compare(Node a, Node b) {
    while (a != b) {
      if (a.depth != b.depth) {
        return Integer.compare(a.depth, b.depth);
      }
      if (a.parent == b.parent) {
        return Integer.compare(a.index, b.index);
      }
      a = a.parent;
      b = b.parent;
    }
    return 0;
  }

  /** Whether announcing {@code node} at {@code index} of {@code parent}'s list is earlier than where it stands. */
  @SuppressWarnings("NullAway") // a node one level below a parent is not the root: it has a parent
  private static boolean earlierOccurrence(Node parent, int index, Node node) {
    if (parent.depth + 1 != node.depth) {
      return parent.depth + 1 < node.depth;
    }
    if (parent == node.parent) {
      return index < node.index;
    }
    // same depth, so both parents exist and have equal depth
    return compare(parent, node.parent) < 0;
  }

  private final Fetcher fetcher;
  private final Listener listener;
  private final ConcurrencyLimiter limiter;
  private final int limit;
  private final int window;

  private final Object lock = new Object();
  private final AtomicInteger drains = new AtomicInteger();

  // --- guarded by lock ---
  /** Depth 0: the plan's answer, as if it were the answer of a fetch. */
  private final Node root;
  private final Map<String, Node> nodes = new HashMap<>();
  private final TreeSet<Node> ready = new TreeSet<>(WALK_ORDER);
  private final Set<Node> running = new LinkedHashSet<>();
  /** The serial walk's queue; its seen-set is the {@link State#CONSUMED} state. */
  private final ArrayDeque<Node> queue = new ArrayDeque<>();
  private @Nullable Node firstFailure;
  private boolean firstFailureSettled;
  private long demand;
  private int unconsumedStarted;
  private int grantedPermits;
  private boolean waitingForPermit;
  private boolean terminated;
  private int fetchesStarted;
  private int maxDepth;

  public PlanTaskWalk(ScanTasks root, Fetcher fetcher, Listener listener, ConcurrencyLimiter limiter, int limit, int window) {
    this.fetcher = fetcher;
    this.listener = listener;
    this.limiter = limiter;
    this.limit = limit;
    this.window = Math.max(1, window);
    this.root = new Node(null, null, 0, 0);
    this.root.state = State.ANSWERED;
    this.root.tasks = root.fileScanTasks();
    this.root.children = root.planTasks();
    announceChildren(this.root);
    this.queue.add(this.root);
  }

  /** Starts fetching; output waits for {@link #request(long)}. */
  public void start() {
    drain();
  }

  /** Allows {@code n} more non-empty task lists to be emitted. */
  public void request(long n) {
    if (n <= 0) {
      return;
    }
    synchronized (this.lock) {
      this.demand = Long.MAX_VALUE - this.demand <= n ? Long.MAX_VALUE : this.demand + n;
    }
    drain();
  }

  /** Ends the walk without a signal (the caller went away or gave up): aborts every running fetch. */
  public void cancel() {
    synchronized (this.lock) {
      if (this.terminated) {
        return;
      }
      this.terminated = true;
    }
    drain();
  }

  /** Distinct handles whose fetch was started. */
  public int fetchesStarted() {
    synchronized (this.lock) {
      return this.fetchesStarted;
    }
  }

  /** The deepest level of plan-tasks the cursor consumed. */
  public int depth() {
    synchronized (this.lock) {
      return this.maxDepth;
    }
  }

  @Override
  public void permitGranted() {
    synchronized (this.lock) {
      this.waitingForPermit = false;
      this.grantedPermits++;
    }
    drain();
  }

  private void answered(Node node, ScanTasks tasks) {
    synchronized (this.lock) {
      if (node.state != State.RUNNING) {
        return;
      }
      this.running.remove(node);
      node.state = State.ANSWERED;
      node.abort = null;
      node.tasks = tasks.fileScanTasks();
      node.children = tasks.planTasks();
      if (announceChildren(node)) {
        recomputePositions();
      }
    }
    this.limiter.release();
    drain();
  }

  /** Makes new handles in {@code parent}'s answer candidates; whether a known one turned up earlier. */
  @SuppressWarnings("NullAway") // called with a parent just answered: its children are set
  private boolean announceChildren(Node parent) {
    List<String> children = parent.children;
    boolean moved = false;
    for (int i = 0; i < children.size(); i++) {
      String handle = children.get(i);
      Node child = this.nodes.get(handle);
      if (child == null) {
        child = new Node(handle, parent, i, parent.depth + 1);
        this.nodes.put(handle, child);
        this.ready.add(child);
      }
      else if (earlierOccurrence(parent, i, child)) {
        moved = true;
      }
    }
    return moved;
  }

  private void failed(Node node, ScanPlanningException failure) {
    synchronized (this.lock) {
      if (node.state != State.RUNNING) {
        return;
      }
      this.running.remove(node);
      node.state = State.FAILED;
      node.abort = null;
      node.failure = failure;
      if (this.firstFailure == null || compare(node, this.firstFailure) < 0) {
        this.firstFailure = node;
        this.firstFailureSettled = false;
      }
    }
    this.limiter.release();
    drain();
  }

  /** One breadth-first pass over the known graph, pending handles as leaves: every tentative position. */
  @SuppressWarnings("NullAway") // every handle in an answer was made a node when it was announced
  private void recomputePositions() {
    List<Node> waiting = new ArrayList<>(this.ready);
    this.ready.clear();
    Set<Node> visited = new HashSet<>();
    ArrayDeque<Node> pass = new ArrayDeque<>();
    pass.add(this.root);
    while (!pass.isEmpty()) {
      Node parent = pass.poll();
      List<String> children = parent.children;
      if (children == null) {
        continue;
      }
      for (int i = 0; i < children.size(); i++) {
        Node node = this.nodes.get(children.get(i));
        if (visited.add(node)) {
          node.parent = parent;
          node.index = i;
          node.depth = parent.depth + 1;
          pass.add(node);
        }
      }
    }
    this.ready.addAll(waiting);
    this.firstFailure = null;
    for (Node node : this.nodes.values()) {
      if (node.state == State.FAILED && (this.firstFailure == null || compare(node, this.firstFailure) < 0)) {
        this.firstFailure = node;
      }
    }
    this.firstFailureSettled = false;
  }

  /** Work decided under the lock and carried out after it is released. */
  private static final class Actions {
    final List<List<FileScanTask>> emit = new ArrayList<>();
    final List<Node> start = new ArrayList<>();
    final List<Runnable> abort = new ArrayList<>();
    int releasePermits;
    boolean stopWaiting;
    @Nullable ScanPlanningException error;
    boolean complete;
  }

  private void drain() {
    if (this.drains.getAndIncrement() != 0) {
      return;
    }
    int missed = 1;
    do {
      Actions actions = new Actions();
      synchronized (this.lock) {
        step(actions);
      }
      try {
        perform(actions);
      }
      catch (Throwable fatal) {
        // Reactor rethrows JVM-fatal errors (OutOfMemoryError...) from a subscriber's onNext instead of
        // signalling them: the walk cannot go on, but its fetches and permits must not be left behind.
        endAfter(fatal);
        throw fatal;
      }
      missed = this.drains.addAndGet(-missed);
    }
    while (missed != 0);
  }

  /**
   * Ends the walk, without a signal, after carrying out its actions threw. The drain loop is given up and
   * run once more: terminated, it aborts what runs and frees every slot, permits granted meanwhile too.
   */
  private void endAfter(Throwable fatal) {
    synchronized (this.lock) {
      this.terminated = true;
    }
    this.drains.set(0);
    try {
      drain();
    }
    catch (Throwable another) {
      fatal.addSuppressed(another);
    }
  }

  private void step(Actions actions) {
    if (!this.terminated) {
      advanceCursor(actions);
    }
    if (this.terminated) {
      abortEverything(actions);
      return;
    }
    cancelAfterSettledFailure(actions);
    startFetches(actions);
  }

  @SuppressWarnings("NullAway") // a consumed node was answered (children set), and its children are nodes
  private void advanceCursor(Actions actions) {
    while (!this.queue.isEmpty()) {
      Node node = this.queue.peek();
      switch (node.state) {
        case ANSWERED -> {
          List<FileScanTask> tasks = node.tasks;
          if (tasks != null && !tasks.isEmpty()) {
            if (this.demand == 0) {
              return;
            }
            this.demand--;
            actions.emit.add(tasks);
          }
          this.queue.poll();
          node.state = State.CONSUMED;
          node.tasks = null;
          if (node != this.root) {
            this.unconsumedStarted--;
          }
          this.maxDepth = Math.max(this.maxDepth, node.depth);
          for (String child : node.children) {
            this.queue.add(this.nodes.get(child));
          }
        }
        case CONSUMED -> this.queue.poll();
        case FAILED -> {
          actions.error = node.failure;
          this.terminated = true;
          return;
        }
        case CANCELLED -> {
          // Cancellation is only for handles certainly after a failure, which the cursor never reaches.
          actions.error = new ScanPlanningException("internal error: the walk reached a cancelled fetch",
              node.handle, null);
          this.terminated = true;
          return;
        }
        default -> {
          return;
        }
      }
    }
    actions.complete = true;
    this.terminated = true;
  }

  private void abortEverything(Actions actions) {
    for (Node node : this.running) {
      node.state = State.CANCELLED;
      if (node.abort != null) {
        actions.abort.add(node.abort);
        node.abort = null;
      }
      actions.releasePermits++;
    }
    this.running.clear();
    this.ready.clear();
    actions.releasePermits += this.grantedPermits;
    this.grantedPermits = 0;
    if (this.waitingForPermit) {
      this.waitingForPermit = false;
      actions.stopWaiting = true;
    }
  }

  private void cancelAfterSettledFailure(Actions actions) {
    Node failure = this.firstFailure;
    if (failure == null || this.firstFailureSettled || !positionCertain(failure)) {
      return;
    }
    this.firstFailureSettled = true;
    for (var it = this.running.iterator(); it.hasNext();) {
      Node node = it.next();
      if (compare(node, failure) > 0) {
        it.remove();
        node.state = State.CANCELLED;
        this.unconsumedStarted--;
        if (node.abort != null) {
          actions.abort.add(node.abort);
          node.abort = null;
        }
        actions.releasePermits++;
      }
    }
  }

  /**
   * Whether no unanswered handle can still announce a handle before {@code failure}: an announcement
   * by {@code q} lands at depth {@code q.depth + 1}, so only unanswered handles above the failure's
   * parent level, or on that level before its parent, could.
   */
  private boolean positionCertain(Node failure) {
    // the earliest candidate in walk order is the one most able to announce early
    if (!this.ready.isEmpty() && couldAnnounceBefore(this.ready.first(), failure)) {
      return false;
    }
    for (Node node : this.running) {
      if (couldAnnounceBefore(node, failure)) {
        return false;
      }
    }
    return true;
  }

  @SuppressWarnings("NullAway") // a failed node was fetched, so it is not the root: it has a parent
  private static boolean couldAnnounceBefore(Node unanswered, Node failure) {
    if (unanswered.depth < failure.depth - 1) {
      return true;
    }
    return unanswered.depth == failure.depth - 1 && compare(unanswered, failure.parent) < 0;
  }

  private void startFetches(Actions actions) {
    // the node the cursor waits on: advanceCursor leaves it at the front of the queue
    Node head = this.queue.peek();
    while (this.running.size() < this.limit && !this.ready.isEmpty()) {
      Node next = this.ready.first();
      if (this.firstFailure != null && compare(next, this.firstFailure) > 0) {
        break;
      }
      if (this.unconsumedStarted >= this.window && next != head) {
        break;
      }
      if (this.grantedPermits > 0) {
        this.grantedPermits--;
      }
      else if (this.waitingForPermit) {
        break;
      }
      else if (!this.limiter.tryAcquire(this)) {
        this.waitingForPermit = true;
        break;
      }
      this.ready.pollFirst();
      next.state = State.RUNNING;
      this.running.add(next);
      this.unconsumedStarted++;
      this.fetchesStarted++;
      actions.start.add(next);
    }
    actions.releasePermits += this.grantedPermits;
    this.grantedPermits = 0;
  }

  @SuppressWarnings("NullAway") // a node started is fetched, so it is not the root: it has a handle
  private void perform(Actions actions) {
    for (Runnable abort : actions.abort) {
      abort.run();
    }
    if (actions.stopWaiting) {
      this.limiter.stopWaiting(this);
    }
    for (int i = 0; i < actions.releasePermits; i++) {
      this.limiter.release();
    }
    for (List<FileScanTask> tasks : actions.emit) {
      this.listener.onTasks(tasks);
    }
    if (actions.error != null) {
      this.listener.onError(actions.error);
    }
    else if (actions.complete) {
      this.listener.onComplete();
    }
    for (Node node : actions.start) {
      Runnable abort = this.fetcher.fetch(node.handle, new Callback() {
        @Override
        public void succeeded(ScanTasks tasks) {
          answered(node, tasks);
        }

        @Override
        public void failed(ScanPlanningException failure) {
          PlanTaskWalk.this.failed(node, failure);
        }
      });
      // Only this drain loop cancels, after this method returns: a running node keeps its abort action.
      synchronized (this.lock) {
        if (node.state == State.RUNNING) {
          node.abort = abort;
        }
      }
    }
  }
}
