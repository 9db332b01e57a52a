package io.icebergscan.planning.iceberg;

import java.util.function.Function;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import reactor.core.publisher.Flux;

/**
 * Rows as instances of an application's own type ({@link ScanRows#as(Class)}): the same reads, each row mapped as it
 * is handed over. Closing this closes the reads it started.
 *
 * @param <T> the type each row becomes
 */
public final class MappedRows<T> implements CloseableIterable<T> {

  private final ScanRows rows;
  private final Function<Record, T> mapping;

  MappedRows(ScanRows rows, Function<Record, T> mapping) {
    this.rows = rows;
    this.mapping = mapping;
  }

  /** A read of the rows, started now. */
  @Override
  public CloseableIterator<T> iterator() {
    return CloseableIterator.transform(this.rows.iterator(), this.mapping::apply);
  }

  /** The rows as a {@code Flux}, with the backpressure of {@link ScanRows#flux()}. */
  public Flux<T> flux() {
    return this.rows.flux().map(this.mapping);
  }

  /** The same rows, handed over as they are read rather than in task order. */
  public MappedRows<T> unordered() {
    return new MappedRows<>(this.rows.unordered(), this.mapping);
  }

  /** At most the first {@code limit} rows ({@link ScanRows#limit(long)}). */
  public MappedRows<T> limit(long limit) {
    return new MappedRows<>(this.rows.limit(limit), this.mapping);
  }

  /** Closes every read this started; declares no {@code IOException}, as {@link ScanRows#close()}. */
  @Override
  public void close() {
    this.rows.close();
  }

  @Override
  public String toString() {
    return "MappedRows[" + this.rows + "]";
  }
}
