package io.icebergscan.planning.spark;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import io.icebergscan.planning.test.RequestCounts;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;

/**
 * The embedded catalog in a JVM of its own, on plain iceberg-core (see the module's pom): it writes the tables the
 * Spark tests read into a local-disk warehouse, serves them over a fan-out tree of plan-tasks, and answers on its
 * standard input and output. Lines it writes for {@link CatalogServer} start with {@value #PREFIX}; everything else
 * it prints is its log.
 *
 * <ul>
 *   <li>arguments: the warehouse directory, the fan-out ({@code levels:A,B,…} or {@code flat:N}), the latency of each
 *       {@code /tasks} answer in milliseconds, and which tables to write: {@code differential} (the differential's,
 *       see {@link #writeTables}) or {@code benchmark} ({@link #writeBenchmarkTable});</li>
 *   <li>at start it prints {@code READY <uri> <handles per plan>};</li>
 *   <li>{@code counts} prints {@code COUNTS <plan> <tasks> <max concurrent tasks> <metrics> <plan µs> <tasks µs>
 *       <busy µs>} (the time answering plans, answering {@code /tasks} beyond the simulated latency, and with any
 *       answer under way); {@code reset} clears them and prints {@code OK}; the end of its input closes the
 *       catalog.</li>
 * </ul>
 */
public final class CatalogProcess {

  static final String PREFIX = "@@ ";
  static final String NAMESPACE = "spark";
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "day", Types.DateType.get()),
      Types.NestedField.optional(4, "score", Types.DoubleType.get()));

  private CatalogProcess() {
  }

  public static void main(String[] args) throws Exception {
    PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    FanOut fanOut = fanOut(args[1]);
    try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(Path.of(args[0])).fanOut(fanOut)
        .tasksLatency(Duration.ofMillis(Long.parseLong(args[2])))) {
      if (args[3].equals("benchmark")) {
        writeBenchmarkTable(catalog);
      }
      else {
        writeTables(catalog);
      }
      catalog.start();
      out.println(PREFIX + "READY " + catalog.uri() + " " + fanOut.handles().size());
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        if (line.equals("counts")) {
          RequestCounts counts = catalog.requestCounts();
          out.println(PREFIX + "COUNTS " + counts.plan() + " " + counts.tasks() + " " + counts.maxConcurrentTasks()
              + " " + counts.metrics() + " " + micros(counts.answering().plan()) + " "
              + micros(counts.answering().tasks().minus(counts.answering().tasksLatency())) + " "
              + micros(counts.answering().busy()));
        }
        else if (line.equals("reset")) {
          catalog.resetRequestCounts();
          out.println(PREFIX + "OK");
        }
      }
    }
  }

  private static long micros(Duration duration) {
    return duration.toNanos() / 1000;
  }

  /** {@code flat:N}, or {@code levels:A,B,…} (as {@link FanOut#levels}: A handles in the plan, B under each, …). */
  private static FanOut fanOut(String spec) {
    String[] parts = spec.split(":");
    return parts[0].equals("flat") ? FanOut.flat(Integer.parseInt(parts[1]))
        : FanOut.levels(Arrays.stream(parts[1].split(",")).mapToInt(Integer::parseInt).toArray());
  }

  /**
   * The tables, in namespace {@value #NAMESPACE}:
   * <ul>
   *   <li>{@code events}: format 2, by day; 40 rows in Parquet (snapshot 1, tagged {@code first}), position deletes
   *       (snapshot 2), an equality delete of id 33 (snapshot 3), 20 rows in Avro (snapshot 4);</li>
   *   <li>{@code vectors}: format 3, unpartitioned; 30 rows in Parquet, then a deletion vector of three of them;</li>
   *   <li>{@code plain}: format 2, unpartitioned, three appends of Parquet and no deletes, so Spark may push
   *       aggregates down to the files' statistics.</li>
   * </ul>
   */
  private static void writeTables(EmbeddedIcebergCatalog catalog) {
    EmbeddedTable events = catalog.createTable(TableIdentifier.of(NAMESPACE, "events"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    List<DataFile> files = events.writeRows(FileFormat.PARQUET, rows(events, 0, 40));
    events.append(files);
    events.table().manageSnapshots().createTag("first", events.currentSnapshotId()).commit();
    events.addDeletes(events.writePositionDeletes(FileFormat.PARQUET, files.get(0), 0, 2),
        events.writePositionDeletes(FileFormat.PARQUET, files.get(1), 1));
    Record key = events.newRecord(33L, null, LocalDate.EPOCH.plusDays(33 % 3), null);
    events.addDeletes(events.writeEqualityDeletes(FileFormat.PARQUET, List.of(key), 1));
    events.appendRows(FileFormat.AVRO, rows(events, 40, 20));

    EmbeddedTable vectors = catalog.createTable(TableIdentifier.of(NAMESPACE, "vectors"), SCHEMA,
        PartitionSpec.unpartitioned(), 3);
    List<DataFile> vectorFiles = vectors.writeRows(FileFormat.PARQUET, rows(vectors, 0, 30));
    vectors.append(vectorFiles);
    vectors.addDeletes(vectors.writeDeletionVector(vectorFiles.get(0), 3, 4, 17));

    EmbeddedTable plain = catalog.createTable(TableIdentifier.of(NAMESPACE, "plain"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    for (int append = 0; append < 3; append++) {
      plain.appendRows(FileFormat.PARQUET, rows(plain, append * 25L, 25));
    }
  }

  /**
   * {@code spark.wide}: format 2, by day, 640 rows in 64 Parquet files (one per day) appended at once, so each
   * plan-task of a fan-out of 64 or more handles serves about one file.
   */
  private static void writeBenchmarkTable(EmbeddedIcebergCatalog catalog) {
    EmbeddedTable wide = catalog.createTable(TableIdentifier.of(NAMESPACE, "wide"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("day").build(), 2);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 640; id++) {
      rows.add(wide.newRecord(id, "name-" + id, LocalDate.EPOCH.plusDays(id % 64), id / 4.0));
    }
    wide.append(wide.writeRows(FileFormat.PARQUET, rows));
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      rows.add(table.newRecord(id, id % 7 == 0 ? null : "name-" + id, LocalDate.EPOCH.plusDays(id % 3), id / 4.0));
    }
    return rows;
  }
}
