package io.icebergscan.planning.internal.wire;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileScanTask;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.ObjectWriter;
import tools.jackson.databind.SerializationFeature;
import tools.jackson.databind.json.JsonMapper;

/**
 * The spec's {@code ScanTasks}: the answer of {@code POST …/tasks} ({@code FetchScanTasksResult}), and the tasks
 * part of a completed plan. Delete-file references are resolved against the same answer's {@code delete-files}.
 */
public final class ScanTasksParser {

  private final ObjectReader reader;
  /** Residuals travel as text; an application mapper with pretty printing must not change their form. */
  private final ObjectWriter compactWriter;

  private final ScanTasksStream stream;

  public ScanTasksParser(JsonMapper mapper) {
    this.reader = JsonReader.strictReader(mapper);
    this.compactWriter = mapper.writer().without(SerializationFeature.INDENT_OUTPUT);
    this.stream = new ScanTasksStream(this.reader, this.compactWriter);
  }

  /**
   * The common answer straight from the token stream ({@link ScanTasksStream}); any other read as a tree, which
   * accepts it or rejects it naming what is wrong.
   *
   * @param planTask the handle this body answers, named in every rejection
   */
  public ScanTasks parse(byte[] body, String planTask) {
    return parse(body, planTask, true);
  }

  /**
   * As {@link #parse(byte[], String)}, a rejection quoting the body only when {@code quoting}: not for a plan of a
   * read under read restrictions, whose answers may hold raw values of masked columns.
   */
  public ScanTasks parse(byte[] body, String planTask, boolean quoting) {
    ScanTasks common = this.stream.read(body);
    if (common != null) {
      return common;
    }
    JsonReader in = quoting ? JsonReader.quoting(planTask) : JsonReader.withholding(planTask);
    return in.guarded(() -> read(in, in.root(this.reader, body)));
  }

  ScanTasks read(JsonReader in, JsonNode root) {
    JsonNode planTasks = taskList(in, root, "plan-tasks");
    JsonNode fileScanTasks = taskList(in, root, "file-scan-tasks");
    JsonNode deleteFiles = taskList(in, root, "delete-files");
    if (!deleteFiles.isEmpty() && fileScanTasks.isEmpty()) {
      throw in.fail("delete files without file scan tasks", Path.of("delete-files"));
    }
    List<DeleteFile> deletes = new ArrayList<>(deleteFiles.size());
    for (int i = 0; i < deleteFiles.size(); i++) {
      deletes.add(ContentFileParser.deleteFile(in, deleteFiles.get(i), Path.of("delete-files").element(i)));
    }
    List<FileScanTask> tasks = new ArrayList<>(fileScanTasks.size());
    for (int i = 0; i < fileScanTasks.size(); i++) {
      tasks.add(fileScanTask(in, fileScanTasks.get(i), Path.of("file-scan-tasks").element(i), deletes));
    }
    List<String> handles = new ArrayList<>(planTasks.size());
    Path handlesPath = Path.of("plan-tasks");
    for (int i = 0; i < planTasks.size(); i++) {
      handles.add(in.nonEmptyStringAt(planTasks.get(i), handlesPath, i));
    }
    return new ScanTasks(tasks, handles);
  }

  /** A task list: absent means none, but an explicit null is a broken server, not an empty answer. */
  private static JsonNode taskList(JsonReader in, JsonNode root, String name) {
    JsonNode node = root.get(name);
    if (node == null) {
      return JsonReader.EMPTY_ARRAY;
    }
    if (node.isNull()) {
      throw in.fail("explicit null for a task list", Path.of(name));
    }
    return in.array(node, Path.of(name));
  }

  private FileScanTask fileScanTask(JsonReader in, JsonNode node, Path path, List<DeleteFile> deletes) {
    JsonNode task = in.object(node, path);
    JsonNode dataNode = task.get("data-file");
    Path dataPath = path.field("data-file");
    if (dataNode == null || !dataNode.isObject()) {
      throw in.fail("task without a data file", dataPath);
    }
    DataFile dataFile = ContentFileParser.dataFile(in, dataNode, dataPath);
    List<DeleteFile> applied = deleteReferences(in, task, path.field("delete-file-references"), deletes);
    return new FileScanTask(dataFile, applied, residual(in, task, path.field("residual-filter")));
  }

  /** References index this payload's own delete-files: resolving them anywhere else misattributes deletes. */
  private static List<DeleteFile> deleteReferences(JsonReader in, JsonNode task, Path path, List<DeleteFile> deletes) {
    JsonNode node = in.optional(task, "delete-file-references");
    if (node == null) {
      return List.of();
    }
    JsonNode array = in.array(node, path);
    List<DeleteFile> applied = new ArrayList<>(array.size());
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < array.size(); i++) {
      Path refPath = path.element(i);
      int index = in.intValue(array.get(i), refPath);
      if (index < 0 || index >= deletes.size()) {
        throw in.fail("delete file reference" + in.shown(" ", index) + " is out of range: this response has "
            + deletes.size() + " delete files", refPath);
      }
      if (!seen.add(index)) {
        throw in.fail("delete file reference" + in.shown(" ", index) + " appears twice in one task", refPath);
      }
      applied.add(deletes.get(index));
    }
    return applied;
  }

  /** The task's own residual, or {@code null}: the plan gives such tasks the request's filter (PlanRun). */
  private @Nullable String residual(JsonReader in, JsonNode task, Path path) {
    JsonNode node = in.optional(task, "residual-filter");
    if (node == null) {
      return null;
    }
    try {
      return this.compactWriter.writeValueAsString(node);
    }
    catch (JacksonException ex) {
      throw in.fail("residual filter cannot be serialised" + in.shown(": ", ex.getOriginalMessage()), path);
    }
  }
}
