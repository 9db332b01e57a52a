package io.icebergscan.planning.iceberg;

import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import io.icebergscan.planning.benchmarks.TasksJson;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.rest.responses.FetchScanTasksResponseParser;
import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ConvertTasksTest {

  @Test
  void eachBenchmarkTurnsTheAnswerIntoAllItsTasks() {
    ConvertTasks benchmark = new ConvertTasks();
    benchmark.tasks = 100;
    benchmark.columns = 10;
    benchmark.setUp();
    assertThat(benchmark.parse()).isEqualTo(100);
    assertThat(benchmark.iceberg()).isEqualTo(100);
    assertThat(benchmark.convert()).hasSize(100);
    assertThat(benchmark.parseAndConvert()).hasSize(100);
  }

  @Test
  void ourTasksAreTheTasksIcebergsParserMakes() throws Exception {
    // the comparison is only fair if both ends hold the same: same files, deletes and stats
    ConvertTasks benchmark = new ConvertTasks();
    benchmark.tasks = 100;
    benchmark.columns = 10;
    benchmark.setUp();
    List<FileScanTask> ours = benchmark.parseAndConvert();
    Map<Integer, PartitionSpec> specs = benchmark.metadata().specsById();
    JsonNode body = JsonUtil.mapper().readTree(TasksJson.body(100, 10));
    List<FileScanTask> iceberg = FetchScanTasksResponseParser.fromJson(body, specs, true).fileScanTasks();
    assertThat(ours).hasSameSizeAs(iceberg);
    for (int i = 0; i < ours.size(); i++) {
      FileScanTask a = ours.get(i);
      FileScanTask b = iceberg.get(i);
      assertThat(a.file().location()).isEqualTo(b.file().location());
      assertThat(a.file().recordCount()).isEqualTo(b.file().recordCount());
      assertThat(a.file().fileSizeInBytes()).isEqualTo(b.file().fileSizeInBytes());
      assertThat(a.file().columnSizes()).isEqualTo(b.file().columnSizes());
      assertThat(a.file().nullValueCounts()).isEqualTo(b.file().nullValueCounts());
      assertThat(a.file().lowerBounds()).isEqualTo(b.file().lowerBounds());
      assertThat(a.file().upperBounds()).isEqualTo(b.file().upperBounds());
      assertThat(a.file().splitOffsets()).isEqualTo(b.file().splitOffsets());
      assertThat(a.deletes().stream().map(ContentFile::location).toList())
          .isEqualTo(b.deletes().stream().map(ContentFile::location).toList());
      assertThat(a.deletes().stream().map(ContentFile::content).toList())
          .isEqualTo(b.deletes().stream().map(ContentFile::content).toList());
      // the answer sends no residual-filter: ours is "always true", Iceberg's parser leaves none
      assertThat(a.residual()).isEqualTo(Expressions.alwaysTrue());
      assertThat(b.residual()).isNull();
    }
    assertThat(ours.get(0).deletes()).hasSize(2);
    assertThat(ours.get(1).deletes()).hasSize(1);
  }
}
