package io.icebergscan.planning.test;

import java.util.Objects;

/**
 * How many planning, credentials and metrics requests an {@link EmbeddedIcebergCatalog} has answered since it started or
 * since {@link EmbeddedIcebergCatalog#resetRequestCounts()}, and the time it spent answering plans; requests rejected
 * before reaching the catalog (a body that does not parse, a missing bearer token, with principals one that is not
 * a principal's) are neither counted nor timed.
 *
 * @param config {@code GET /v1/config}
 * @param plan {@code POST …/plan}
 * @param poll {@code GET …/plan/{plan-id}}
 * @param cancel {@code DELETE …/plan/{plan-id}}
 * @param tasks {@code POST …/tasks}
 * @param maxConcurrentTasks the most {@code /tasks} requests that were being answered at the same time
 * @param credentials {@code GET …/tables/{table}/credentials}, with or without {@code planId} (see
 *     {@link EmbeddedIcebergCatalog#vendedCredentials})
 * @param metrics {@code POST …/tables/{table}/metrics}: scan and commit reports
 * @param metricsInFlight the metrics reports being answered now (see {@link EmbeddedIcebergCatalog#metricsLatency})
 * @param answering the time spent answering the {@code plan}, {@code poll} and {@code tasks} requests
 */
public record RequestCounts(int config, int plan, int poll, int cancel, int tasks, int maxConcurrentTasks,
    int credentials, int metrics, int metricsInFlight, AnsweringTime answering) {

  public RequestCounts {
    Objects.requireNonNull(answering, "answering");
  }
}
