package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import java.util.function.Predicate;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.data.GenericDeleteFilter;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.IdentityPartitionConverters;
import org.apache.iceberg.data.InternalRecordWrapper;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.formats.FormatModelRegistry;
import org.apache.iceberg.formats.ReadBuilder;
import org.apache.iceberg.io.CloseableGroup;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.PartitionUtil;
import org.jspecify.annotations.Nullable;

/**
 * Reads one task's rows as Apache Iceberg's generic reader does, then enforces what the scan's {@link ReadShape}
 * decided: the file projected to the columns the rows and their checks read (and the deletes need), identity
 * partition values and the selected metadata columns ({@code _file}, {@code _spec_id}, {@code _partition},
 * {@code _row_id}, …) as constants, position deletes, equality deletes and deletion vectors applied
 * ({@link GenericDeleteFilter}, with the plan's delete files each read once: {@link PlanDeletes}), all on raw values;
 * then the raw check (the catalog's required row filter and the scan's filter on unmasked fields), the masks, the
 * check on masked values, and each row cut to the requested projection by position. The task's own residual is not
 * read: every row is checked against the whole filter, with the spec's semantics. Any failure to open or read a file,
 * the task's delete files included, is a {@link TaskReadException} naming the task's data file (or withholding it,
 * for a restricted table): rows are never left out in silence.
 *
 * <p>Thread-safe: one reader serves a plan, whose tasks may be read on several threads at once.
 */
final class TaskReader {

  private final FileIO io;
  private final Schema tableSchema;
  private final ReadShape shape;
  private final Types.@Nullable StructType partitionType;
  private final PlanDeletes deletes;
  /** The query salt of the read's {@code sha-256-query-local} masks, or {@code null}. */
  private final byte @Nullable [] salt;
  private final Runnable checkOpen;

  /**
   * @param scan what the scan reads: the schema it reads with (the table's, or the snapshot's when
   *     time-travelling), and how ({@link ResolvedScan#shape()})
   * @param salt the query salt of the read's {@code sha-256-query-local} masks, {@code null} when it has none
   * @param checkOpen throws an {@link IllegalStateException} naming the plan once its reads are refused
   */
  private TaskReader(FileIO io, ResolvedScan scan, PlanDeletes deletes, byte @Nullable [] salt, Runnable checkOpen) {
    AvroWithoutParquet.register();
    this.io = io;
    this.tableSchema = scan.schema();
    this.shape = scan.shape();
    this.partitionType = scan.partitionType();
    this.deletes = deletes;
    this.salt = salt;
    this.checkOpen = checkOpen;
  }

  /**
   * The reader of one plan's tasks, whichever door reads them: its delete files read once, and one query salt for
   * its {@code sha-256-query-local} masks, drawn here from a {@code SecureRandom}, kept in memory only, and shared by
   * every read of the plan, so that the plan's rows hash alike whichever of its tasks they come from.
   */
  static TaskReader forPlan(FileIO io, ResolvedScan scan, Runnable checkOpen) {
    return new TaskReader(io, scan, new PlanDeletes(PlanDeletes.DEFAULT_MAX_BYTES),
        scan.shape().needsSalt() ? MaskAction.newQuerySalt() : null, checkOpen);
  }

  Schema projection() {
    return this.shape.output();
  }

  /** A task as messages name it: by its data file, or, for a restricted table, by its table alone. */
  String describe(FileScanTask task) {
    return this.shape.restricted() ? "a task of " + this.shape.table() : "the task of " + task.file().location();
  }

