package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.ToLongFunction;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterator;
import org.jspecify.annotations.Nullable;

/**
 * One read of a plan's rows, several tasks at a time: the one place that decides which task is read when, what the
 * reader is handed, and what a failure or a close ends.
 *
 * <ul>
 *   <li><b>Bounded, by a budget.</b> Tasks come from a {@link Source} in task order. At most {@code readAhead} of
 *       them are <em>admitted</em> (being read, or read and not yet handed over), and at most {@code concurrency} of
 *       those have a file open. The rows they hold (read and not handed over, or being read) share one
 *       {@link Budget}, in bytes as its weigher estimates rows (a sample of each chunk weighed, the rest taken to
 *       weigh as much on average): a task reads while the rows held weigh less than the budget, however many it
 *       holds itself, so tasks ahead of the head (the earliest admitted task) keep decoding while the reader is
 *       busy with the head. The head alone is never blocked by the budget: it may always hold up to
 *       {@link #ROWS_PER_TASK} rows of its own, so the read goes on whatever the budget (even one smaller than a
 *       task's rows), as the minimum batch of DuckDB's batch memory manager. Memory is bounded by the budget and
 *       {@code ROWS_PER_TASK} rows, plus the tasks the source has offered and one catalog answer's worth of tasks
 *       more, whatever the plan's size. Tasks paused by the budget resume earliest first as the reader takes
 *       rows.</li>
 *   <li><b>Pipelined.</b> Files are opened earliest task first, as soon as a task is admitted and fewer than
 *       {@code concurrency} files are open; the source is asked for more tasks as admitted ones are handed over, so a
 *       streamed plan is read while it is still being planned.</li>
 *   <li><b>Ordered, or as read.</b> In task order the reader gets a task's rows once every earlier task's rows were
 *       handed over, as Iceberg's {@code IcebergGenerics} gives them, whatever the timing; as read, any task's rows as
 *       soon as they are there.</li>
 *   <li><b>Backpressure.</b> A task stops reading once the budget is spent (the head: once it also holds
 *       {@link #ROWS_PER_TASK} rows): its job ends and gives its thread back, its file stays open, and it goes on
 *       once the reader takes rows. A reader that stops taking rows stops every job, and no thread is held for
 *       it.</li>
 *   <li><b>Failures, in task order.</b> A task that fails cancels every task after it (their files are closed and
 *       their rows dropped) while the tasks before it go on, since one of them may fail first; the read ends with the
 *       failure of the earliest failing task once every task before it was handed over, in both orders, as the
 *       planner's walk ends with the first failing plan-task. A failure of the source counts as a failure after every
 *       task it offered.</li>
 *   <li><b>Read where it is taken, at concurrency 1.</b> A pipeline made {@code inline} submits no job: the thread
 *       that takes rows with {@link #take take(true)} reads the earliest task itself, one chunk at a time, each
 *       handed over before it reads on, so no row is handed between threads where only one task is read at once
 *       and the hand-off would cost more than it buys. The source, failures and closing are as above.</li>
 *   <li><b>Closing.</b> {@link #cancel()} cancels every task: open files that no job reads are closed at once, a job
 *       stops at its next row and closes its file itself, and a reader waiting for rows wakes with a
 *       {@link ReadCancelledException}. {@link #awaitJobs} waits for the jobs to have stopped.</li>
 * </ul>
 *
 * <p>Threads: the state is guarded by one lock, under which the pipeline decides; what it decides (submitting jobs,
 * closing files, asking the source) is done outside the lock. Each task's file is read by one job at a time, on the
 * executor.
 */
final class RowPipeline {

  /**
   * The rows the head task may always hold, whatever the budget; also the most rows a job reads before it hands
   * them over, so a task that may read far ahead still hands rows over in steps and leaves budget to the others.
   */
  static final int ROWS_PER_TASK = 1024;

  /**
   * What the rows held may weigh together, the head's own {@link #ROWS_PER_TASK} rows aside: {@code limit}, in the
   * unit of {@code weigher}, which weighs one row; {@code firstRowWeight} is what a row is taken to weigh before any
   * was weighed.
   */
  record Budget(long limit, ToLongFunction<Record> weigher, long firstRowWeight) {

    Budget {
      if (limit < 1 || firstRowWeight < 1) {
        throw new IllegalArgumentException("budget " + limit + " and first row weight " + firstRowWeight);
      }
    }

