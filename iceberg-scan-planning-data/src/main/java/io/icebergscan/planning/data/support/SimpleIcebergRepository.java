package io.icebergscan.planning.data.support;

import java.util.List;
import java.util.stream.Stream;

import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.TableSnapshot;
import org.apache.iceberg.expressions.Expressions;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;

/**
 * The methods every {@link IcebergRepository} has, over {@link TableReads}.
 *
 * @param <T> the entity
 */
public class SimpleIcebergRepository<T> implements IcebergRepository<T> {

  private final TableReads<T> reads;
  private final TableReads.Shape<T> entities;

  public SimpleIcebergRepository(TableReads<T> reads) {
    this.reads = reads;
    this.entities = TableReads.Shape.entity(reads.entity().getJavaType());
  }

  @Override
  public List<T> findAll(Limit limit) {
    return current().list(Expressions.alwaysTrue(), this.entities, max(limit));
  }

  @Override
  public Stream<T> streamAll() {
    return current().stream(Expressions.alwaysTrue(), this.entities, Long.MAX_VALUE);
  }

  @Override
  public Window<T> findAll(IcebergScrollPosition position, Limit limit) {
    return current().window(Expressions.alwaysTrue(), this.entities, position, max(limit));
  }

  @Override
  public long count() {
    return current().count(Expressions.alwaysTrue());
  }

  private static long max(Limit limit) {
    return limit.isLimited() ? limit.max() : Long.MAX_VALUE;
  }

  private TableReads<T>.Call current() {
    return this.reads.call(TableSnapshot.current());
  }
}
