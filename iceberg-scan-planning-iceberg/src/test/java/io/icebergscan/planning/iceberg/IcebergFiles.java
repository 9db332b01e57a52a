package io.icebergscan.planning.iceberg;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import org.apache.iceberg.CombinedScanTask;
import org.apache.iceberg.ContentFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionUtil;
import org.apache.iceberg.expressions.Expressions;

/** Every field of Iceberg's tasks and files as plain values, so two tasks compare field by field in one assertion. */
final class IcebergFiles {

  private IcebergFiles() {
  }

  static Map<String, Object> describe(FileScanTask task) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("file", describe(task.file()));
    view.put("start", task.start());
    view.put("length", task.length());
    view.put("spec", task.spec().specId());
    view.put("schema", task.schema().asStruct().toString());
    List<Object> deletes = new ArrayList<>();
    for (DeleteFile delete : task.deletes()) {
      deletes.add(describe(delete));
    }
    view.put("deletes", deletes);
    view.put("residual", residual(task.residual()));
    return view;
  }

  static List<Object> describe(CombinedScanTask group) {
    return group.files().stream().map(task -> (Object) describe(task)).toList();
  }

  static Map<String, Object> describe(ContentFile<?> file) {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("content", file.content());
    view.put("location", file.location());
    view.put("format", file.format());
    view.put("specId", file.specId());
    view.put("partition", partition(file.partition()));
    view.put("recordCount", file.recordCount());
    view.put("fileSizeInBytes", file.fileSizeInBytes());
    view.put("columnSizes", sorted(file.columnSizes()));
    view.put("valueCounts", sorted(file.valueCounts()));
    view.put("nullValueCounts", sorted(file.nullValueCounts()));
    view.put("nanValueCounts", sorted(file.nanValueCounts()));
    view.put("lowerBounds", hex(file.lowerBounds()));
    view.put("upperBounds", hex(file.upperBounds()));
    view.put("keyMetadata", file.keyMetadata() == null ? "none" : hex(file.keyMetadata()));
    view.put("splitOffsets", file.splitOffsets() == null ? List.of() : file.splitOffsets());
    view.put("sortOrderId", String.valueOf(file.sortOrderId()));
    view.put("equalityFieldIds", String.valueOf(file.equalityFieldIds()));
    view.put("firstRowId", String.valueOf(file.firstRowId()));
    if (file instanceof DeleteFile delete) {
      view.put("referencedDataFile", String.valueOf(delete.referencedDataFile()));
      view.put("contentOffset", String.valueOf(delete.contentOffset()));
      view.put("contentSizeInBytes", String.valueOf(delete.contentSizeInBytes()));
    }
    return view;
  }

  /** Residuals compare as the same predicate tree, unbound (Iceberg's tasks may hold it bound or not). */
  static String residual(Expression residual) {
    Expression expression = residual == null ? Expressions.alwaysTrue() : residual;
    return ExpressionUtil.toSanitizedString(expression) + " / " + expression;
  }

  private static List<Object> partition(StructLike partition) {
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < partition.size(); i++) {
      Object value = partition.get(i, Object.class);
      values.add(value instanceof ByteBuffer buffer ? hex(buffer) : String.valueOf(value) + ":"
          + (value == null ? "null" : value.getClass().getSimpleName()));
    }
    return values;
  }

  private static <V> Map<Integer, V> sorted(Map<Integer, V> map) {
    return map == null ? Map.of() : new TreeMap<>(map);
  }

  private static Map<Integer, String> hex(Map<Integer, ByteBuffer> map) {
    Map<Integer, String> hex = new TreeMap<>();
    if (map != null) {
      map.forEach((id, value) -> hex.put(id, hex(value)));
    }
    return hex;
  }

  private static String hex(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    StringBuilder out = new StringBuilder();
    while (copy.hasRemaining()) {
      out.append(String.format("%02x", copy.get()));
    }
    return out.toString();
  }
}
