package io.icebergscan.planning;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;

/** Small file scan tasks named by their data file path, and their JSON on the wire. */
public final class TestTasks {

  private TestTasks() {
  }

  public static FileScanTask task(String path) {
    return new FileScanTask(new DataFile(path, FileFormat.PARQUET, 0, List.of(), 100, 10, null, List.of(), null, null,
        Map.of(), Map.of(), Map.of(), Map.of(), Map.of(), Map.of()), List.of(), null);
  }

  public static List<FileScanTask> tasks(List<String> paths) {
    return paths.stream().map(TestTasks::task).toList();
  }

  public static List<String> paths(List<FileScanTask> tasks) {
    return tasks.stream().map(task -> task.dataFile().filePath()).toList();
  }

  public static String json(String path) {
    return "{\"data-file\":{\"spec-id\":0,\"partition\":[],\"content\":\"data\",\"file-path\":\"" + path
        + "\",\"file-format\":\"parquet\",\"file-size-in-bytes\":100,\"record-count\":10}}";
  }
}
