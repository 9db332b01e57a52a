package io.icebergscan.planning.internal.wire;

import java.util.List;

import io.icebergscan.planning.internal.wire.WireTypes.PlanTableScanRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.databind.util.RawValue;

/** The JSON the planner sends: {@code PlanTableScanRequest} and {@code FetchScanTasksRequest}. */
public final class RequestBodies {

  private final JsonMapper mapper;

  public RequestBodies(JsonMapper mapper) {
    this.mapper = mapper;
  }

  /**
   * A {@code PlanTableScanRequest} body. Null fields are left out: Apache Iceberg's server rejects
   * {@code "filter": null}. The filter goes in as written, not read again.
   */
  public byte[] plan(PlanTableScanRequest request) {
    ObjectNode body = this.mapper.createObjectNode();
    if (request.snapshotId() != null) {
      body.put("snapshot-id", request.snapshotId());
    }
    putStrings(body, "select", request.select());
    if (request.filter() != null) {
      body.putRawValue("filter", new RawValue(request.filter()));
    }
    if (request.caseSensitive() != null) {
      body.put("case-sensitive", request.caseSensitive());
    }
    if (request.useSnapshotSchema() != null) {
      body.put("use-snapshot-schema", request.useSnapshotSchema());
    }
    if (request.startSnapshotId() != null) {
      body.put("start-snapshot-id", request.startSnapshotId());
    }
    if (request.endSnapshotId() != null) {
      body.put("end-snapshot-id", request.endSnapshotId());
    }
    putStrings(body, "stats-fields", request.statsFields());
    if (request.minRowsRequested() != null) {
      body.put("min-rows-requested", request.minRowsRequested());
    }
    return this.mapper.writeValueAsBytes(body);
  }

  public byte[] tasks(String planTask) {
    ObjectNode body = this.mapper.createObjectNode();
    body.put("plan-task", planTask);
    return this.mapper.writeValueAsBytes(body);
  }

  private static void putStrings(ObjectNode body, String field, @Nullable List<String> values) {
    if (values != null) {
      ArrayNode array = body.putArray(field);
      values.forEach(array::add);
    }
  }
}
