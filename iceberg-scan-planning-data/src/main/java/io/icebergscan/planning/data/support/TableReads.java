package io.icebergscan.planning.data.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Spliterators;
import java.util.function.Function;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

import io.icebergscan.planning.data.ExpiredScrollPositionException;
import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.TableSnapshot;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.RowMapping;
import io.icebergscan.planning.iceberg.ScanRows;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Window;
import org.springframework.data.core.PropertyPath;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * The one place a repository reads its entity's table: every repository call loads the table (as the planner's
 * current caller, when it plans as its callers), builds one {@link IcebergScan}, and reads it through
 * {@link IcebergScanPlanner}, whose reads enforce the table's read restrictions. Which columns are read, how rows
 * become entities, how a window pages and when a count may trust the plan's record counts are decided here, for
 * blocking and reactive repositories alike.
 *
 * @param <T> the entity
 */
public final class TableReads<T> {

  private static final String FILE = MetadataColumns.FILE_PATH.name();
  private static final String POSITION = MetadataColumns.ROW_POSITION.name();

  private final IcebergScanPlanner planner;
  private final IcebergEntity<T> entity;

  public TableReads(IcebergScanPlanner planner, IcebergEntity<T> entity) {
    this.planner = planner;
    this.entity = entity;
  }

  public IcebergEntity<T> entity() {
    return this.entity;
  }

  /** One call's table: loaded now, to be read at {@code snapshot}. */
  public Call call(TableSnapshot snapshot) {
    return new Call(this.planner.loadTable(this.entity.table()), snapshot);
  }

  /**
   * One reactive call's table, to be read at {@code snapshot}: loaded per subscription on the planner's reading
   * executor, as the caller found on the calling thread or else in the subscriber's context
   * ({@link IcebergScanPlanner#loadTableReactively}). It arrives on the reading executor, where the call's blocking
   * work ({@link Call#window}, the plan of {@link Call#countReactively}) may run; never on the subscriber's thread.
   */
  public Mono<Call> callReactively(TableSnapshot snapshot) {
    return this.planner.loadTableReactively(this.entity.table()).map(table -> new Call(table, snapshot));
  }

  /**
   * The rows a call returns, as {@code R}: the columns read (all of the entity's when {@code properties} is
   * {@code null}), and what each entity read with only those columns becomes.
   *
   * @param properties the entity's properties the result needs, {@code null} for all of them
   */
  public record Shape<R>(@Nullable List<String> properties, Function<Object, R> result) {

    public static <T> Shape<T> entity(Class<T> type) {
      return new Shape<>(null, type::cast);
    }
  }

  /** A repository call's view of the table it loaded. */
  public final class Call {

    private final IcebergTable table;
    private final TableSnapshot snapshot;
    private final Schema schema;

    private Call(IcebergTable table, TableSnapshot snapshot) {
      this.table = table;
      this.snapshot = snapshot;
      this.schema = table.schemaOf(snapshot.applyTo(IcebergScan.all()));
    }

    public IcebergTable table() {
      return this.table;
    }

    public Schema schema() {
      return this.schema;
    }

    /**
     * The column a property path of the entity maps ({@code address.city} to {@code address.city_name}), as Iceberg
     * names it in a filter or a {@code select}.
     *
     * @throws io.icebergscan.planning.iceberg.RowMappingException when a property has no column
     */
    public Types.NestedField column(PropertyPath path) {
      Types.StructType struct = this.schema.asStruct();
      Class<?> owner = entity.getJavaType();
      Types.NestedField column = null;
      for (PropertyPath segment : path) {
        if (column != null) {
          struct = column.type().asStructType();
        }
        column = RowMapping.column(owner, segment.getSegment(), struct, true);
        owner = segment.getType();
      }
      return Objects.requireNonNull(column, "a property path has a segment");
    }

    /** The column's name as a filter or a select names it: dotted from the table's top level. */
    public String columnName(PropertyPath path) {
      return this.schema.findColumnName(column(path).fieldId());
    }

