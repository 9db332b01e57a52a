package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.UnaryOperator;

import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Metrics;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableScan;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Conversions;
import org.apache.iceberg.types.Types;

/** Tables for the tests, and plans reduced to what the tests compare. */
final class Tables {

  static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.StringType.get()));

  static final PartitionSpec BY_DAY = PartitionSpec.builderFor(SCHEMA).identity("day").build();

  /** A task as the tests compare it: the data file and the identities of its delete files. */
  record TaskView(String dataFile, Set<String> deletes) {

    static TaskView of(FileScanTask task) {
      Set<String> deletes = new TreeSet<>();
      task.deletes().forEach(delete -> deletes.add(identity(delete)));
      return new TaskView(task.file().location(), deletes);
    }

    static TaskView of(io.icebergscan.planning.model.FileScanTask task) {
      Set<String> deletes = new TreeSet<>();
      task.deleteFiles().forEach(delete -> deletes.add(identity(delete.content().name(), delete.filePath(),
          delete.contentOffset(), delete.contentSizeInBytes(), delete.equalityIds())));
      return new TaskView(task.dataFile().filePath(), deletes);
    }

    private static String identity(DeleteFile delete) {
      return identity(delete.content().name(), delete.location(), delete.contentOffset(),
          delete.contentSizeInBytes(), delete.equalityFieldIds() == null ? List.of() : delete.equalityFieldIds());
    }

    // A deletion vector is identified by path, offset and size: two can share one Puffin file.
    private static String identity(String content, String path, Long offset, Long size, List<Integer> equalityIds) {
      return content + ":" + path + "@" + offset + "+" + size + equalityIds;
    }
  }

  private Tables() {
  }

  /**
   * A format-v3 table partitioned by day: three snapshots (two appends, one row delta) holding five data
   * files, a v2-style position delete file, an equality delete file and two deletion vectors sharing one
   * Puffin file.
   */
  static EmbeddedTable withEveryKindOfDelete(EmbeddedIcebergCatalog catalog, TableIdentifier identifier) {
    EmbeddedTable table = catalog.createTable(identifier, SCHEMA, BY_DAY, 3);
    List<DataFile> day1 = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      day1.add(table.dataFile("s3://bucket/t/day=1/f" + i + ".parquet", 100 + i).withPartitionPath("day=1")
          .withMetrics(new Metrics(100L + i, Map.of(1, 800L), Map.of(1, 100L + i), Map.of(1, 0L), null,
              Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 0L)),
              Map.of(1, Conversions.toByteBuffer(Types.LongType.get(), 99L + i))))
          .build());
    }
    table.append(day1);
    DataFile day2a = table.dataFile("s3://bucket/t/day=2/a.parquet", 50).withPartitionPath("day=2").build();
    DataFile day2b = table.dataFile("s3://bucket/t/day=2/b.parquet", 60).withPartitionPath("day=2").build();
    table.append(day2a, day2b);
    List<DeleteFile> deletes = new ArrayList<>(table.deletionVectors("s3://bucket/t/day=1/dv.puffin")
        .vector(day1.get(0), 3).vector(day1.get(1), 5).build());
    deletes.add(table.equalityDeleteFile("s3://bucket/t/day=2/eq.parquet", 2, 1).withPartitionPath("day=2").build());
    table.rowDelta(List.of(), deletes);
    return table;
  }

  /** A format-v2 table with a position delete file per partition. */
  static EmbeddedTable withPositionDeletes(EmbeddedIcebergCatalog catalog, TableIdentifier identifier) {
    EmbeddedTable table = catalog.createTable(identifier, SCHEMA, BY_DAY, 2);
    DataFile a = table.dataFile("s3://bucket/v2/day=1/a.parquet", 10).withPartitionPath("day=1").build();
    DataFile b = table.dataFile("s3://bucket/v2/day=2/b.parquet", 10).withPartitionPath("day=2").build();
    table.append(a, b);
    table.addDeletes(table.positionDeleteFile("s3://bucket/v2/day=1/pos.parquet", 1).withPartitionPath("day=1")
        .build());
    return table;
  }

  /** Iceberg's own planning of the table, in this JVM (no REST): the reference. */
  static List<TaskView> plannedLocally(EmbeddedTable table, UnaryOperator<TableScan> scan) {
    return views(scan.apply(table.table().newScan()));
  }

  /** Iceberg's REST client planning on the catalog's server side. */
  static List<TaskView> plannedByIcebergClient(EmbeddedIcebergCatalog catalog, TableIdentifier identifier,
      UnaryOperator<TableScan> scan) {
    try (RESTCatalog client = icebergClient(catalog)) {
      return views(scan.apply(client.loadTable(identifier).newScan()));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }

  static RESTCatalog icebergClient(EmbeddedIcebergCatalog catalog) {
    RESTCatalog client = new RESTCatalog();
    client.initialize("client", Map.of("uri", catalog.uri(), "scan-planning-mode", "server"));
    return client;
  }

  private static List<TaskView> views(TableScan scan) {
    List<TaskView> views = new ArrayList<>();
    try (CloseableIterable<FileScanTask> tasks = scan.planFiles()) {
      tasks.forEach(task -> views.add(TaskView.of(task)));
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return views;
  }

  static List<TaskView> views(List<io.icebergscan.planning.model.FileScanTask> tasks) {
    return tasks.stream().map(TaskView::of).toList();
  }
}
