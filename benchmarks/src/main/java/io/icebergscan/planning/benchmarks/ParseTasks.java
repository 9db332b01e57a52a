package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.internal.wire.ScanTasksParser;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponseParser;
import org.apache.iceberg.util.JsonUtil;
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
import org.openjdk.jmh.annotations.Warmup;
import tools.jackson.databind.json.JsonMapper;

/**
 * Benchmark 4: parsing and validating one {@code /tasks} answer of {@code tasks} file scan tasks with
 * full column stats and deletes ({@link TasksJson}), from bytes: this planner's parser against Apache
 * Iceberg Java's {@code FetchScanTasksResponseParser} (its REST client's path: Jackson 2 tree, then the
 * parser, then {@code validate()}). Time per parse; {@link Report} derives tasks per second and, from
 * {@code -prof gc}, bytes allocated per task.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(value = 1, jvmArgsAppend = { "-Xmx2g" })
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class ParseTasks {

  @Param({ "1000", "10000" })
  public int tasks;

  @Param({ "10" })
  public int columns;

  private byte[] body;
  private ScanTasksParser ours;
  private final Map<Integer, PartitionSpec> specs = Map.of(0, PartitionSpec.unpartitioned());

  @Setup(Level.Trial)
  public void setUp() {
    this.body = TasksJson.body(this.tasks, this.columns);
    // as the planner builds it: a default JsonMapper
    this.ours = new ScanTasksParser(JsonMapper.builder().build());
    int a = ours();
    int b = iceberg();
    if (a != this.tasks || b != this.tasks) {
      throw new IllegalStateException("expected " + this.tasks + " tasks: ours " + a + ", iceberg " + b);
    }
  }

  @Benchmark
  public int ours() {
    return this.ours.parse(this.body, "bench-handle").fileScanTasks().size();
  }

  @Benchmark
  public int iceberg() {
    try {
      JsonNode node = JsonUtil.mapper().readTree(this.body);
      FetchScanTasksResponse response = FetchScanTasksResponseParser.fromJson(node, this.specs, true);
      response.validate();
      return response.fileScanTasks().size();
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
  }
}
