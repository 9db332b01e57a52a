package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxSink;
import reactor.core.scheduler.Schedulers;

/**
 * The rows of a scan, with deletes applied and residuals evaluated, read up to the planner's {@code readConcurrency}
 * tasks at a time on its reading executor, the next tasks read ahead into a bounded buffer.
 *
 * <ul>
 *   <li><b>Order.</b> In task order (the plan's walk order), each task's rows in file order, as Apache Iceberg's
 *       {@code IcebergGenerics} gives them, whatever the timing; {@link #unordered()} hands rows over as they are read
 *       instead, for throughput. The order is that of one plan: a catalog may list the tasks of another plan of the
 *       same scan in another order, and each read of a streamed plan ({@code readRows}) is a plan of its own.</li>
 *   <li><b>Memory.</b> At most {@code readConcurrency} files are open, and at most {@code 2 × readConcurrency} tasks
 *       hold rows not yet taken, weighing {@code readBufferBytes} together at most (as estimated from a sample of
 *       the rows read), and the earliest task {@value RowPipeline#ROWS_PER_TASK} rows of its own besides: tasks
 *       ahead of the one being handed over keep reading while that budget allows. A reader that stops taking rows
 *       stops the reading.</li>
 *   <li><b>Threads.</b> Tasks are read on the planner's reading executor; at read concurrency 1, an iterator's
 *       thread reads them itself, since with one task at a time a hand-off between threads costs more than it
 *       buys.</li>
 *   <li><b>Failures.</b> A task that cannot be read ends the read with its {@link TaskReadException} once the rows of
 *       every task before it were handed over; if several fail, the earliest in task order, whatever the timing.
 *       Reads of later tasks are cancelled and their files closed.</li>
 *   <li><b>Closing.</b> Closing an iterator (or this, which closes every iterator it handed out) cancels its read:
 *       files open are closed, by the time {@code close()} returns unless a storage read takes longer than
 *       {@value #CLOSE_WAIT_SECONDS} s to return. A thread waiting for rows in {@code hasNext()} when another closes
 *       the iterator wakes with a {@link ReadCancelledException}, as does any call for rows after a close that came
 *       before the end: rows cut short never end as if they were all.</li>
 * </ul>
 *
 * <p>Each {@link #iterator()} is a read of its own, and so is each subscription to {@link #flux()}.
 */
public final class ScanRows extends CloseableGroup implements CloseableIterable<Record> {

  /** How long {@code close()} waits for reads in progress to stop and close their files. */
  static final int CLOSE_WAIT_SECONDS = 10;

  private final String what;
  private final Reading reading;
  private final Function<RowPipeline, RowPipeline.Source> sources;
  private final Runnable checkOpen;
  /** The columns of every row, which {@link #as(Class)} maps by name, case-sensitively as the scan is or not. */
  private final Types.StructType columns;
  private final boolean caseSensitive;
  private final boolean ordered;
  /** Rows a read hands over at most before it ends, its files closed and its plan (if streamed) abandoned. */
  private final long limit;

  /**
   * Where and how many tasks at a time rows are read, and what the rows a read holds may weigh at most
   * ({@code bufferBytes}, the pipeline's budget).
   */
  record Reading(Executor executor, int concurrency, long bufferBytes) {

    /** Reading with the default budget. */
    Reading(Executor executor, int concurrency) {
      this(executor, concurrency, IcebergScanPlanner.Builder.DEFAULT_READ_BUFFER_BYTES);
    }

    /** Admitted tasks per file open: the next tasks are read while earlier ones wait to be taken. */
    int readAhead() {
      return 2 * this.concurrency;
    }
  }

  /**
   * @param what the rows read, for messages: "plan 7 of db.events", say
   * @param sources the source of the tasks of each read, for its pipeline; called on the thread that starts the
   *     read, which may block
   * @param checkOpen throws an {@link IllegalStateException} naming the plan once its rows may no longer be read
   * @param columns the columns of every row
   */
  ScanRows(String what, Reading reading, Function<RowPipeline, RowPipeline.Source> sources, Runnable checkOpen,
      Types.StructType columns, boolean caseSensitive) {
    this.what = what;
    this.reading = reading;
    this.sources = sources;
    this.checkOpen = checkOpen;
    this.columns = columns;
    this.caseSensitive = caseSensitive;
    this.ordered = true;
    this.limit = Long.MAX_VALUE;
  }

