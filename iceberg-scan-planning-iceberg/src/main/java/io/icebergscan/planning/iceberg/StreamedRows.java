package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.stream.Stream;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

/**
 * The rows of a streamed plan: tasks are taken from the planner's stream a few at a time and read one after the
 * other, so memory holds the stream's buffer and one task's reader, whatever the plan's size. Each iterator is a
 * new plan; closing it (or this) cancels the plan's stream and closes the open task.
 */
final class StreamedRows extends CloseableGroup implements CloseableIterable<Record> {

  /** Tasks asked for ahead of the one being read: enough to keep the planner busy while a file is read. */
  private static final int TASKS_AHEAD = 16;

  private final Flux<FileScanTask> tasks;
  private final TaskReader reader;

  StreamedRows(Flux<FileScanTask> tasks, TaskReader reader, @Nullable FileIO ownedIo) {
    this.tasks = tasks;
    this.reader = reader;
    if (ownedIo != null) {
      addCloseable(ownedIo);
    }
  }

  @Override
  public CloseableIterator<Record> iterator() {
    Rows rows = new Rows(this.tasks.toStream(TASKS_AHEAD));
    addCloseable(rows);
    return rows;
  }

  private final class Rows implements CloseableIterator<Record> {

    private final Stream<FileScanTask> stream;
    private final Iterator<FileScanTask> pending;
    private @Nullable CloseableIterator<Record> current;

    Rows(Stream<FileScanTask> stream) {
      this.stream = stream;
      this.pending = stream.iterator();
    }

    @Override
    public boolean hasNext() {
      while (this.current == null || !this.current.hasNext()) {
        closeCurrent();
        if (!this.pending.hasNext()) {
          return false;
        }
        this.current = StreamedRows.this.reader.read(this.pending.next()).iterator();
      }
      return true;
    }

    @Override
    public Record next() {
      if (!hasNext()) {
        throw new NoSuchElementException();
      }
      return this.current.next();
    }

    @Override
    public void close() throws IOException {
      try {
        closeCurrent();
      }
      finally {
        this.stream.close();
      }
    }

    private void closeCurrent() {
      if (this.current != null) {
        try {
          this.current.close();
        }
        catch (IOException closing) {
          throw new java.io.UncheckedIOException(closing);
        }
        this.current = null;
      }
    }
  }
}
