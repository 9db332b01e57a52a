package io.icebergscan.planning.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
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
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    AtomicLong peak = new AtomicLong();
    Thread sampler = new Thread(() -> {
      while (!Thread.currentThread().isInterrupted()) {
        peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
        try {
          Thread.sleep(2);
        }
        catch (InterruptedException stop) {
          return;
        }
      }
    }, "heap-sampler");
    sampler.setDaemon(true);
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
      peak.set(0);
      sampler.start();
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
    sampler.interrupt();
    System.out.printf("mode=read-%s tasks=%d readConcurrency=%d rows=%d maxHeapMiB=%d peakHeapUsedMiB=%.1f "
        + "elapsedMs=%d outcome=%s%n", mode, (long) handles * tasksPerHandle, readConcurrency, count, max >> 20,
        peak.get() / 1048576.0, elapsed, outcome);
    server.disposeNow();
    loops.disposeLater().block(Duration.ofSeconds(5));
  }

  private static long count(ScanRows rows) {
    long count = 0;
    for (Record ignored : rows) {
      count++;
    }
    return count;
  }
}
