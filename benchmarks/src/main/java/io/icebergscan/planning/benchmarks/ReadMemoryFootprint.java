package io.icebergscan.planning.benchmarks;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.ScanRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponseParser;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.LoadTableResponseParser;
import org.apache.iceberg.types.Types;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;
import reactor.netty.resources.LoopResources;

/**
 * Reading memory (not JMH: one run per JVM, since the point is the heap limit): the rows of a plan of
 * {@code handles × tasksPerHandle} tasks (200,000 by default) read with {@code readRows} at {@code readConcurrency},
 * from a server that answers from prebuilt bodies, every task a real Avro file of four rows (the same file for all:
 * the server keeps nothing per task). {@code stream} reads as the plan streams; {@code collect} plans the whole plan
 * first and reads {@code rows()}, for comparison. Prints whether it completed, the rows read and the peak heap used
 * (sampled every 2 ms).
 *
 * <p>{@code parquet} reads {@link ParquetTable}'s 64 Parquet files of 50,000 rows (on local disk, so that the files
 * are not on the heap) with {@code readRows} at {@code readConcurrency} (16 by default) and a read buffer of
 * {@code bufferMiB} (the default unless given), rows taken as fast as they come, and prints the same, with the bound
 * the read's memory should keep under: the buffer plus, for each file open at once, the largest row group as its
 * footer counts it (its pages uncompressed). What the read holds at its fullest is measured with a reader that takes
 * one row and stops: once every job has stopped, the heap after a collection, less the heap before the read. Run it in a JVM whose heap is that bound plus what the JVM and the catalog hold: it completes, or fails for
 * want of memory.
 *
 * <pre>
 * java -Xmx192m -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.ReadMemoryFootprint parquet 16
 * </pre>
 *
 * <pre>
 * java -Xmx128m -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.ReadMemoryFootprint stream
 * java -Xmx128m -cp benchmarks/target/benchmarks.jar io.icebergscan.planning.benchmarks.ReadMemoryFootprint collect
 * </pre>
 */
