package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Evaluator;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.jspecify.annotations.Nullable;

/**
 * Reads one task's rows as Apache Iceberg's generic reader does: the file projected to what the output, the
 * deletes and the residual need, identity partition values and the selected metadata columns ({@code _file},
 * {@code _spec_id}, {@code _partition}, {@code _row_id}, …) as constants, position deletes, equality deletes and
 * deletion vectors applied ({@link GenericDeleteFilter}, with the plan's delete files each read once:
 * {@link PlanDeletes}), then the residual evaluated, and each row cut to the requested projection. Any failure to
 * open or read a file, the task's delete files included, is a {@link TaskReadException} naming the task's data file:
 * rows are never left out in silence.
 *
 * <p>Thread-safe: one reader serves a plan, whose tasks may be read on several threads at once.
 */
final class TaskReader {

  private final FileIO io;
  private final Schema tableSchema;
  private final Schema projection;
  private final List<Types.NestedField> metadataColumns;
  private final Types.@Nullable StructType partitionType;
  private final boolean caseSensitive;
  private final PlanDeletes deletes;
  private final Runnable checkOpen;

  /**
   * @param scan what the scan reads: the schema it reads with (the table's, or the snapshot's when
   *     time-travelling), the columns each row is cut to
   * @param checkOpen throws an {@link IllegalStateException} naming the plan once its reads are refused
   */
  TaskReader(FileIO io, ResolvedScan scan, PlanDeletes deletes, Runnable checkOpen) {
    AvroWithoutParquet.register();
    this.io = io;
    this.tableSchema = scan.schema();
    this.projection = scan.projection();
    this.metadataColumns = this.projection.columns().stream()
        .filter(column -> MetadataColumns.isMetadataColumn(column.fieldId())).toList();
    this.partitionType = scan.partitionType();
    this.caseSensitive = scan.caseSensitive();
    this.deletes = deletes;
    this.checkOpen = checkOpen;
  }

  Schema projection() {
    return this.projection;
  }

  /**
   * The task's rows. Each iterator opens the task's files and closes them when its last row has been read, when it
   * fails, or when it is closed; closing the iterable closes every iterator it handed out, as Iceberg's
   * {@code CloseableIterable}s do.
   */
  CloseableIterable<Record> read(FileScanTask task) {
    return new TaskRows(task);
  }

  private final class TaskRows extends CloseableGroup implements CloseableIterable<Record> {

    private final FileScanTask task;

    TaskRows(FileScanTask task) {
      this.task = task;
    }

    @Override
    public CloseableIterator<Record> iterator() {
      TaskReader.this.checkOpen.run();
      String file = this.task.file().location();
      CloseableIterable<Record> records;
      CloseableIterator<Record> rows;
      try {
        records = open(this.task);
      }
      catch (RuntimeException failure) {
        throw new TaskReadException(file, failure);
      }
      try {
        rows = records.iterator();
      }
      catch (RuntimeException failure) {
        TaskReadException failed = new TaskReadException(file, failure);
        closeQuietly(records, failed);
        throw failed;
      }
      GuardedRows guarded = new GuardedRows(records, rows, file);
      addCloseable(guarded);
      return guarded;
    }
  }