    /** A budget of bytes, each row's estimated by {@link RowWeights}. */
    static Budget bytes(long bytes) {
      return new Budget(bytes, RowWeights::of, FIRST_ROW_BYTES);
    }

    /** A budget of rows: every row weighs one. */
    static Budget rows(long rows) {
      return new Budget(rows, row -> 1, 1);
    }
  }

  /**
   * Free budget a task paused by the budget waits for before it resumes, in rows as it weighs them (or the whole
   * budget, when smaller): a job is not started for a few rows.
   */
  private static final int RESUME_ROWS = 256;

  /** What a row is taken to weigh, in bytes, until one of the read was weighed. */
  private static final long FIRST_ROW_BYTES = 256;

  /** Of the rows a job reads, it weighs the first and one in this many. */
  private static final int WEIGH_ONE_IN = 128;

  /**
   * Rows a job reads of a task before it first hands them over: the first rows reach the reader soon; after them a
   * job fills the task's buffer before it hands rows over, since every hand-over may wake the reader, and a reader
   * woken for every few rows spends its time waking (a context switch each, on 2 vCPUs).
   */
  private static final int FIRST_ROWS = 64;

  /** The end of the rows, as {@link #take} returns it. */
  static final ArrayDeque<Record> END = new ArrayDeque<>(0);

  /** Where the tasks of a read come from, in task order. */
  interface Source {

    /** Asks for up to {@code tasks} more tasks, each given to {@link #offer}, then {@link #sourceDone} or failed. */
    void request(int tasks);

    /** No more tasks are wanted. */
    void cancel();

    /** The read is over and no job is left: closes what the source opened for it (a FileIO, say). */
    default void close() {
    }
  }

  private enum State {
    /** Offered by the source, not admitted yet. */
    PENDING,
    /** Admitted, its file not opened yet. */
    QUEUED,
    /** A job reads it. */
    READING,
    /** Its file is open and no job reads it: it holds as many rows as it may. */
    PAUSED,
    /** Every row read and its file closed; rows may be left to hand over. */
    DONE,
    FAILED,
    CANCELLED
  }

  private static final class Slot {

    final long index;
    final FileScanTask task;
    final TaskReader reader;
    State state = State.PENDING;
    ArrayDeque<Record> rows = new ArrayDeque<>();
    /** What the rows it holds weigh; under the lock. */
    long weight;
    /** What one of its rows weighs, as its last chunk was weighed; 0 before any was. Under the lock. */
    long rowWeight;
    /** Rows of the budget its job took for the chunk it reads now, and what they were taken to weigh. */
    int reserved;
    long reservedWeight;
    /** Touched by the slot's job, or under the lock while no job runs (PAUSED). */
    @Nullable CloseableIterator<Record> iterator;
    @Nullable RuntimeException failure;
    /** Set with CANCELLED while a job reads: it stops at its next row. */
    volatile boolean stop;

    Slot(long index, FileScanTask task, TaskReader reader) {
      this.index = index;
      this.task = task;
      this.reader = reader;
    }
  }

  /** What was decided under the lock, to be done outside it. */
  private static final class Actions {

    final List<Slot> start = new ArrayList<>(2);
    final List<CloseableIterator<Record>> close = new ArrayList<>(0);
    int request;
    /** The task the taking thread reads itself, on an inline pipeline. */
    @Nullable Slot readHere;
    boolean cancelSource;
    boolean changed;
    boolean terminated;
  }

  private final String what;
  private final Executor executor;
  private final int concurrency;
  private final int readAhead;
  /** What the rows of every admitted task together may weigh, but for the head's own {@link #ROWS_PER_TASK}. */
  private final long budget;
  private final ToLongFunction<Record> weigher;
  private final boolean ordered;
  /** No job is submitted: the thread that takes rows reads the earliest task itself. */
  private final boolean inline;
  private final @Nullable Runnable onChange;
  private @Nullable Source source;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = this.lock.newCondition();
  private final ArrayDeque<Slot> window = new ArrayDeque<>();
  private final ArrayDeque<Slot> pending = new ArrayDeque<>();
  /** The index the next task offered gets. */
  private long offered;
  /** Tasks asked of the source and not offered yet. */
  private int requested;
  /** What the rows held by the admitted tasks weigh, with what their jobs reserved for the chunks they read. */
  private long held;
  /** What a row of this read weighs, as the last chunk read was weighed: for the tasks not weighed yet. */
  private long rowWeight;
  /** Admitted tasks whose file is open or being opened. */
  private int open;
  /** Jobs submitted and not ended. */
  private int jobs;
  private boolean sourceDone;
  /** The failure of the earliest failing task so far, at {@link #failureIndex}. */
  private @Nullable RuntimeException failure;
  private long failureIndex = Long.MAX_VALUE;
  private boolean cancelled;
  /** The reader was handed the end, or the failure that ended the read. */
  private boolean ended;
  private @Nullable RuntimeException endedWith;
  private boolean terminated;