public final class ReadMemoryFootprint {

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "payload", Types.StringType.get()));
  private static final TableIdentifier TABLE = TableIdentifier.of("bench", "memory");

  private ReadMemoryFootprint() {
  }

  public static void main(String[] args) throws Exception {
    String mode = args.length > 0 ? args[0] : "stream";
    if (mode.equals("parquet")) {
      parquet(args.length > 1 ? Integer.parseInt(args[1]) : 16, args.length > 2 ? Integer.parseInt(args[2]) : 0);
      return;
    }
    int handles = args.length > 1 ? Integer.parseInt(args[1]) : 2000;
    int tasksPerHandle = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    int readConcurrency = args.length > 3 ? Integer.parseInt(args[3]) : 8;

    // one real file and the table's metadata, from a catalog that is not started: its files are in the JVM-wide
    // in-memory FileIO, which the planner's FileIO reads too
    EmbeddedIcebergCatalog files = EmbeddedIcebergCatalog.create();
    EmbeddedTable table = files.createTable(TABLE, SCHEMA);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 4; id++) {
      rows.add(table.newRecord(id, "payload-" + id));
    }
    DataFile file = table.writeRows(FileFormat.AVRO, rows).get(0);
    table.append(file);
    Table iceberg = table.table();
    byte[] config = ("{\"defaults\":{\"io-impl\":\"" + InMemoryFileIO.class.getName() + "\"},\"overrides\":{},"
        + "\"endpoints\":[\"GET /v1/{prefix}/namespaces/{namespace}/tables/{table}\","
        + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan\","
        + "\"DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan/{plan-id}\","
        + "\"POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/tasks\"]}").getBytes(StandardCharsets.UTF_8);
    byte[] load = LoadTableResponseParser.toJson(LoadTableResponse.builder()
        .withTableMetadata(((org.apache.iceberg.HasTableOperations) iceberg).operations().current()).build())
        .getBytes(StandardCharsets.UTF_8);
    byte[] plan = ("{\"status\":\"completed\",\"plan-id\":\"memory\",\"plan-tasks\":"
        + IntStream.range(0, handles).mapToObj(i -> "\"h" + i + "\"").collect(Collectors.joining(",", "[", "]")) + "}")
        .getBytes(StandardCharsets.UTF_8);
    List<FileScanTask> served = new ArrayList<>(tasksPerHandle);
    String schema = SchemaParser.toJson(iceberg.schema());
    String spec = PartitionSpecParser.toJson(iceberg.spec());
    for (int i = 0; i < tasksPerHandle; i++) {
      served.add(new BaseFileScanTask(file, null, schema, spec, ResidualEvaluator.unpartitioned(
          Expressions.alwaysTrue())));
    }
    byte[] tasks = FetchScanTasksResponseParser.toJson(FetchScanTasksResponse.builder(iceberg.specs())
        .withFileScanTasks(served).build()).getBytes(StandardCharsets.UTF_8);
    files.close();

    LoopResources loops = LoopResources.create("read-memory-catalog", 1, true);
    DisposableServer server = HttpServer.create().host("127.0.0.1").port(0).runOn(loops)
        .handle((request, response) -> {
          String uri = request.uri();
          byte[] body = uri.startsWith("/v1/config") ? config : uri.endsWith("/plan") ? plan
              : uri.endsWith("/tasks") ? tasks : load;
          return request.receive().then(response.header("Content-Type", "application/json")
              .header("Content-Length", Integer.toString(body.length)).sendByteArray(Mono.just(body)).then());
        }).bindNow();
    HeapPeak heap = new HeapPeak();
    long max = Runtime.getRuntime().maxMemory();
    String outcome;
    long count = 0;
    long start = System.nanoTime();
    try (ScanPlanner planner = ScanPlanner.builder().uri("http://127.0.0.1:" + server.port()).maxConcurrency(8)
        .planTimeout(Duration.ofMinutes(10)).build();
        IcebergScanPlanner reader = IcebergScanPlanner.builder(planner).readConcurrency(readConcurrency)
            .scanReports(false).build()) {
      IcebergTable loaded = reader.loadTable(TABLE);
      System.gc();
      heap.start(0);
      if (mode.equals("collect")) {
        try (IcebergScanPlan whole = reader.plan(loaded, IcebergScan.all()); ScanRows all = whole.rows()) {
          count = count(all);
        }
      }
      else {
        try (ScanRows streamed = reader.readRows(loaded, IcebergScan.all())) {
          count = count(streamed);
        }
      }
      outcome = count == 4L * handles * tasksPerHandle ? "completed" : "failed: read " + count + " rows";
    }
    catch (OutOfMemoryError | RuntimeException failure) {
      outcome = "failed: " + failure;
    }
    long elapsed = (System.nanoTime() - start) / 1_000_000;
    long peak = heap.stop();
    System.out.printf("mode=read-%s tasks=%d readConcurrency=%d rows=%d maxHeapMiB=%d peakHeapUsedMiB=%.1f "
        + "elapsedMs=%d outcome=%s%n", mode, (long) handles * tasksPerHandle, readConcurrency, count, max >> 20,
        peak / 1048576.0, elapsed, outcome);
    server.disposeNow();
    loops.disposeLater().block(Duration.ofSeconds(5));
  }

  private static void parquet(int readConcurrency, int bufferMiB) throws Exception {
    java.nio.file.Path warehouse = java.nio.file.Files.createTempDirectory("read-memory-parquet");
    try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create(warehouse)) {
      EmbeddedTable table = ParquetTable.create(catalog, 64, 50_000);
      // what a row group holds decoded, as its footer counts it: its pages uncompressed
      long largestRowGroup = 0;
      try (org.apache.iceberg.io.CloseableIterable<org.apache.iceberg.FileScanTask> tasks = table.table().newScan()
          .planFiles()) {
        for (org.apache.iceberg.FileScanTask task : tasks) {
          try (org.apache.parquet.hadoop.ParquetFileReader footer = org.apache.parquet.hadoop.ParquetFileReader.open(
              org.apache.parquet.hadoop.util.HadoopInputFile.fromPath(new org.apache.hadoop.fs.Path(
                  task.file().location()), new org.apache.hadoop.conf.Configuration()))) {
            for (org.apache.parquet.hadoop.metadata.BlockMetaData group : footer.getFooter().getBlocks()) {
              largestRowGroup = Math.max(largestRowGroup, group.getTotalByteSize());
            }
          }
        }
      }
      catalog.start();
      try (ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).build()) {
        java.util.concurrent.ThreadPoolExecutor readers = new java.util.concurrent.ThreadPoolExecutor(readConcurrency,
            readConcurrency, 10, java.util.concurrent.TimeUnit.SECONDS, new java.util.concurrent.LinkedBlockingQueue<>(),
            job -> {
              Thread thread = new Thread(job, "parquet-reader");
              thread.setDaemon(true);
              return thread;
            });
        IcebergScanPlanner.Builder builder = IcebergScanPlanner.builder(planner).readConcurrency(readConcurrency)
            .readExecutor(readers).scanReports(false);
        if (bufferMiB > 0) {
          builder.readBufferBytes(bufferMiB * 1024L * 1024);
        }
        try (IcebergScanPlanner reader = builder.build()) {
          IcebergTable loaded = reader.loadTable(ParquetTable.IDENTIFIER);
          // once, so that what the JVM loads for a read is there before the baseline
          try (ScanRows warm = reader.readRows(loaded, IcebergScan.all()).limit(1)) {
            count(warm);
          }
          HeapPeak heap = new HeapPeak();
          System.gc();
          long baseline = heap.used();
          heap.start(baseline);
          long start = System.nanoTime();
          String outcome;
          long count = 0;
          long retained = -1;
          try (ScanRows rows = reader.readRows(loaded, IcebergScan.all());
              org.apache.iceberg.io.CloseableIterator<Record> iterator = rows.iterator()) {
            // a reader that takes one row and stops: the read fills what it may hold and every job stops; what the
            // heap keeps then, less the baseline, is what the read holds at its fullest
            iterator.next();
            count++;
            awaitIdle(readers);
            System.gc();
            retained = heap.used() - baseline;
            while (iterator.hasNext()) {
              iterator.next();
              count++;
            }
            outcome = count == 64L * 50_000 ? "completed" : "failed: read " + count + " rows";
          }
          catch (OutOfMemoryError | RuntimeException failure) {
            outcome = "failed: " + failure;
          }
          long elapsed = (System.nanoTime() - start) / 1_000_000;
          long peak = heap.stop();
          long bound = reader.readBufferBytes() + Math.min(readConcurrency, 64) * largestRowGroup;
          System.out.printf("mode=parquet files=64 rowsPerFile=50000 readConcurrency=%d bufferMiB=%.1f "
              + "largestRowGroupMiB=%.1f boundMiB=%.1f heldAtFullestMiB=%.1f maxHeapMiB=%d baselineMiB=%.1f "
              + "peakHeapUsedMiB=%.1f rows=%d elapsedMs=%d outcome=%s%n", readConcurrency,
              reader.readBufferBytes() / 1048576.0, largestRowGroup / 1048576.0, bound / 1048576.0,
              retained / 1048576.0, Runtime.getRuntime().maxMemory() >> 20, baseline / 1048576.0,
              peak / 1048576.0, count, elapsed, outcome);
        }
      }
    }
  }

  /** Until no job of {@code readers} runs or waits, seen so five times over, 20 ms apart. */
  private static void awaitIdle(java.util.concurrent.ThreadPoolExecutor readers) throws InterruptedException {
    int quiet = 0;
    while (quiet < 5) {
      Thread.sleep(20);
      quiet = readers.getActiveCount() == 0 && readers.getQueue().isEmpty() ? quiet + 1 : 0;
    }
  }

  private static long count(ScanRows rows) {
    long count = 0;
    for (Record ignored : rows) {
      count++;
    }
    return count;
  }
}
