package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.CloseableIterator;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * What reading leaves open, counted by {@link CountingFileIO}: no input stream and no FileIO, for Avro and for
 * Parquet, through every way rows are read (a plan's {@code rows()}, one task's, one split's, and a streamed plan's
 * {@code readRows()}), whether the rows are read to the end, closed after the first row, or end in a failure.
 * Each read is of a table without deletes and of one with a deletion vector and an equality delete file, whose
 * streams count too.
 */
class ReadResourcesTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()));
  private static final String NAMESPACE = "resources";
  private static final int FILES = 4;
  private static final int ROWS_PER_FILE = 5;

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;

  /** How rows are read. */
  enum Entry {
    PLAN_ROWS, TASK_ROWS, SPLIT_ROWS, READ_ROWS
  }

  /** How a read ends. */
  enum Ending {
    /** Every row read, then the rows closed. */
    FULL,
    /** The rows closed after the first row. */
    EARLY_CLOSE,
    /** A data file is missing: the read fails, then the rows are closed. */
    FAILURE
  }

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    for (FileFormat format : List.of(FileFormat.AVRO, FileFormat.PARQUET)) {
      for (boolean broken : new boolean[] { false, true }) {
        table(format, broken, false);
        table(format, broken, true);
      }
    }
  }

  @AfterAll
  static void stop() {
    planner.close();
    catalog.close();
  }

  static Stream<Arguments> reads() {
    List<Arguments> reads = new ArrayList<>();
    for (FileFormat format : List.of(FileFormat.AVRO, FileFormat.PARQUET)) {
      for (Entry entry : Entry.values()) {
        for (Ending ending : Ending.values()) {
          reads.add(arguments(format, entry, ending, true));
          reads.add(arguments(format, entry, ending, false));
        }
      }
    }
    return reads.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2}, deletes: {3}")
  @MethodSource("reads")
  void nothingIsLeftOpen(FileFormat format, Entry entry, Ending ending, boolean deletes) {
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).fileIoProperties(scope.fileIoProperties())
        .build();
    IcebergTable table = iceberg.loadTable(io.icebergscan.planning.TableIdentifier.of(NAMESPACE,
        name(format, ending == Ending.FAILURE, deletes)));
    int failures = 0;
    if (entry == Entry.READ_ROWS) {
      failures += read(ending, iceberg.readRows(table, ScanRequest.all()));
    }
    else {
      try (IcebergScanPlan plan = iceberg.plan(table, ScanRequest.all())) {
        for (CloseableIterable<Record> rows : rows(plan, entry)) {
          failures += read(ending, rows);
        }
        assertThat(scope.openStreams()).as("streams open once the rows are closed: %s", scope).isZero();
      }
    }
    assertThat(failures).as("reads that failed").isEqualTo(ending == Ending.FAILURE ? 1 : 0);
    assertThat(scope.streamsOpened()).as("the read opened files").isPositive();
    assertThat(scope.openStreams()).as("%s", scope).isZero();
    assertThat(scope.openFileIOs()).as("%s", scope).isZero();
  }

  private static List<CloseableIterable<Record>> rows(IcebergScanPlan plan, Entry entry) {
    return switch (entry) {
      case PLAN_ROWS -> List.of(plan.rows());
      case TASK_ROWS -> plan.tasks().stream().map(plan::rows).toList();
      case SPLIT_ROWS -> {
        // no file split, several files a group (a task weighs the open-file cost once more per delete file): a split's rows are several tasks' one after the other
        long size = 1L << 40;
        List<CombinedScanTask> splits = plan.splitTasks(new SplitSettings(size, 1, size / 8));
        assertThat(splits).anySatisfy(split -> assertThat(split.files()).hasSizeGreaterThan(1));
        assertThat(splits.stream().mapToInt(split -> split.files().size()).sum()).isEqualTo(FILES);
        yield splits.stream().map(plan::rows).toList();
      }
      case READ_ROWS -> throw new IllegalArgumentException("not a plan's rows");
    };
  }

  /**
   * Reads as {@code ending} says (all of the rows for a failure too), and closes the rows; returns 1 if the read
   * failed, 0 if not.
   */
  private static int read(Ending ending, CloseableIterable<Record> rows) {
    try (rows) {
      if (ending == Ending.EARLY_CLOSE) {
        CloseableIterator<Record> iterator = rows.iterator();
        assertThat(iterator.hasNext()).isTrue();
        iterator.next();
        return 0;
      }
      int read = 0;
      for (Record ignored : rows) {
        read++;
      }
      assertThat(read).isPositive();
      return 0;
    }
    catch (TaskReadException failed) {
      assertThat(ending).isEqualTo(Ending.FAILURE);
      return 1;
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
  }

  /**
   * A v3 table of {@link #FILES} data files, with {@code deletes} a deletion vector on the first and an equality
   * delete file; with {@code broken}, the last data file is missing, so reading all of it fails there.
   */
  private static void table(FileFormat format, boolean broken, boolean deletes) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name(format, broken, deletes)), SCHEMA,
        PartitionSpec.unpartitioned(), 3);
    List<DataFile> files = new ArrayList<>();
    for (int file = 0; file < FILES; file++) {
      List<Record> rows = new ArrayList<>();
      for (long id = file * ROWS_PER_FILE; id < (file + 1) * ROWS_PER_FILE; id++) {
        rows.add(table.newRecord(id, "name-" + id));
      }
      files.addAll(table.writeRows(format, rows));
    }
    table.append(files);
    if (deletes) {
      Record key = table.newRecord();
      key.setField("id", 7L);
      table.addDeletes(table.writeDeletionVector(files.get(0), 1),
          table.writeEqualityDeletes(format, List.of(key), 1));
    }
    if (broken) {
      table.table().io().deleteFile(files.get(FILES - 1).location());
    }
  }

  private static String name(FileFormat format, boolean broken, boolean deletes) {
    return format.name().toLowerCase(Locale.ROOT) + (broken ? "_broken" : "") + (deletes ? "_deletes" : "");
  }
}
