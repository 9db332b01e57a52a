package io.icebergscan.planning.test;

/**
 * How many planning, credentials and metrics requests an {@link EmbeddedIcebergCatalog} has answered since it started or
 * since {@link EmbeddedIcebergCatalog#resetRequestCounts()}; requests rejected before reaching the catalog
 * (a body that does not parse) are not counted.
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
 */
public record RequestCounts(int config, int plan, int poll, int cancel, int tasks, int maxConcurrentTasks,
    int credentials, int metrics, int metricsInFlight) {
}
