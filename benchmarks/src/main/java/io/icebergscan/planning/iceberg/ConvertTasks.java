package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.benchmarks.TasksJson;
import io.icebergscan.planning.internal.wire.ScanTasksParser;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponseParser;
import org.apache.iceberg.types.Types;
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
 * Benchmark 6: from one {@code /tasks} answer ({@link TasksJson}, as {@code ParseTasks} parses it) to Apache
 * Iceberg's own {@link FileScanTask}s. This planner takes two steps: its parse ({@link #parse}, as
 * {@code ParseTasks.ours}) and the conversion of the parsed tasks ({@link #convert}, the package-private
 * {@link TaskConverter} that {@link IcebergScanPlanner#plan} runs on every task); {@link #parseAndConvert} is both.
 * Apache Iceberg's {@code FetchScanTasksResponseParser} ({@link #iceberg}, plus {@code validate()}, its REST client's
 * path) yields its types in one step, so the fair comparison is {@link #parseAndConvert} against {@link #iceberg}.
 * Both get the same table: {@code columns} long columns, unpartitioned, whose spec Iceberg's parser gets too.
 * Time per answer; {@code Report} divides by {@code tasks} for the time per task.
 *
 * <p>In {@code io.icebergscan.planning.iceberg} only to reach {@link TaskConverter}: the benchmarks run on the
 * classpath, where this module's classes and the iceberg module's share the package. A benchmark may do this; an
 * application may not.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
// three forks: the time of one fork's JIT-compiled code varies more between forks than within one
@Fork(value = 3, jvmArgsAppend = { "-Xmx2g" })
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 4, time = 2)
public class ConvertTasks {

  @Param({ "1000", "10000" })
  public int tasks;

  @Param({ "10" })
  public int columns;

  private byte[] body;
  private ScanTasksParser ours;
  private TableMetadata metadata;
  private Map<Integer, PartitionSpec> specs;
  private List<io.icebergscan.planning.model.FileScanTask> parsed;

  @Setup(Level.Trial)
  public void setUp() {
    this.body = TasksJson.body(this.tasks, this.columns);
    // as the planner builds it: a default JsonMapper
    this.ours = new ScanTasksParser(JsonMapper.builder().build());
    List<Types.NestedField> fields = new ArrayList<>(this.columns);
    for (int id = 1; id <= this.columns; id++) {
      fields.add(Types.NestedField.optional(id, "c" + id, Types.LongType.get()));
    }
    this.metadata = TableMetadata.newTableMetadata(new Schema(fields), PartitionSpec.unpartitioned(),
        "memory://bench/t", Map.of());
    this.specs = this.metadata.specsById();
    this.parsed = this.ours.parse(this.body, "bench-handle").fileScanTasks();
    int[] counts = { parse(), convert().size(), parseAndConvert().size(), iceberg() };
    for (int count : counts) {
      if (count != this.tasks) {
        throw new IllegalStateException("expected " + this.tasks + " tasks from each of parse, convert, parse and "
            + "convert, and Iceberg: " + Arrays.toString(counts));
      }
    }
  }

  @Benchmark
  public int parse() {
    return this.ours.parse(this.body, "bench-handle").fileScanTasks().size();
  }

  @Benchmark
  public List<FileScanTask> convert() {
    return convert(this.parsed);
  }

  @Benchmark
  public List<FileScanTask> parseAndConvert() {
    return convert(this.ours.parse(this.body, "bench-handle").fileScanTasks());
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

  /** The table both ends parse against. */
  TableMetadata metadata() {
    return this.metadata;
  }

  /**
   * A converter per answer, where a plan has one for all its answers: its caches (the spec's JSON, the residual's
   * evaluator) are filled once per answer here, which overstates a plan's conversion a little, never understates it.
   */
  private List<FileScanTask> convert(List<io.icebergscan.planning.model.FileScanTask> tasks) {
    TaskConverter converter = new TaskConverter(this.metadata, this.metadata.schema(), true, false);
    // into a list, as IcebergScanPlanner.plan collects them: what JMH consumes cannot be optimised away
    List<FileScanTask> converted = new ArrayList<>(tasks.size());
    for (io.icebergscan.planning.model.FileScanTask task : tasks) {
      converted.add(converter.convert(task));
    }
    return converted;
  }
}