  /**
   * The failure of a task as the caller may see it: naming its data file, or, for a restricted table, withholding
   * the file and the failure's message.
   */
  TaskReadException failed(FileScanTask task, Throwable failure) {
    if (failure instanceof TaskReadException read && (!this.shape.restricted()
        || TaskReadException.WITHHELD.equals(read.dataFile()))) {
      return read;
    }
    return this.shape.restricted() ? TaskReadException.withheld(this.shape.table(), failure)
        : new TaskReadException(task.file().location(), failure);
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
      CloseableIterable<Record> records;
      CloseableIterator<Record> rows;
      try {
        records = open(this.task);
      }
      catch (RuntimeException failure) {
        throw failed(this.task, failure);
      }
      try {
        rows = records.iterator();
      }
      catch (RuntimeException failure) {
        TaskReadException failed = failed(this.task, failure);
        closeQuietly(records, failed);
        throw failed;
      }
      GuardedRows guarded = new GuardedRows(records, rows, failure -> failed(this.task, failure));
      addCloseable(guarded);
      return guarded;
    }
  }

  private CloseableIterable<Record> open(FileScanTask task) {
    Schema requested = this.shape.read();
    // a task without deletes needs no filter, nor its projection widened for one
    TaskDeletes deletes = task.deletes().isEmpty() ? null : new TaskDeletes(task, requested);
    Schema readSchema = deletes == null ? requested : deletes.requiredSchema();
    Map<Integer, ?> constants = PartitionUtil.constantsMap(task, this.partitionType, TaskReader::constant);
    ReadBuilder<Record, ?> read = FormatModelRegistry.<Record, Object>readBuilder(task.file().format(),
            Record.class, this.io.newInputFile(task.file()))
        .project(readSchema)
        .idToConstant(constants)
        .caseSensitive(true)
        .filter(this.shape.pushed());
    // a whole file needs no range: Iceberg's Avro reader seeks a sync marker for one, and opens the file a second
    // time to count the rows before it when positions are read (for position deletes, say)
    if (task.start() != 0 || task.length() < task.file().fileSizeInBytes()) {
      read = read.split(task.start(), task.length());
    }
    CloseableIterable<Record> records = read.build();
    if (deletes != null) {
      records = deletes.filter(records);
    }
    // the stages after the deletes; a row from the deletes may have their columns at the end, past the read schema's
    Types.StructType readStruct = requested.asStruct();
    Predicate<StructLike> rawCheck = this.shape.rawCheck();
    if (rawCheck != null) {
      InternalRecordWrapper raw = new InternalRecordWrapper(readStruct);
      records = CloseableIterable.filter(records, row -> rawCheck.test(raw.wrap(row)));
    }
    // the task's own: they remember their last results, and its rows are read by one thread at a time
    RowMasks masks = RowMasks.of(readStruct, this.shape.masks(), this.salt);
    if (!masks.isEmpty()) {
      records = CloseableIterable.transform(records, masks::apply);
    }
    Predicate<StructLike> maskedCheck = this.shape.maskedCheck();
    if (maskedCheck != null) {
      InternalRecordWrapper masked = new InternalRecordWrapper(readStruct);
      records = CloseableIterable.filter(records, row -> maskedCheck.test(masked.wrap(row)));
    }
    Types.StructType output = this.shape.output().asStruct();
    // decided once per task: rows of a read schema equal to the output pass as they are
    if (readSchema.asStruct().equals(output)) {
      return records;
    }
    return CloseableIterable.transform(records, this.shape.toOutput()::project);
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

  /**
   * A task's rows, each failure a {@link TaskReadException} as {@link TaskReader#failed} makes it. The reader's files are closed as
   * soon as the last row is read or a read fails (Iceberg's Avro iterator keeps its stream open until closed), and
   * on {@link #close()}, once.
   */
  private static final class GuardedRows implements CloseableIterator<Record> {

    private final CloseableIterable<Record> records;
    private final CloseableIterator<Record> rows;
    private final Function<Throwable, TaskReadException> failed;
    private boolean closed;

    GuardedRows(CloseableIterable<Record> records, CloseableIterator<Record> rows,
        Function<Throwable, TaskReadException> failed) {
      this.records = records;
      this.rows = rows;
      this.failed = failed;
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
      TaskReadException failed = this.failed.apply(failure);
      closeQuietly(this, failed);
      return failed;
    }

    /** Closes the files now the rows are all read; a failure to close is the read's. */
    private void closeFiles() {
      try {
        close();
      }
      catch (IOException | RuntimeException failure) {
        throw this.failed.apply(failure);
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