  /**
   * @param what the rows read, for messages: "plan 7 of db.events", say
   * @param budget what the rows the admitted tasks hold may weigh together, the head's own {@link #ROWS_PER_TASK}
   *     aside
   * @param onChange run after anything the reader may be waiting for changed (a non-blocking reader's drain), or
   *     {@code null}
   * @param inline whether the thread that takes rows reads the tasks itself, one at a time, rather than jobs on
   *     {@code executor}: only at concurrency 1, and for a reader that waits for rows
   */
  RowPipeline(String what, Executor executor, int concurrency, int readAhead, Budget budget, boolean ordered,
      @Nullable Runnable onChange, boolean inline) {
    if (concurrency < 1 || readAhead < concurrency) {
      throw new IllegalArgumentException("concurrency " + concurrency + " and read-ahead " + readAhead);
    }
    if (inline && (concurrency != 1 || onChange != null)) {
      throw new IllegalArgumentException("an inline read is one task at a time, by a reader that waits for rows");
    }
    this.inline = inline;
    this.what = what;
    this.executor = executor;
    this.concurrency = concurrency;
    this.readAhead = readAhead;
    this.budget = budget.limit();
    this.weigher = budget.weigher();
    this.rowWeight = budget.firstRowWeight();
    this.ordered = ordered;
    this.onChange = onChange;
  }