  private ScanRows(ScanRows rows, boolean ordered, long limit) {
    this.what = rows.what;
    this.reading = rows.reading;
    this.sources = rows.sources;
    this.checkOpen = rows.checkOpen;
    this.columns = rows.columns;
    this.caseSensitive = rows.caseSensitive;
    this.ordered = ordered;
    this.limit = limit;
  }

  /** The same rows, handed over as they are read rather than in task order. */
  public ScanRows unordered() {
    return new ScanRows(this, false, this.limit);
  }

  /**
   * The same rows, at most the first {@code limit} of them (in task order, or as read when {@link #unordered()}): a
   * read ends once it has handed them over, as if closed there, so the files it has open are closed, the tasks not
   * read yet are not, and a plan streamed for it ({@code readRows}) is abandoned. The first of one plan's order: two
   * plans of the same scan may give other rows, so sort the rows for a first {@code limit} that is always the same.
   *
   * @throws IllegalArgumentException when negative
   */
  public ScanRows limit(long limit) {
    if (limit < 0) {
      throw new IllegalArgumentException("limit must not be negative, but was " + limit);
    }
    return new ScanRows(this, this.ordered, Math.min(limit, this.limit));
  }

  /**
   * The same rows as instances of {@code type}: a Java record's components, or a bean's setters, filled from the
   * columns of the same name ({@link RowMapping} says which Java types hold which columns).
   *
   * @throws RowMappingException now, before any file is read, when {@code type} does not fit the rows' columns,
   *     naming the component and the column
   */
  public <T> MappedRows<T> as(Class<T> type) {
    return new MappedRows<>(this, RowMapping.of(type, this.columns, this.caseSensitive));
  }

  /** Whether rows come in task order. */
  public boolean ordered() {
    return this.ordered;
  }

  /**
   * A read of the rows, started now.
   *
   * @throws IllegalStateException when the plan the rows are of is closed
   */
  @Override
  public CloseableIterator<Record> iterator() {
    this.checkOpen.run();
    // one task at a time, the thread that takes the rows reads them: a hand-off between threads would cost more than
    // it buys (docs/benchmarks.md)
    RowPipeline pipeline = pipeline(null, this.reading.concurrency() == 1);
    RowIterator rows = new RowIterator(pipeline, this.limit);
    addCloseable(rows);
    if (this.limit > 0) {
      pipeline.start(this.sources.apply(pipeline));
    }
    return rows;
  }

  /**
   * The rows as a {@code Flux}, a read of its own per subscription, with backpressure that reaches the file
   * readers: rows are read as far ahead as the bounds above allow, and no further until requested. Cancelling the
   * subscription cancels the read; its files are closed as its jobs notice, without the subscriber waiting. Safe to
   * subscribe on a non-blocking thread: the read starts on the reading executor.
   */
  public Flux<Record> flux() {
    if (this.limit == 0) {
      return Flux.defer(() -> {
        this.checkOpen.run();
        return Flux.empty();
      });
    }
    Flux<Record> rows = Flux.<Record>create(sink -> {
      FluxReader reader = new FluxReader(sink);
      sink.onRequest(requested -> reader.drain());
      sink.onDispose(reader.pipeline::cancel);
      this.checkOpen.run();
      reader.pipeline.start(this.sources.apply(reader.pipeline));
      reader.drain();
    }, FluxSink.OverflowStrategy.ERROR).subscribeOn(Schedulers.fromExecutor(this.reading.executor()), false);
    // take() cancels the read once the limit is handed over, as a subscriber's cancel does
    return this.limit == Long.MAX_VALUE ? rows : rows.take(this.limit, true);
  }

