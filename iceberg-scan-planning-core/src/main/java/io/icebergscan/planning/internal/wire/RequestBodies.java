package io.icebergscan.planning.internal.wire;

import java.util.List;

import io.icebergscan.planning.internal.wire.WireTypes.PlanTableScanRequest;
import org.jspecify.annotations.Nullable;
import tools.jackson.core.JacksonException;
import tools.jackson.databind.DeserializationFeature;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectReader;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** The JSON the planner sends: {@code PlanTableScanRequest} and {@code FetchScanTasksRequest}. */
public final class RequestBodies {

  /**
   * A {@code PlanTableScanRequest} body, and its filter as compact JSON, which is also the residual of
   * tasks the catalog sent none for.
   */
  public record PlanRequest(byte[] body, @Nullable String filter) {
  }

  private final JsonMapper mapper;
  /** Big decimals, as for responses: a filter's literal must reach the catalog exactly as it was written. */
  private final ObjectReader filterReader;

  public RequestBodies(JsonMapper mapper) {
    this.mapper = mapper;
    this.filterReader = mapper.reader().with(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  }

  private JsonNode filterNode(String filter) {
    try {
      JsonNode node = this.filterReader.readTree(filter);
      if (node == null || node.isMissingNode() || !(node.isObject() || node.isBoolean())) {
        throw new IllegalArgumentException("filter must be an Iceberg expression (a JSON object, true or false): "
            + filter);
      }
      return node;
    }
    catch (JacksonException notJson) {
      throw new IllegalArgumentException("filter is not valid JSON: " + notJson.getOriginalMessage(), notJson);
    }
  }

  /**
   * Null fields are left out: Apache Iceberg's server rejects {@code "filter": null}.
   *
   * @throws IllegalArgumentException when the filter is not JSON, before any request is made
   */
  public PlanRequest plan(PlanTableScanRequest request) {
    ObjectNode body = this.mapper.createObjectNode();
    if (request.snapshotId() != null) {
      body.put("snapshot-id", request.snapshotId());
    }
    putStrings(body, "select", request.select());
    JsonNode filter = request.filter() != null ? filterNode(request.filter()) : null;
    if (filter != null) {
      body.set("filter", filter);
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
    return new PlanRequest(this.mapper.writeValueAsBytes(body), filter != null ? filter.toString() : null);
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
