package io.icebergscan.planning.iceberg;

import java.util.Iterator;
import java.util.List;
import java.util.function.Function;

import io.icebergscan.planning.TaskBatch;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import org.apache.iceberg.FileScanTask;
import org.jspecify.annotations.Nullable;
import org.reactivestreams.Subscription;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;

/** Where a {@link RowPipeline} gets its tasks: a whole plan's list, or a plan streamed as it is planned. */
final class TaskSources {

  private TaskSources() {
  }

  /** The tasks of a whole plan, all read by {@code reader}. */
  static RowPipeline.Source of(RowPipeline pipeline, List<FileScanTask> tasks, TaskReader reader) {
    return new Listed(pipeline, tasks, reader);
  }

  /**
   * The tasks of a plan as the planner streams them, converted to Iceberg's: the first task's batch says which
   * plan it is and which credentials it vended, and {@code readerFor} makes the reader of all of them from that
   * (a FileIO over those credentials, refreshed for that plan id).
   *
   * @param readerFor the read's reader, made once, on the planner's thread that brought the first task: it must not
   *     block
   */
  static RowPipeline.Source streamed(RowPipeline pipeline, Flux<TaskBatch> batches,
      Function<io.icebergscan.planning.model.FileScanTask, FileScanTask> converter,
      Function<TaskBatch, OwnedReader> readerFor) {
    // converted one at a time, as the pipeline asks for them: a batch may hold many
    Flux<Streamed.Task> tasks = batches.flatMapIterable(batch -> converted(batch, converter), 1);
    Streamed source = new Streamed(pipeline, readerFor);
    tasks.subscribe(source);
    return source;
  }

  private static Iterable<Streamed.Task> converted(TaskBatch batch,
      Function<io.icebergscan.planning.model.FileScanTask, FileScanTask> converter) {
    return () -> {
      Iterator<io.icebergscan.planning.model.FileScanTask> planned = batch.tasks().iterator();
      return new Iterator<Streamed.Task>() {
        @Override
        public boolean hasNext() {
          return planned.hasNext();
        }

        @Override
        public Streamed.Task next() {
          return new Streamed.Task(batch, converter.apply(planned.next()));
        }
      };
    };
  }

  /** A reader, and what it reads through that the read owns, closed when the read is over. */
  record OwnedReader(TaskReader reader, @Nullable AutoCloseable owned) {
  }

  private static final class Listed implements RowPipeline.Source {

    private final RowPipeline pipeline;
    private final List<FileScanTask> tasks;
    private final TaskReader reader;
    private int next;
    private boolean ended;

    Listed(RowPipeline pipeline, List<FileScanTask> tasks, TaskReader reader) {
      this.pipeline = pipeline;
      this.tasks = tasks;
      this.reader = reader;
    }

    /** Offers in order: the pipeline may ask again while a task is offered, on this thread or another. */
    @Override
    public synchronized void request(int count) {
      for (int i = 0; i < count && !this.ended && this.next < this.tasks.size(); i++) {
        this.pipeline.offer(this.tasks.get(this.next++), this.reader);
      }
      if (!this.ended && this.next == this.tasks.size()) {
        this.ended = true;
        this.pipeline.sourceDone();
      }
    }

    @Override
    public synchronized void cancel() {
      this.ended = true;
    }
  }

  /** Subscribed when made, asking for tasks only as the pipeline does; its {@code cancel()} is the subscriber's. */
  private static final class Streamed extends BaseSubscriber<Streamed.Task> implements RowPipeline.Source {

    record Task(TaskBatch batch, FileScanTask task) {
    }

    private final RowPipeline pipeline;
    private final Function<TaskBatch, OwnedReader> readerFor;
    /** Made from the first task's batch; read by the pipeline's threads once they have tasks, and by close(). */
    private volatile @Nullable OwnedReader reader;
    /** Demand asked for before the subscription arrived. */
    private long early;

    Streamed(RowPipeline pipeline, Function<TaskBatch, OwnedReader> readerFor) {
      this.pipeline = pipeline;
      this.readerFor = readerFor;
    }

    @Override
    protected void hookOnSubscribe(Subscription subscription) {
      long demand;
      synchronized (this) {
        demand = this.early;
        this.early = 0;
      }
      // the pipeline asks for tasks as it has room for them
      if (demand > 0) {
        subscription.request(demand);
      }
    }

    @Override
    protected void hookOnNext(Task next) {
      OwnedReader read = this.reader;
      if (read == null) {
        read = this.readerFor.apply(next.batch());
        this.reader = read;
      }
      this.pipeline.offer(next.task(), read.reader());
    }

    @Override
    protected void hookOnComplete() {
      this.pipeline.sourceDone();
    }

    @Override
    protected void hookOnError(Throwable failure) {
      this.pipeline.sourceFailed(failure instanceof RuntimeException runtime ? runtime
          : new ScanPlanningException("planning failed: " + failure, null, failure));
    }

    @Override
    public void request(int tasks) {
      synchronized (this) {
        if (upstream() == null) {
          this.early += tasks;
          return;
        }
      }
      request((long) tasks);
    }

    @Override
    public void close() {
      OwnedReader read = this.reader;
      if (read != null && read.owned() != null) {
        try {
          read.owned().close();
        }
        catch (Exception closing) {
          // the read is over: nothing is left to read through it, and nobody to tell
        }
      }
    }
  }
}