    private List<String> columns(@Nullable List<String> properties) {
      List<String> columns = new ArrayList<>();
      for (String property : properties == null ? entity.properties() : properties) {
        columns.add(columnName(PropertyPath.from(property, entity.getJavaType())));
      }
      return columns;
    }

    private IcebergScan scan(Expression filter, List<String> columns) {
      return this.snapshot.applyTo(IcebergScan.all()).filter(filter).select(columns);
    }

    private <R> Function<Record, R> mapping(Shape<R> shape, Types.StructType read) {
      Function<Record, T> entities = shape.properties() == null
          ? RowMapping.of(entity.getJavaType(), read, true)
          : RowMapping.ofSelected(entity.getJavaType(), read, true);
      return entities.andThen(shape.result());
    }

    /** At most {@code limit} rows matching {@code filter}, in the plan's task order. */
    public <R> List<R> list(Expression filter, Shape<R> shape, long limit) {
      List<R> rows = new ArrayList<>();
      try (Stream<R> stream = stream(filter, shape, limit)) {
        stream.forEach(rows::add);
      }
      return rows;
    }

    /** The rows matching {@code filter}, read as the stream is consumed, until it is closed. */
    public <R> Stream<R> stream(Expression filter, Shape<R> shape, long limit) {
      ScanRows rows = rows(filter, columns(shape.properties()), limit);
      CloseableIterator<Record> read = rows.iterator();
      Function<Record, R> mapping = lazily(shape);
      Iterator<R> mapped = new Iterator<>() {
        @Override
        public boolean hasNext() {
          return read.hasNext();
        }

        @Override
        public R next() {
          return mapping.apply(read.next());
        }
      };
      return StreamSupport.stream(Spliterators.spliteratorUnknownSize(mapped, 0), false).onClose(rows::close);
    }

    /**
     * The rows matching {@code filter} as a {@code Flux}, a read of its own per subscription, with the subscriber's
     * demand reaching the file readers: cancelling it (or a {@code take(n)}) ends the read and closes its files.
     * Safe to subscribe to on a non-blocking thread.
     */
    public <R> Flux<R> flux(Expression filter, Shape<R> shape, long limit) {
      return rows(filter, columns(shape.properties()), limit).flux().map(lazily(shape));
    }

    private ScanRows rows(Expression filter, List<String> columns, long limit) {
      ScanRows rows = planner.readRows(this.table, scan(filter, columns));
      return limit < Long.MAX_VALUE ? rows.limit(limit) : rows;
    }

    /** A mapping made from the first row's columns, which are the scan's. */
    private <R> Function<Record, R> lazily(Shape<R> shape) {
      Map<Types.StructType, Function<Record, R>> made = new HashMap<>(1);
      return row -> made.computeIfAbsent(row.struct(), read -> mapping(shape, read)).apply(row);
    }

    /** Whether a row matches {@code filter}: reads at most one. */
    public boolean exists(Expression filter) {
      try (Stream<Object> rows = stream(filter, new Shape<>(List.of(), row -> row), 1)) {
        return rows.findAny().isPresent();
      }
    }

    /** {@link #exists} as a {@code Mono}: reads at most one row, without blocking the subscriber's thread. */
    public Mono<Boolean> existsReactively(Expression filter) {
      return flux(filter, new Shape<>(List.of(), row -> row), 1).hasElements();
    }

    /**
     * How many rows match {@code filter}: the plan's record counts when they are exact (no delete files, every
     * task's residual true, no read restrictions), else by reading them.
     */
    public long count(Expression filter) {
      Long planned = plannedCount(filter);
      if (planned != null) {
        return planned;
      }
      long rows = 0;
      try (CloseableIterator<Record> read = rows(filter, List.of(), Long.MAX_VALUE).iterator()) {
        while (read.hasNext()) {
          read.next();
          rows++;
        }
      }
      catch (IOException failure) {
        throw new UncheckedIOException(failure);
      }
      return rows;
    }

