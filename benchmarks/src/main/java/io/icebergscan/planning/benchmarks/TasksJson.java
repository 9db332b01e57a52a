package io.icebergscan.planning.benchmarks;

import java.nio.charset.StandardCharsets;

/**
 * A {@code FetchScanTasksResult} body with {@code tasks} file scan tasks carrying full column stats
 * (sizes, value/null/NaN counts, lower and upper bounds for {@code columns} columns) and deletes: one
 * position delete file per 10 tasks, one equality delete file per 100, each task referencing its
 * position delete file and every 4th task also its equality delete file. Every file is of spec 0, unpartitioned;
 * the stats name columns 1 to {@code columns}. Public for {@code io.icebergscan.planning.iceberg.ConvertTasks}.
 */
public final class TasksJson {

  private TasksJson() {
  }

  public static byte[] body(int tasks, int columns) {
    StringBuilder json = new StringBuilder(tasks * (400 + columns * 90));
    int positionDeletes = (tasks + 9) / 10;
    int equalityDeletes = (tasks + 99) / 100;
    json.append("{\"plan-tasks\":[],\"delete-files\":[");
    for (int d = 0; d < positionDeletes; d++) {
      if (d > 0) {
        json.append(',');
      }
      json.append("{\"spec-id\":0,\"content\":\"position-deletes\",\"file-path\":\"s3://bench/t/data/pos-").append(d)
          .append(".parquet\",\"file-format\":\"parquet\",\"partition\":[],\"file-size-in-bytes\":2048,")
          .append("\"record-count\":17}");
    }
    for (int d = 0; d < equalityDeletes; d++) {
      json.append(",{\"spec-id\":0,\"content\":\"equality-deletes\",\"file-path\":\"s3://bench/t/data/eq-").append(d)
          .append(".parquet\",\"file-format\":\"parquet\",\"partition\":[],\"file-size-in-bytes\":1024,")
          .append("\"record-count\":3,\"equality-ids\":[1]}");
    }
    json.append("],\"file-scan-tasks\":[");
    for (int task = 0; task < tasks; task++) {
      final int t = task;
      if (t > 0) {
        json.append(',');
      }
      json.append("{\"data-file\":{\"spec-id\":0,\"content\":\"data\",\"file-path\":\"s3://bench/t/data/part-")
          .append(t).append("-0001.parquet\",\"file-format\":\"parquet\",\"partition\":[],")
          .append("\"file-size-in-bytes\":").append(1_048_576L + t).append(",\"record-count\":").append(10_000 + t)
          .append(",\"split-offsets\":[4]");
      stats(json, "column-sizes", columns, c -> Long.toString(1000L * c + t));
      stats(json, "value-counts", columns, c -> Long.toString(10_000L + t));
      stats(json, "null-value-counts", columns, c -> Long.toString(c % 3));
      stats(json, "nan-value-counts", columns, c -> "0");
      stats(json, "lower-bounds", columns, c -> "\"" + hexLong(t * 100L + c) + "\"");
      stats(json, "upper-bounds", columns, c -> "\"" + hexLong(t * 100L + c + 99) + "\"");
      json.append("},\"delete-file-references\":[").append(t / 10);
      if (t % 4 == 0) {
        json.append(',').append(positionDeletes + t / 100);
      }
      json.append("]}");
    }
    json.append("]}");
    return json.toString().getBytes(StandardCharsets.UTF_8);
  }

  private static void stats(StringBuilder json, String name, int columns, java.util.function.IntFunction<String> value) {
    json.append(",\"").append(name).append("\":{\"keys\":[");
    for (int c = 1; c <= columns; c++) {
      json.append(c == 1 ? "" : ",").append(c);
    }
    json.append("],\"values\":[");
    for (int c = 1; c <= columns; c++) {
      json.append(c == 1 ? "" : ",").append(value.apply(c));
    }
    json.append("]}");
  }

  /** An Iceberg single-value serialisation of a long: 8 bytes little-endian, in hex. */
  private static String hexLong(long value) {
    StringBuilder hex = new StringBuilder(16);
    for (int b = 0; b < 8; b++) {
      hex.append(String.format("%02X", (value >>> (8 * b)) & 0xFF));
    }
    return hex.toString();
  }
}