  /** Starts reading from {@code tasks}: asks it for the first ones. */
  void start(Source tasks) {
    Actions actions = new Actions();
    this.lock.lock();
    try {
      this.source = tasks;
      schedule(actions);
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  // ---- the source's side

  /** The next task in task order, read by {@code reader}. */
  void offer(FileScanTask task, TaskReader reader) {
    Actions actions = new Actions();
    this.lock.lock();
    try {
      long index = this.offered++;
      this.requested = Math.max(0, this.requested - 1);
      if (this.cancelled || this.ended || index > this.failureIndex) {
        // a task after a failure, or after the read ended or was cancelled, is not read
        return;
      }
      this.pending.add(new Slot(index, task, reader));
      schedule(actions);
      if (this.inline) {
        // the reader reads it, and may be waiting for it
        changed(actions);
      }
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  /** The source has offered every task. */
  void sourceDone() {
    Actions actions = new Actions();
    this.lock.lock();
    try {
      this.sourceDone = true;
      this.requested = 0;
      changed(actions);
      terminateIfDone(actions);
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  /** The source failed: a failure after every task it offered. */
  void sourceFailed(RuntimeException failure) {
    Actions actions = new Actions();
    this.lock.lock();
    try {
      this.sourceDone = true;
      this.requested = 0;
      failed(this.offered, failure, actions);
      changed(actions);
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  // ---- the reader's side

  /**
   * The next rows: a non-empty batch, or {@link #END}; {@code null} when there are none now and {@code wait} is
   * false. With {@code wait}, blocks until there are. On an inline pipeline, reads them first, on this thread.
   *
   * @throws TaskReadException (or the source's failure) the failure of the earliest failing task, once every task
   *     before it was handed over; again on every later call
   * @throws ReadCancelledException once the read was cancelled before its end, or the waiting thread interrupted
   */
  @Nullable ArrayDeque<Record> take(boolean wait) {
    while (true) {
      Actions actions = new Actions();
      ArrayDeque<Record> rows = null;
      RuntimeException ending = null;
      this.lock.lock();
      try {
        rows = step(actions);
        while (rows == null && wait && isEmpty(actions) && actions.readHere == null) {
          this.changed.await();
          rows = step(actions);
        }
      }
      catch (RuntimeException thrown) {
        ending = thrown;
      }
      catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
        ending = interrupted(actions);
      }
      finally {
        this.lock.unlock();
      }
      perform(actions);
      if (ending != null) {
        throw ending;
      }
      if (actions.readHere != null) {
        read(actions.readHere);
      }
      else if (rows != null || !wait) {
        return rows;
      }
    }
  }

  /**
   * Cancels the read: every task is cancelled and the source too. Safe from any thread, at any time, more than
   * once; a read that had ended stays ended.
   */
  void cancel() {
    Actions actions = new Actions();
    this.lock.lock();
    try {
      if (this.cancelled) {
        return;
      }
      this.cancelled = true;
      cancelEverything(actions);
      changed(actions);
      terminateIfDone(actions);
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  /** Waits until no job of this read runs, at most {@code timeout}: after {@link #cancel()}, its files are closed. */
  boolean awaitJobs(Duration timeout) {
    long left = timeout.toNanos();
    this.lock.lock();
    try {
      while (this.jobs > 0) {
        if (left <= 0) {
          return false;
        }
        left = this.changed.awaitNanos(left);
      }
      return true;
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      return false;
    }
    finally {
      this.lock.unlock();
    }
  }

  // ---- decisions, under the lock

  /** What the reader gets now: rows, the end, or null; throws what ends the read. */
  private @Nullable ArrayDeque<Record> step(Actions actions) {
    if (this.ended) {
      if (this.endedWith != null) {
        throw this.endedWith;
      }
      return END;
    }
    if (this.cancelled) {
      throw new ReadCancelledException("the rows of " + this.what + " were closed before all were read");
    }
    // one task is read at a time inline: in task order, as read or not
    return this.ordered || this.inline ? stepInOrder(actions) : stepAsRead(actions);
  }

  private @Nullable ArrayDeque<Record> stepInOrder(Actions actions) {
    while (true) {
      Slot head = this.window.peekFirst();
      if (head == null) {
        return noTaskLeft(actions, this.pending.isEmpty() ? this.offered : this.pending.peekFirst().index);
      }
      if (!head.rows.isEmpty()) {
        return handOver(head, actions);
      }
      switch (head.state) {
        case DONE, CANCELLED -> {
          this.window.pollFirst();
          schedule(actions);
        }
        case FAILED -> {
          return endWith(head.failure, actions);
        }
        case QUEUED, PAUSED -> {
          if (this.inline) {
            // read here, outside the lock: its rows are the next handed over
            this.open += head.state == State.QUEUED ? 1 : 0;
            head.state = State.READING;
            this.jobs++;
            actions.readHere = head;
          }
          return null;
        }
        default -> {
          return null;
        }
      }
    }
  }

  private @Nullable ArrayDeque<Record> stepAsRead(Actions actions) {
    boolean removed = false;
    for (Iterator<Slot> slots = this.window.iterator(); slots.hasNext();) {
      Slot slot = slots.next();
      if (slot.state == State.CANCELLED || slot.state == State.DONE && slot.rows.isEmpty()) {
        slots.remove();
        removed = true;
      }
    }
    if (removed) {
      schedule(actions);
    }
    for (Slot slot : this.window) {
      if (!slot.rows.isEmpty()) {
        return handOver(slot, actions);
      }
    }
    Slot earliest = this.window.peekFirst();
    long lowest = earliest != null ? earliest.index
        : this.pending.isEmpty() ? this.offered : this.pending.peekFirst().index;
    if (earliest != null && earliest.state == State.FAILED) {
      return endWith(earliest.failure, actions);
    }
    return earliest == null ? noTaskLeft(actions, lowest) : null;
  }

  /** No admitted task: the end, the failure after the last task, or nothing yet. */
  private @Nullable ArrayDeque<Record> noTaskLeft(Actions actions, long lowest) {
    if (!this.pending.isEmpty()) {
      schedule(actions);
      return null;
    }
    if (this.failure != null && this.failureIndex <= lowest) {
      return endWith(this.failure, actions);
    }
    if (this.sourceDone) {
      this.ended = true;
      terminateIfDone(actions);
      return END;
    }
    return null;
  }

  private ArrayDeque<Record> handOver(Slot slot, Actions actions) {
    ArrayDeque<Record> rows = slot.rows;
    slot.rows = new ArrayDeque<>();
    this.held -= slot.weight;
    slot.weight = 0;
    resume(actions);
    return rows;
  }

  /**
   * Restarts the paused tasks that have room now, earliest first: the head once it holds fewer than
   * {@link #ROWS_PER_TASK}, the others while the budget has {@link #RESUME_ROWS} free, a task's worth of it counted
   * for each one restarted.
   */
  private void resume(Actions actions) {
    if (this.cancelled || this.ended || this.inline) {
      // inline, the reader goes on with the head itself
      return;
    }
    Slot head = this.window.peekFirst();
    long free = this.budget - this.held;
    for (Slot slot : this.window) {
      if (slot.state != State.PAUSED) {
        continue;
      }
      if (slot == head ? room(slot) > 0 : free >= Math.min(this.budget, RESUME_ROWS * rowWeight(slot))) {
        if (slot != head) {
          free -= ROWS_PER_TASK * rowWeight(slot);
        }
        slot.state = State.READING;
        this.jobs++;
        actions.start.add(slot);
      }
      else if (slot != head) {
        return;
      }
    }
  }

  /**
   * The rows {@code slot} may read now: as many as what is left of the budget holds, as its rows weigh, and for the
   * head at least what is left of its own {@link #ROWS_PER_TASK}.
   */
  private long room(Slot slot) {
    long free = Math.max(0, this.budget - this.held) / rowWeight(slot);
    return this.window.peekFirst() == slot ? Math.max(free, ROWS_PER_TASK - slot.rows.size() - slot.reserved)
        : free;
  }

  /** What a row of {@code slot} weighs: as its last chunk was weighed, or the read's last chunk before it has one. */
  private long rowWeight(Slot slot) {
    return slot.rowWeight > 0 ? slot.rowWeight : this.rowWeight;
  }

  private ArrayDeque<Record> endWith(@Nullable RuntimeException failure, Actions actions) {
    RuntimeException ending = failure != null ? failure
        : new ScanPlanningException("reading the rows of " + this.what + " failed");
    this.ended = true;
    this.endedWith = ending;
    cancelEverything(actions);
    terminateIfDone(actions);
    throw ending;
  }

  /** Admits tasks, starts reading the earliest admitted ones and asks the source for more, within the bounds. */
  private void schedule(Actions actions) {
    if (this.cancelled || this.ended) {
      return;
    }
    while (this.window.size() < this.readAhead && !this.pending.isEmpty()) {
      Slot admitted = this.pending.pollFirst();
      admitted.state = State.QUEUED;
      this.window.addLast(admitted);
    }
    if (this.open < this.concurrency && !this.inline) {
      for (Slot slot : this.window) {
        if (this.open >= this.concurrency) {
          break;
        }
        if (slot.state == State.QUEUED) {
          slot.state = State.READING;
          this.open++;
          this.jobs++;
          actions.start.add(slot);
        }
      }
    }
    if (!this.sourceDone && this.source != null) {
      int wanted = this.readAhead - this.window.size() - this.pending.size() - this.requested;
      if (wanted > 0) {
        this.requested += wanted;
        actions.request += wanted;
      }
    }
    resume(actions);
  }

  /** A failure at {@code index}: every task after the earliest failure is cancelled. */
  private void failed(long index, RuntimeException failure, Actions actions) {
    if (index >= this.failureIndex) {
      return;
    }
    this.failure = failure;
    this.failureIndex = index;
    for (Slot slot : this.window) {
      if (slot.index > index) {
        cancel(slot, actions);
      }
    }
    this.pending.removeIf(slot -> slot.index > index);
    if (!this.sourceDone) {
      // no task after the failure is read: the source need not plan them
      this.sourceDone = true;
      this.requested = 0;
      actions.cancelSource = true;
    }
  }

  private void cancelEverything(Actions actions) {
    for (Slot slot : this.window) {
      cancel(slot, actions);
    }
    this.pending.clear();
    if (!this.sourceDone) {
      this.sourceDone = true;
      actions.cancelSource = true;
    }
  }

  private void cancel(Slot slot, Actions actions) {
    switch (slot.state) {
      case READING -> {
        // its job closes the file at its next row, and counts it closed
        slot.stop = true;
        slot.state = State.CANCELLED;
      }
      case PAUSED -> {
        slot.state = State.CANCELLED;
        if (slot.iterator != null) {
          actions.close.add(slot.iterator);
          slot.iterator = null;
        }
        this.open--;
      }
      case PENDING, QUEUED -> slot.state = State.CANCELLED;
      default -> {
        // DONE and FAILED have closed their files
      }
    }
    drop(slot);
  }

  /** Drops the rows {@code slot} holds: they give their budget back. */
  private void drop(Slot slot) {
    this.held -= slot.weight;
    slot.weight = 0;
    slot.rows = new ArrayDeque<>(0);
  }

  private void changed(Actions actions) {
    this.changed.signalAll();
    actions.changed = true;
  }

  /** Once the read has ended or was cancelled and its last job is gone: what the read owns may be closed. */
  private void terminateIfDone(Actions actions) {
    if (!this.terminated && (this.ended || this.cancelled) && this.jobs == 0) {
      this.terminated = true;
      actions.terminated = true;
    }
  }

  /** The reading thread was interrupted while it waited: the read ends, cancelled. */
  private RuntimeException interrupted(Actions actions) {
    if (!this.ended) {
      this.ended = true;
      this.endedWith = new ReadCancelledException("reading the rows of " + this.what + " was interrupted");
      cancelEverything(actions);
      terminateIfDone(actions);
    }
    return this.endedWith != null ? this.endedWith : new ReadCancelledException("reading the rows of " + this.what
        + " was interrupted");
  }

  private static boolean isEmpty(Actions actions) {
    return actions.start.isEmpty() && actions.close.isEmpty() && actions.request == 0 && !actions.cancelSource;
  }

  // ---- what was decided, outside the lock

  private void perform(Actions actions) {
    for (CloseableIterator<Record> rows : actions.close) {
      closeQuietly(rows);
    }
    Source tasks = this.source;
    if (tasks != null) {
      if (actions.cancelSource) {
        tasks.cancel();
      }
      else if (actions.request > 0) {
        tasks.request(actions.request);
      }
    }
    for (Slot slot : actions.start) {
      submit(slot);
    }
    if (actions.terminated && tasks != null) {
      tasks.close();
    }
    if (actions.changed && this.onChange != null) {
      this.onChange.run();
    }
  }

  private void submit(Slot slot) {
    try {
      this.executor.execute(() -> read(slot));
    }
    catch (RejectedExecutionException refused) {
      ended(slot, null, new ScanPlanningException("reading " + slot.reader.describe(slot.task) + " was refused by "
          + "the reading executor", null, refused), END, false);
    }
  }

  /**
   * A task's job, or an inline reader's turn: reads rows into the task's buffer until it is full, the file ends, or
   * the task is cancelled.
   */
  private void read(Slot slot) {
    CloseableIterator<Record> rows = slot.iterator;
    // a job that opens the task hands its first rows over soon; one that goes on with an open task fills the buffer
    boolean firstChunk = rows == null;
    try {
      if (rows == null) {
        if (slot.stop) {
          ended(slot, null, null, END, false);
          return;
        }
        rows = slot.reader.read(slot.task).iterator();
        slot.iterator = rows;
      }
      while (true) {
        int wanted;
        this.lock.lock();
        try {
          if (slot.state == State.CANCELLED) {
            wanted = -1;
          }
          else {
            long room = room(slot);
            if (room <= 0) {
              // the budget is spent (and the head holds its own rows): give the thread back and keep the file open
              // until the reader takes rows
              slot.state = State.PAUSED;
              this.jobs--;
              this.changed.signalAll();
              return;
            }
            wanted = (int) Math.min(room, firstChunk ? FIRST_ROWS : ROWS_PER_TASK);
            // taken from the budget while the rows are read outside the lock, so other jobs see them held
            slot.reserved = wanted;
            slot.reservedWeight = wanted * rowWeight(slot);
            this.held += slot.reservedWeight;
          }
        }
        finally {
          this.lock.unlock();
        }
        if (wanted < 0) {
          ended(slot, rows, null, END, false);
          return;
        }
        firstChunk = false;
        // sized once: it becomes the task's buffer as it is when that is empty, as the head's mostly is
        ArrayDeque<Record> chunk = new ArrayDeque<>(wanted);
        boolean end = false;
        while (chunk.size() < wanted && !slot.stop) {
          if (!rows.hasNext()) {
            end = true;
            break;
          }
          chunk.add(rows.next());
        }
        if (end) {
          ended(slot, rows, null, chunk, true);
          return;
        }
        long weight = weigh(chunk);
        Actions actions = new Actions();
        boolean handOverFirst = false;
        this.lock.lock();
        try {
          unreserve(slot);
          if (slot.state != State.CANCELLED) {
            hold(slot, chunk, weight);
            if (awaited(slot)) {
              changed(actions);
            }
            if (this.inline) {
              // the reader hands this chunk over before it reads on: reading further first buys it nothing
              slot.state = State.PAUSED;
              this.jobs--;
              handOverFirst = true;
            }
          }
        }
        finally {
          this.lock.unlock();
        }
        perform(actions);
        if (handOverFirst) {
          return;
        }
      }
    }
    catch (RuntimeException failure) {
      ended(slot, rows, failure, END, false);
    }
    catch (Error fatal) {
      // the read must still end, or its reader would wait for this task for good; the executor sees the error
      ended(slot, rows, slot.reader.failed(slot.task, fatal), END, false);
      throw fatal;
    }
  }

  /**
   * A job ends: the task was read to its end (its last rows in {@code chunk}), failed, or was cancelled; its file
   * closed, the job counted out, and what follows decided.
   */
  private void ended(Slot slot, @Nullable CloseableIterator<Record> rows, @Nullable RuntimeException failure,
      ArrayDeque<Record> chunk, boolean end) {
    if (rows != null) {
      RuntimeException closing = closeQuietly(rows);
      if (closing != null && failure == null && end) {
        failure = slot.reader.failed(slot.task, closing);
        end = false;
      }
    }
    long weight = weigh(chunk);
    Actions actions = new Actions();
    this.lock.lock();
    try {
      slot.iterator = null;
      this.open--;
      this.jobs--;
      unreserve(slot);
      if (slot.state != State.CANCELLED) {
        if (failure != null) {
          slot.state = State.FAILED;
          slot.failure = failure;
          drop(slot);
          failed(slot.index, failure, actions);
        }
        else if (end) {
          slot.state = State.DONE;
          hold(slot, chunk, weight);
        }
      }
      schedule(actions);
      if (awaited(slot) || this.jobs == 0) {
        changed(actions);
      }
      terminateIfDone(actions);
    }
    finally {
      this.lock.unlock();
    }
    perform(actions);
  }

  /** The job of {@code slot} gives back the budget it took for its chunk; the rows it keeps are counted as held. */
  private void unreserve(Slot slot) {
    this.held -= slot.reservedWeight;
    slot.reserved = 0;
    slot.reservedWeight = 0;
  }

  /** {@code slot} holds {@code chunk}, which weighs {@code weight}: the next rows it reads are taken to weigh alike. */
  private void hold(Slot slot, ArrayDeque<Record> chunk, long weight) {
    if (chunk.isEmpty()) {
      return;
    }
    if (slot.rows.isEmpty()) {
      slot.rows = chunk;
    }
    else {
      slot.rows.addAll(chunk);
    }
    slot.weight += weight;
    this.held += weight;
    slot.rowWeight = Math.max(1, weight / chunk.size());
    this.rowWeight = slot.rowWeight;
  }

  /**
   * What {@code chunk} weighs, at least one a row: its first row and one in {@link #WEIGH_ONE_IN} weighed, the rest
   * taken to weigh as much on average. Outside the lock.
   */
  private long weigh(ArrayDeque<Record> chunk) {
    int size = chunk.size();
    long sampled = 0;
    int weighed = 0;
    int row = 0;
    for (Record record : chunk) {
      if (row++ % WEIGH_ONE_IN == 0) {
        sampled += this.weigher.applyAsLong(record);
        weighed++;
      }
    }
    return weighed == 0 ? 0 : Math.max(size, sampled * size / weighed);
  }

  /**
   * Whether the reader may be waiting for what {@code slot} did: in task order it waits for the earliest task only
   * (waking it for the others' rows would only put it back to sleep, a context switch per chunk), as read for any;
   * once cancelled or ended, {@link #awaitJobs} waits for every job.
   */
  private boolean awaited(Slot slot) {
    return !this.ordered || this.window.peekFirst() == slot || this.cancelled || this.ended;
  }

  private static @Nullable RuntimeException closeQuietly(CloseableIterator<Record> rows) {
    try {
      rows.close();
      return null;
    }
    catch (IOException | RuntimeException closing) {
      return closing instanceof RuntimeException runtime ? runtime : new java.io.UncheckedIOException(
          (IOException) closing);
    }
  }
}
