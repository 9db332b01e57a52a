package io.icebergscan.planning.test;

import java.util.ArrayList;
import java.util.List;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * The demo table the example application and the benchmarks plan: {@code demo.events}, a format-version 3 table
 * partitioned by day, with real rows in several snapshots, deletion vectors and an equality delete file, all
 * written with Apache Iceberg's own writers into the catalog's in-memory FileIO, so that what is planned can be
 * read.
 *
 * <p>Its shape, for {@code files} data files:
 * <ul>
 *   <li>columns {@code id} (long, unique in the table), {@code day} (string, {@code 2026-11-01} to
 *       {@code 2026-11-16}, the identity partition) and {@code payload} (optional string);</li>
 *   <li>{@link #ROWS_PER_FILE} rows in every data file, in four appends (four snapshots) of a quarter of the
 *       files each, written in rounds of one file per day; Avro files, but for the first round of the fourth
 *       append (up to 16 files), which is Parquet when iceberg-parquet and Hadoop are on the classpath (Avro
 *       otherwise: the planned tasks are the same, only formats and sizes differ);</li>
 *   <li>one row delta (a fifth snapshot) of {@link #DELETE_FILES} delete files: three deletion vectors removing
 *       {@link #DELETION_VECTOR_ROWS} rows of the first files of days 1 and 2 (first append) and 3 (fourth
 *       append), and one equality delete file in day 4 (Parquet, or Avro without Parquet) of
 *       {@link #EQUALITY_DELETED_ROWS} keys on {@code id}, each matching exactly one row (of the first day-4 files
 *       of the first and fourth appends, none of them deleted by a vector).</li>
 * </ul>
 * So a scan of all of it plans {@code files} tasks of {@link #rows(int) rows(files)} records, and reads
 * {@link #liveRows(int) liveRows(files)} rows: the records less {@link #DELETED_ROWS}. Since each equality key
 * matches one row, the delete files' record counts add up to the rows they delete, which is not so in general:
 * an equality delete file's record count is its number of keys, whatever they match.
 *
 * <p>Served with {@link #FAN_OUT}, a plan fans out over {@link #PLAN_TASKS} plan-tasks, three levels deep.
 */
public final class DemoTable {

  /** The demo table's name as the planner's clients write it. */
  public static final String NAME = "demo.events";

  /** The demo table's name in Apache Iceberg's catalog API. */
  public static final TableIdentifier IDENTIFIER = TableIdentifier.of("demo", "events");

  /** How many data files {@link #create} is usually asked for. */
  public static final int DEFAULT_FILES = 2000;

  /** The fewest data files {@link #create} takes: every delete needs its data file to exist. */
  public static final int MIN_FILES = 16;

  /** The branching of the plan-task tree per level, as {@link #FAN_OUT} serves it: 8 handles, 4 each, 2 each. */
  public static final List<Integer> FAN_OUT_LEVELS = List.of(8, 4, 2);

  /** The plan-task tree demo plans are served with ({@link EmbeddedIcebergCatalog#fanOut}). */
  public static final FanOut FAN_OUT = FanOut.levels(FAN_OUT_LEVELS.stream().mapToInt(Integer::intValue).toArray());

  /** The plan-tasks a plan of the demo table fetches under {@link #FAN_OUT}: 8 + 8 * 4 + 8 * 4 * 2. */
  public static final int PLAN_TASKS = 104;

  /** The days the rows fall into, one partition each. */
  public static final int DAYS = 16;

  /** The rows of every data file. */
  public static final int ROWS_PER_FILE = 4;

  /** The rows the deletion vectors delete. */
  public static final int DELETION_VECTOR_ROWS = 6;

  /** The rows the equality delete file deletes: its number of keys, since each key matches one row. */
  public static final int EQUALITY_DELETED_ROWS = 4;

  /** The rows all deletes together delete, whatever the number of files. */
  public static final int DELETED_ROWS = DELETION_VECTOR_ROWS + EQUALITY_DELETED_ROWS;

  /** The delete files: three deletion vectors (each a Puffin file of its own) and one equality delete file. */
  public static final int DELETE_FILES = 4;

  private static final int APPENDS = 4;

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "day", Types.StringType.get()),
      Types.NestedField.optional(3, "payload", Types.StringType.get()));

  private static final String[] EVENTS = { "view", "click", "scroll", "purchase", "share" };

  private DemoTable() {
  }

  /**
   * Creates and fills the demo table in {@code catalog} (started or not). With the default 2000 files it takes
   * about a second.
   *
   * @param files the number of data files, at least {@link #MIN_FILES}
   * @throws IllegalArgumentException for fewer files
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException when the catalog has the table already
   */
  public static EmbeddedTable create(EmbeddedIcebergCatalog catalog, int files) {
    if (files < MIN_FILES) {
      throw new IllegalArgumentException("the demo table needs at least " + MIN_FILES + " data files: " + files);
    }
    PartitionSpec byDay = PartitionSpec.builderFor(SCHEMA).identity("day").build();
    EmbeddedTable table = catalog.createTable(IDENTIFIER, SCHEMA, byDay, 3);
    boolean parquet = ContentFileWriter.isWritable(FileFormat.PARQUET);
    // records made here, not with newRecord: that loads the table's metadata again for each one
    Schema schema = table.schema();
    long nextId = 0;
    // the first and the fourth append's files, and the id of their first row: the deletes apply to some of them
    List<List<DataFile>> appends = new ArrayList<>();
    long[] firstIds = new long[APPENDS];
    for (int append = 0; append < APPENDS; append++) {
      int filesOfAppend = files / APPENDS + (append < files % APPENDS ? 1 : 0);
      List<DataFile> appended = new ArrayList<>(filesOfAppend);
      firstIds[append] = nextId;
      // one write per round of days: it writes one file per day, in day order, so file d of the first round is
      // day d and its rows are ids firstIds[append] + d * ROWS_PER_FILE and on
      for (int written = 0; written < filesOfAppend; written += DAYS) {
        // Parquet for the fourth append's first round only: Iceberg's Parquet writer takes some 10 ms a file,
        // its Avro writer well under one
        FileFormat format = parquet && append == APPENDS - 1 && written == 0 ? FileFormat.PARQUET : FileFormat.AVRO;
        int days = Math.min(DAYS, filesOfAppend - written);
        List<Record> rows = new ArrayList<>(days * ROWS_PER_FILE);
        for (int day = 0; day < days; day++) {
          for (int row = 0; row < ROWS_PER_FILE; row++) {
            long id = nextId++;
            rows.add(row(schema, id, day(day), EVENTS[(int) (id % EVENTS.length)] + "-" + id));
          }
        }
        appended.addAll(table.writeRows(format, rows));
      }
      table.append(appended);
      appends.add(appended);
    }
    // at least MIN_FILES / 4 files an append: the first round of each has days 1 to 4
    List<DataFile> first = appends.get(0);
    List<DataFile> fourth = appends.get(APPENDS - 1);
    List<DeleteFile> deletes = new ArrayList<>();
    deletes.add(table.writeDeletionVector(first.get(0), 0, 2));
    deletes.add(table.writeDeletionVector(first.get(1), 1));
    deletes.add(table.writeDeletionVector(fourth.get(2), 1, 2, 3));
    List<Record> keys = new ArrayList<>();
    for (int append : new int[] { 0, APPENDS - 1 }) {
      // rows 1 and 3 of the append's day-4 file: ids are unique, so each key matches that one row
      long dayFour = firstIds[append] + 3 * ROWS_PER_FILE;
      keys.add(row(schema, dayFour + 1, day(3), null));
      keys.add(row(schema, dayFour + 3, day(3), null));
    }
    deletes.add(table.writeEqualityDeletes(parquet ? FileFormat.PARQUET : FileFormat.AVRO, keys, 1));
    table.rowDelta(List.of(), deletes);
    return table;
  }

  /** The records the demo table of {@code files} data files holds, deleted ones included. */
  public static long rows(int files) {
    return (long) files * ROWS_PER_FILE;
  }

  /** The rows a scan of all of the demo table of {@code files} data files reads: its records less the deleted. */
  public static long liveRows(int files) {
    return rows(files) - DELETED_ROWS;
  }

  private static Record row(Schema schema, long id, String day, @Nullable String payload) {
    Record row = GenericRecord.create(schema);
    row.set(0, id);
    row.set(1, day);
    row.set(2, payload);
    return row;
  }

  /** The {@code day} value of the day with index {@code day} (from 0): {@code 2026-11-01} and on. */
  private static String day(int day) {
    return String.format("2026-11-%02d", 1 + day);
  }
}