    /**
     * {@link #count} as a {@code Mono}: the plan is made now, blocking, so call this on the reading executor (where
     * {@link #callReactively} hands the call over); the rows, when they must be read, are read as a {@code Flux}, so
     * that no reading thread waits for the others.
     */
    public Mono<Long> countReactively(Expression filter) {
      Long planned = plannedCount(filter);
      return planned != null ? Mono.just(planned) : rows(filter, List.of(), Long.MAX_VALUE).flux().count();
    }

    /** The plan's count of the rows matching {@code filter} when it is exact, else {@code null}. */
    private @Nullable Long plannedCount(Expression filter) {
      if (!this.table.readRestrictions().isEmpty()) {
        return null;
      }
      try (IcebergScanPlan plan = planner.plan(this.table, scan(filter, List.of()))) {
        return exactCount(plan.tasks());
      }
    }

    /** The rows of the tasks' data files, when every row of them matches: {@code null} otherwise. */
    private static @Nullable Long exactCount(List<FileScanTask> tasks) {
      Map<String, Long> files = new HashMap<>();
      for (FileScanTask task : tasks) {
        if (!task.deletes().isEmpty() || task.residual().op() != Expression.Operation.TRUE) {
          return null;
        }
        files.put(task.file().location(), task.file().recordCount());
      }
      return files.values().stream().mapToLong(Long::longValue).sum();
    }

    /**
     * At most {@code limit} rows matching {@code filter} after {@code position}, in the order of data file and row
     * position, read from the position's snapshot (or, for the initial position, the call's).
     *
     * @throws ExpiredScrollPositionException when the position's snapshot is gone
     * @throws RestrictedReadException for a table whose reads are restricted: a position names a data file, whose
     *     path holds the raw values of the rows' partition
     * @throws IllegalArgumentException without a limit
     */
    public <R> Window<R> window(Expression filter, Shape<R> shape, IcebergScrollPosition position, long limit) {
      if (limit >= Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a window needs a limit: a Limit argument, or Top or First in the "
            + "method's name");
      }
      if (!this.table.readRestrictions().isEmpty()) {
        throw new RestrictedReadException(this.table.identifier().toString(), "a Window of its rows", "a scroll "
            + "position names a data file, whose path holds raw partition values; read with a Limit or a Stream");
      }
      Long snapshotId = position.isInitial() ? this.table.snapshotIdOf(this.snapshot.applyTo(IcebergScan.all()))
          : position.snapshotId();
      if (snapshotId == null) {
        // a table without snapshots has no rows
        return Window.from(List.of(), index -> position, false);
      }
      if (!this.table.hasSnapshot(snapshotId)) {
        throw new ExpiredScrollPositionException(this.table.identifier().toString(), snapshotId);
      }
      List<String> columns = new ArrayList<>(columns(shape.properties()));
      columns.add(FILE);
      columns.add(POSITION);
      IcebergScan scan = IcebergScan.all().useSnapshot(snapshotId).filter(filter).select(columns);
      List<R> rows = new ArrayList<>();
      List<IcebergScrollPosition> positions = new ArrayList<>();
      boolean more = false;
      Function<Record, R> mapping = lazily(shape);
      try (IcebergScanPlan plan = planner.plan(this.table, scan)) {
        List<FileScanTask> tasks = new ArrayList<>(plan.tasks());
        tasks.sort(Comparator.comparing((FileScanTask task) -> task.file().location())
            .thenComparingLong(FileScanTask::start));
        scan:
        for (FileScanTask task : tasks) {
          String file = task.file().location();
          if (!position.isInitial() && file.compareTo(Objects.requireNonNull(position.file())) < 0) {
            continue;
          }
          try (CloseableIterable<Record> taskRows = plan.rows(task)) {
            for (Record row : taskRows) {
              long at = (Long) row.getField(POSITION);
              if (!position.isInitial() && file.equals(position.file()) && at <= position.position()) {
                continue;
              }
              if (rows.size() == limit) {
                more = true;
                break scan;
              }
              rows.add(mapping.apply(row));
              positions.add(IcebergScrollPosition.after(snapshotId, file, at));
            }
          }
          catch (IOException failure) {
            throw new UncheckedIOException(failure);
          }
        }
      }
      return Window.from(rows, positions::get, more);
    }
  }
}
