package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.Types;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import reactor.netty.http.HttpProtocol;

/**
 * Benchmark 3: this planner against Apache Iceberg Java's {@code RESTTableScan} (through
 * {@code RESTCatalog} with {@code scan-planning-mode=server}) on the same server, same fan-out shape,
 * {@code latencyMillis} per {@code /tasks} request (a sleeping Jetty thread; Jetty's pool of 200 is larger than any
 * fan-out here), and the same number of workers: {@code iceberg.worker.num-threads} for Iceberg, {@code
 * maxConcurrency} for this planner. Two servers over the same table: {@link EmbeddedIcebergCatalog} (Apache Iceberg's
 * own REST server in the JVM with the test module's adapter, which plans with Iceberg on every plan call and keeps
 * each plan until it is cancelled) and {@link PlainFanOutCatalog} (Iceberg's adapter with a fixed fan-out and
 * nothing else). Iceberg reads the worker property once per JVM, so each parameter combination needs its own fork
 * (the default; do not run with {@code -f 0}). Both clients get the warm-up {@link FlatFanOut} explains.
 *
 * <p>Two setups: {@code shared}, the catalog in the benchmark's JVM, both on every CPU; {@code pinned}, a remote
 * catalog's stand-in, the catalog in a process of its own on CPU 1 ({@link RemoteCatalog}) and the client's JVM on CPU
 * 0. {@link ClientCost} counts what each plan costs the client: CPU time and bytes allocated, the catalog's threads
 * left out.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 6, time = 5)
@Measurement(iterations = 3, time = 2)
public class AgainstIceberg {

  static final TableIdentifier TABLE = TableIdentifier.of("bench", "events");

  /**
   * {@code flat-64} and {@code flat-256}: 64 or 256 handles in the plan response; {@code tree-1-8-64}: 1 -> 8 -> 64;
   * {@code chain-16x4}: a chain of 16 handles, each (and the plan response) also holding 4 leaves.
   */
  @Param({ "flat-64", "flat-256", "tree-1-8-64", "chain-16x4" })
  public String shape;

  @Param({ "2", "8", "32" })
  public int workers;

  @Param({ "ours", "iceberg" })
  public String client;

  @Param({ "10" })
  public int latencyMillis;

  /**
   * {@code embedded}: {@link EmbeddedIcebergCatalog}, the test module's catalog; {@code plain}: {@link
   * PlainFanOutCatalog}, Iceberg's adapter and servlet with a fixed fan-out and nothing else, on the same table.
   */
  @Param({ "embedded", "plain" })
  public String server;

  /**
   * {@code shared}: the catalog in this JVM, on every CPU; {@code pinned}: in a process of its own on CPU 1, this JVM
   * on CPU 0.
   */
  @Param({ "shared", "pinned" })
  public String setup;

  /**
   * What this planner speaks to the catalog: {@code http11}, or {@code h2c} (HTTP/2 with prior knowledge, one
   * connection, which the embedded catalog offers and the plain one does not). Iceberg's client speaks HTTP/1.1.
   */
  @Param({ "http11" })
  public String protocol;

  private EmbeddedIcebergCatalog catalog;
  private PlainFanOutCatalog plainCatalog;
  private RemoteCatalog remote;
  private ScanPlanner planner;
  private RESTCatalog icebergClient;
  private Table icebergTable;
  private int expectedTasks;

  /** The shape's plan-task tree, as the embedded catalog serves it and the plain server and the ideal read it. */
  static FanOut shape(String shape) {
    return switch (shape) {
      case "flat-64" -> FanOut.flat(64);
      case "flat-256" -> FanOut.flat(256);
      case "tree-1-8-64" -> FanOut.levels(1, 8, 8);
      case "chain-16x4" -> FanOut.custom(path -> path.size() < 16 && path.stream().allMatch(i -> i == 0) ? 5 : 0);
      default -> throw new IllegalArgumentException("unknown shape " + shape);
    };
  }

  /**
   * The shape's {@code /tasks} requests as a {@link PlanTree} for {@link IdealSchedule}, each taking
   * {@code latencyMillis}.
   */
  static PlanTree tree(String shape, int latencyMillis) {
    return PlanTree.of(shape(shape), latencyMillis * 1_000_000L);
  }

  /** About two tasks for every node of the shape, at least 160: every response carries tasks. */
  static int tasks(String shape) {
    return Math.max(160, 2 * shape(shape).handles().size());
  }

  /** The embedded catalog serving {@link #TABLE} over the shape, started. */
  static EmbeddedIcebergCatalog catalog(String shape, int latencyMillis) {
    EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create().fanOut(shape(shape))
        .tasksLatency(Duration.ofMillis(latencyMillis)).start();
    EmbeddedTable table = catalog.createTable(TABLE, new Schema(Types.NestedField.required(1, "id",
        Types.LongType.get())));
    table.appendDataFiles(tasks(shape));
    return catalog;
  }

  @Setup(Level.Trial)
  public void start() throws Exception {
    // before any Iceberg class reads it (ThreadPools reads it once, when it is initialised)
    System.setProperty("iceberg.worker.num-threads", Integer.toString(this.workers));
    this.expectedTasks = tasks(this.shape);
    String uri;
    if (this.setup.equals("pinned")) {
      this.remote = RemoteCatalog.start(this.shape, this.latencyMillis, this.server, 1);
      RemoteCatalog.pinThisJvm(0);
      uri = this.remote.uri();
    }
    else {
      this.catalog = catalog(this.shape, this.latencyMillis);
      uri = this.catalog.uri();
      if (this.server.equals("plain")) {
        this.plainCatalog = PlainFanOutCatalog.start(this.catalog.catalog(), TABLE,
            tree(this.shape, this.latencyMillis));
        uri = this.plainCatalog.uri();
      }
    }
    if (this.client.equals("ours")) {
      ScanPlanner.Builder builder = ScanPlanner.builder().uri(uri).maxConcurrency(this.workers);
      if (this.protocol.equals("h2c")) {
        builder.httpClient(http -> http.protocol(HttpProtocol.H2C));
      }
      this.planner = builder.build();
    }
    else {
      this.icebergClient = new RESTCatalog();
      // the FileIO the embedded catalog's config names, which Iceberg's plain adapter does not
      this.icebergClient.initialize("client", Map.of("uri", uri, "scan-planning-mode", "server",
          CatalogProperties.FILE_IO_IMPL, InMemoryFileIO.class.getName()));
      this.icebergTable = this.icebergClient.loadTable(TABLE);
    }
  }

  @Benchmark
  public long plan(ClientCost cost) {
    return cost.measure(this::planOnce);
  }

  long planOnce() {
    long count;
    if (this.planner != null) {
      count = this.planner.plan(io.icebergscan.planning.model.TableIdentifier.of("bench", "events"), ScanRequest.all())
          .tasks().size();
    }
    else {
      count = 0;
      try (CloseableIterable<FileScanTask> tasks = this.icebergTable.newScan().planFiles()) {
        for (FileScanTask ignored : tasks) {
          count++;
        }
      }
      catch (IOException failure) {
        throw new UncheckedIOException(failure);
      }
    }
    if (count != this.expectedTasks) {
      throw new IllegalStateException(this.client + ": expected " + this.expectedTasks + " tasks, got " + count);
    }
    return count;
  }

  @TearDown(Level.Trial)
  public void stop() throws Exception {
    if (this.planner != null) {
      this.planner.close();
    }
    if (this.icebergClient != null) {
      this.icebergClient.close();
    }
    if (this.plainCatalog != null) {
      this.plainCatalog.close();
    }
    if (this.catalog != null) {
      this.catalog.close();
    }
    if (this.remote != null) {
      this.remote.close();
    }
  }
}