  /**
   * Closes every read this handed out, as closing each of them would. Declares no {@code IOException}, unlike
   * {@code CloseableIterable}, so that a try-with-resources over rows needs no catch: closing a read only cancels it.
   *
   * @throws UncheckedIOException if closing a read failed, which none of them does
   */
  @Override
  public void close() {
    try {
      super.close();
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  @Override
  public String toString() {
    return "ScanRows[" + this.what + (this.ordered ? ", in task order" : ", as read")
        + (this.limit == Long.MAX_VALUE ? "" : ", at most " + this.limit + " rows") + ", read concurrency "
        + this.reading.concurrency() + "]";
  }

  /** A read's pipeline, reading as this says: where, how many tasks at a time, within what budget, in what order. */
  private RowPipeline pipeline(@Nullable Runnable onChange, boolean inline) {
    return new RowPipeline(this.what, this.reading.executor(), this.reading.concurrency(), this.reading.readAhead(),
        RowPipeline.Budget.bytes(this.reading.bufferBytes()), this.ordered, onChange, inline);
  }

  private static final class RowIterator implements CloseableIterator<Record> {

    private final RowPipeline pipeline;
    private @Nullable ArrayDeque<Record> rows;
    private boolean end;
    /** Rows still to hand over before the limit. */
    private long left;

    /** With a limit of 0, the pipeline is never started: the read has ended before it began. */
    RowIterator(RowPipeline pipeline, long limit) {
      this.pipeline = pipeline;
      this.left = limit;
      this.end = limit == 0;
    }

    @Override
    public boolean hasNext() {
      if (this.left == 0) {
        if (!this.end) {
          // the limit is handed over: the read ends as a close ends it
          this.end = true;
          close();
        }
        return false;
      }
      if (this.rows != null && !this.rows.isEmpty()) {
        return true;
      }
      if (this.end) {
        return false;
      }
      ArrayDeque<Record> next = this.pipeline.take(true);
      if (next == RowPipeline.END) {
        this.end = true;
        this.rows = null;
        return false;
      }
      this.rows = next;
      return true;
    }

    @Override
    public Record next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      this.left--;
      // hasNext() left a batch with a row in it
      return Objects.requireNonNull(this.rows).poll();
    }

    /** Rows taken from the pipeline and not handed out yet are dropped: after a close, only the end or a failure. */
    @Override
    public void close() {
      this.rows = null;
      this.pipeline.cancel();
      this.pipeline.awaitJobs(Duration.ofSeconds(CLOSE_WAIT_SECONDS));
    }
  }

  /** Emits rows as the subscriber requests them, from whichever thread has news: one drain at a time. */
  private final class FluxReader {

    private final FluxSink<Record> sink;
    private final RowPipeline pipeline;
    private final AtomicInteger draining = new AtomicInteger();
    private @Nullable ArrayDeque<Record> rows;
    private boolean done;

    FluxReader(FluxSink<Record> sink) {
      this.sink = sink;
      this.pipeline = pipeline(this::drain, false);
    }

    void drain() {
      if (this.draining.getAndIncrement() != 0) {
        return;
      }
      int missed = 1;
      do {
        emit();
        missed = this.draining.addAndGet(-missed);
      }
      while (missed != 0);
    }

    private void emit() {
      long demand = this.sink.requestedFromDownstream();
      while (!this.done && !this.sink.isCancelled()) {
        if (this.rows == null || this.rows.isEmpty()) {
          // taken even without demand: the end and a failure need none, and one batch is all that is held here
          ArrayDeque<Record> next;
          try {
            next = this.pipeline.take(false);
          }
          catch (RuntimeException failure) {
            this.done = true;
            this.sink.error(failure);
            return;
          }
          if (next == null) {
            return;
          }
          if (next == RowPipeline.END) {
            this.done = true;
            this.sink.complete();
            return;
          }
          this.rows = next;
        }
        if (demand == 0) {
          return;
        }
        this.sink.next(this.rows.poll());
        demand--;
      }
    }
  }
}
