package io.icebergscan.planning;

import java.util.List;

import io.icebergscan.planning.model.FileScanTask;
import tools.jackson.databind.json.JsonMapper;

/**
 * Benchmarks only: the planner's package-private response parser, exactly as the planner builds it
 * (a default {@code JsonMapper}), so parsing and validation can be timed without a socket.
 */
public final class BenchmarkAccess {

  private final ResponseParser parser = new ResponseParser(JsonMapper.builder().build());

  /** Parses and validates a {@code /tasks} answer, resolving delete references, as a fetch does. */
  public List<FileScanTask> parseScanTasks(byte[] body, String planTask) {
    return this.parser.scanTasks(body, planTask, null).fileScanTasks();
  }
}
