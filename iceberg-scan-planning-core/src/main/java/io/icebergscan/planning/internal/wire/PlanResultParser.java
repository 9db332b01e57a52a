package io.icebergscan.planning.internal.wire;

import java.util.List;
import java.util.Locale;

import io.icebergscan.planning.internal.wire.JsonReader.Path;
import io.icebergscan.planning.internal.wire.WireTypes.PlanStatus;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;

/**
 * The answer of {@code POST …/plan} (the spec's {@code PlanTableScanResult}) or of {@code GET …/plan/{plan-id}}
 * ({@code FetchPlanningResult}): a status, and the tasks of a completed plan.
 */
public final class PlanResultParser {

  private static final List<String> TASK_FIELDS = List.of("plan-tasks", "file-scan-tasks", "delete-files");

  private final ObjectReader reader;
  private final ScanTasksParser tasks;

  public PlanResultParser(JsonMapper mapper) {
    this.reader = JsonReader.strictReader(mapper);
    this.tasks = new ScanTasksParser(mapper);
  }

  /**
   * @param fromSubmit whether the body answered the submission ({@code POST …/plan}) rather than a poll
   */
  public PlanningResult parse(byte[] body, boolean fromSubmit) {
    // secret-bearing: a completed plan may carry the storage credentials vended for it
    JsonReader in = JsonReader.secretBearing();
    return in.guarded(() -> read(in, in.root(this.reader, body), fromSubmit));
  }

  private PlanningResult read(JsonReader in, JsonNode root, boolean fromSubmit) {
    PlanStatus status = status(in, root);
    String planId = planId(in, root);
    if (status == PlanStatus.CANCELLED && fromSubmit) {
      throw in.fail("status 'cancelled' is not a valid answer to a plan submission", Path.of("status"));
    }
    // only the submission must name the plan to poll; a poll's `submitted` (EmptyPlanningResult) has no id
    if (status == PlanStatus.SUBMITTED && fromSubmit && planId == null) {
      throw in.fail("a submitted plan needs a plan-id to poll", Path.of("plan-id"));
    }
    if (status != PlanStatus.COMPLETED) {
      for (String name : TASK_FIELDS) {
        if (root.has(name)) {
          throw in.fail("task field on a plan with status '" + status.name().toLowerCase(Locale.ROOT) + "'",
              Path.of(name));
        }
      }
    }
    return switch (status) {
      case COMPLETED -> new PlanningResult(status, planId, this.tasks.read(in, root), null,
          LoadTableParser.storageCredentials(in, root, false));
      case FAILED -> new PlanningResult(status, planId, ScanTasks.EMPTY, ErrorBodyParser.errorObject(root.get("error")),
          List.of());
      case SUBMITTED, CANCELLED -> new PlanningResult(status, planId, ScanTasks.EMPTY, null, List.of());
    };
  }

  private static PlanStatus status(JsonReader in, JsonNode root) {
    JsonNode node = root.get("status");
    if (node == null || node.isNull()) {
      throw in.fail("missing plan status", Path.of("status"));
    }
    if (!node.isString()) {
      throw in.fail("expected a string but got " + in.kind(node), Path.of("status"));
    }
    return switch (node.stringValue().toLowerCase(Locale.ROOT)) {
      case "completed" -> PlanStatus.COMPLETED;
      case "submitted" -> PlanStatus.SUBMITTED;
      case "cancelled" -> PlanStatus.CANCELLED;
      case "failed" -> PlanStatus.FAILED;
      default -> throw in.fail("unknown plan status" + in.quoted(node.stringValue()), Path.of("status"));
    };
  }

  private static @Nullable String planId(JsonReader in, JsonNode root) {
    JsonNode node = in.optional(root, "plan-id");
    if (node == null) {
      return null;
    }
    String planId = in.nonEmptyString(node, Path.of("plan-id"));
    // The id goes into request paths (poll, DELETE): one that could climb or split the path is refused.
    String lower = planId.toLowerCase(Locale.ROOT);
    if (planId.equals(".") || planId.equals("..") || planId.indexOf('/') >= 0 || planId.indexOf('\\') >= 0
        || lower.contains("%2f") || lower.contains("%5c") || lower.contains("%2e%2e")
        || planId.chars().anyMatch(Character::isISOControl)) {
      throw in.fail("a plan-id must not be able to change the request path", Path.of("plan-id"));
    }
    return planId;
  }
}