  private CloseableIterable<Record> open(FileScanTask task) {
    Expression residual = task.residual() == null ? Expressions.alwaysTrue() : task.residual();
    Schema requested = withColumnsOf(residual);
    // a task without deletes needs no filter, nor its projection widened for one
    TaskDeletes deletes = task.deletes().isEmpty() ? null : new TaskDeletes(task, requested);
    Schema readSchema = deletes == null ? requested : deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, this.partitionType, TaskReader::constant);
    ReadBuilder<Record, ?> read = FormatModelRegistry.<Record, Object>readBuilder(task.file().format(),
            Record.class, this.io.newInputFile(task.file()))
        .project(readSchema)
        .idToConstant(constants)
        .caseSensitive(this.caseSensitive)
        .filter(residual);
    // a whole file needs no range: Iceberg's Avro reader seeks a sync marker for one, and opens the file a second
    // time to count the rows before it when positions are read (for position deletes, say)
    if (task.start() != 0 || task.length() < task.file().fileSizeInBytes()) {
      read = read.split(task.start(), task.length());
    }
    CloseableIterable<Record> records = read.build();
    if (deletes != null) {
      records = deletes.filter(records);
    }
    if (residual != Expressions.alwaysTrue()) {
      InternalRecordWrapper wrapper = new InternalRecordWrapper(readSchema.asStruct());
      Evaluator evaluator = new Evaluator(readSchema.asStruct(), residual, this.caseSensitive);
      records = CloseableIterable.filter(records, record -> evaluator.eval(wrapper.wrap(record)));
    }
    Types.StructType output = this.projection.asStruct();
    // decided once per task: rows of a read schema equal to the output pass as they are
    return readSchema.asStruct().equals(output) ? records
        : CloseableIterable.transform(records, record -> project(record, output));
  }

  /**
   * The projection with the columns the residual reads, which the reader needs even when they are not output; the
   * selected metadata columns stay, after the data columns.
   */
  private Schema withColumnsOf(Expression residual) {
    if (residual == Expressions.alwaysTrue()) {
      return this.projection;
    }
    Set<Integer> ids = new HashSet<>(TypeUtil.getProjectedIds(this.projection));
    ids.addAll(Binder.boundReferences(this.tableSchema.asStruct(), List.of(residual), this.caseSensitive));
    // select keeps the ids the table's schema has: the metadata columns are joined again
    Schema data = TypeUtil.select(this.tableSchema, ids);
    return this.metadataColumns.isEmpty() ? data : TypeUtil.join(data, new Schema(this.metadataColumns));
  }

  /**
   * A constant as Iceberg's generic records hold it: identity partition values converted as Iceberg's generic reader
   * converts them, and {@code _partition} as a record of its partition type rather than Iceberg's internal struct.
   */
  private static @Nullable Object constant(Type type, @Nullable Object value) {
    if (value instanceof StructLike struct && type.isStructType()) {
      Types.StructType structType = type.asStructType();
      GenericRecord record = GenericRecord.create(structType);
      List<Types.NestedField> fields = structType.fields();
      for (int i = 0; i < fields.size(); i++) {
        record.set(i, constant(fields.get(i).type(), struct.get(i, Object.class)));
      }
      return record;
    }
    return IdentityPartitionConverters.convertConstant(type, value);
  }

  /**
   * Iceberg's delete filter of generic records with the plan's {@link PlanDeletes} as its loader, opening each delete
   * file with its known length, as a data file is opened (an object store need not be asked for it).
   */
  private final class TaskDeletes extends GenericDeleteFilter {

    TaskDeletes(FileScanTask task, Schema requested) {
      super(TaskReader.this.io, task, TaskReader.this.tableSchema, requested);
    }

    @Override
    protected DeleteLoader newDeleteLoader() {
      return TaskReader.this.deletes.loader(this::loadInputFile);
    }

    @Override
    protected InputFile loadInputFile(DeleteFile deleteFile) {
      return TaskReader.this.io.newInputFile(deleteFile);
    }
  }

  /** The record cut to {@code type}, nested structs included. */
  private static Record project(Record record, Types.StructType type) {
    GenericRecord projected = GenericRecord.create(type);
    for (Types.NestedField field : type.fields()) {
      Object value = record.getField(field.name());
      if (value instanceof Record nested && field.type().isStructType()) {
        value = project(nested, field.type().asStructType());
      }
      projected.setField(field.name(), value);
    }
    return projected;
  }

  /**
   * A task's rows, each failure a {@link TaskReadException} naming the data file. The reader's files are closed as
   * soon as the last row is read or a read fails (Iceberg's Avro iterator keeps its stream open until closed), and
   * on {@link #close()}, once.
   */
  private static final class GuardedRows implements CloseableIterator<Record> {

    private final CloseableIterable<Record> records;
    private final CloseableIterator<Record> rows;
    private final String file;
    private boolean closed;

    GuardedRows(CloseableIterable<Record> records, CloseableIterator<Record> rows, String file) {
      this.records = records;
      this.rows = rows;
      this.file = file;
    }

    @Override
    public boolean hasNext() {
      if (this.closed) {
        return false;
      }
      boolean more;
      try {
        more = this.rows.hasNext();
      }
      catch (RuntimeException failure) {
        throw failed(failure);
      }
      if (!more) {
        closeFiles();
      }
      return more;
    }

    @Override
    public Record next() {
      if (this.closed) {
        throw new NoSuchElementException();
      }
      try {
        return this.rows.next();
      }
      catch (NoSuchElementException end) {
        throw end;
      }
      catch (RuntimeException failure) {
        throw failed(failure);
      }
    }

    @Override
    public void close() throws IOException {
      if (!this.closed) {
        this.closed = true;
        try (this.records; this.rows) {
          // both closed, the iterator first: closing the iterable closes what it opened for any iterator
        }
      }
    }

    private TaskReadException failed(RuntimeException failure) {
      TaskReadException failed = new TaskReadException(this.file, failure);
      closeQuietly(this, failed);
      return failed;
    }

    /** Closes the files now the rows are all read; a failure to close is the read's. */
    private void closeFiles() {
      try {
        close();
      }
      catch (IOException | RuntimeException failure) {
        throw new TaskReadException(this.file, failure);
      }
    }
  }

  private static void closeQuietly(java.io.Closeable closeable, Throwable failure) {
    try {
      closeable.close();
    }
    catch (IOException | RuntimeException closing) {
      failure.addSuppressed(closing);
    }
  }
}
