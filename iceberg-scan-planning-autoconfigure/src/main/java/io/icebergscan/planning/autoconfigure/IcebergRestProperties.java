package io.icebergscan.planning.autoconfigure;

import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the Iceberg REST catalog that plans scans.
 *
 * @param uri Base URI of the Iceberg REST catalog, the part before "/v1/...". No ScanPlanner bean is
 *     created without it.
 * @param warehouse Warehouse to request from the catalog's "GET /v1/config".
 * @param prefix Path prefix to use unless the catalog's configuration overrides it.
 * @param headers Static HTTP headers sent with every request to the catalog.
 * @param token Bearer token sent as "Authorization: Bearer ..." with every request.
 * @param connectTimeout Time to establish a connection to the catalog.
 * @param responseTimeout Time to wait for each response of the catalog.
 * @param retry Retries of requests that failed transiently.
 * @param scanPlanning Settings of server-side scan planning.
 */
@ConfigurationProperties("iceberg.rest")
public record IcebergRestProperties(
    @Nullable String uri,
    @Nullable String warehouse,
    @Nullable String prefix,
    @DefaultValue Map<String, String> headers,
    @Nullable String token,
    @DefaultValue("10s") Duration connectTimeout,
    @DefaultValue("60s") Duration responseTimeout,
    @DefaultValue Retry retry,
    @DefaultValue ScanPlanning scanPlanning) {

  public IcebergRestProperties {
    headers = Map.copyOf(headers);
    positive(connectTimeout, "iceberg.rest.connect-timeout");
    positive(responseTimeout, "iceberg.rest.response-timeout");
  }

  /** Never shows the token or header values: they often hold credentials. */
  @Override
  public String toString() {
    return "IcebergRestProperties[uri=" + this.uri + ", warehouse=" + this.warehouse + ", prefix=" + this.prefix
        + ", headers=" + new TreeMap<>(this.headers).keySet() + ", token=" + (this.token != null ? "******" : null)
        + ", connectTimeout=" + this.connectTimeout + ", responseTimeout=" + this.responseTimeout
        + ", retry=" + this.retry + ", scanPlanning=" + this.scanPlanning + "]";
  }

  /**
   * Retries of requests that failed transiently: HTTP 429, 502, 503 and 504, and requests that got no
   * answer. POSTs keep their Idempotency-Key on every attempt.
   *
   * @param maxRetries How often a request is sent again; 0 turns retries off.
   * @param initialDelay First wait before a retry; it doubles per attempt, with jitter.
   * @param maxDelay Longest wait before a retry, also the cap on the catalog's Retry-After.
   */
  public record Retry(
      @DefaultValue("3") int maxRetries,
      @DefaultValue("100ms") Duration initialDelay,
      @DefaultValue("10s") Duration maxDelay) {

    public Retry {
      if (maxRetries < 0) {
        throw new IllegalArgumentException("iceberg.rest.retry.max-retries must not be negative, but was " + maxRetries);
      }
      positive(initialDelay, "iceberg.rest.retry.initial-delay");
      positive(maxDelay, "iceberg.rest.retry.max-delay");
    }
  }

  /**
   * Settings of server-side scan planning.
   *
   * @param enabled Whether to auto-configure the ScanPlanner.
   * @param maxConcurrency Plan-task requests in flight at once across all plans of the planner, and the
   *     size of its executor; at least 1. Defaults to the number of available processors.
   * @param pollInitialDelay First wait before polling a plan the catalog answered "submitted".
   * @param pollMaxDelay Longest wait between two polls of a submitted plan.
   * @param planTimeout Longest time a whole plan may take: submission, polling and fetching its tasks.
   * @param cancelTimeout Longest time spent telling the catalog that a plan was abandoned.
   * @param streamBufferSize Fetched responses a streaming plan may hold ahead of its consumer.
   * @param maxResponseSize Largest catalog response accepted; a larger one fails the plan.
   * @param healthTimeout Longest time the health indicator waits for the catalog.
   */
  public record ScanPlanning(
      @DefaultValue("true") boolean enabled,
      @Nullable Integer maxConcurrency,
      @DefaultValue("100ms") Duration pollInitialDelay,
      @DefaultValue("5s") Duration pollMaxDelay,
      @DefaultValue("5m") Duration planTimeout,
      @DefaultValue("10s") Duration cancelTimeout,
      @DefaultValue("256") int streamBufferSize,
      @DefaultValue("64MB") DataSize maxResponseSize,
      @DefaultValue("2s") Duration healthTimeout) {

    public ScanPlanning {
      if (maxConcurrency == null) {
        maxConcurrency = Runtime.getRuntime().availableProcessors();
      }
      if (maxConcurrency < 1) {
        throw new IllegalArgumentException(
            "iceberg.rest.scan-planning.max-concurrency must be at least 1, but was " + maxConcurrency);
      }
      positive(pollInitialDelay, "iceberg.rest.scan-planning.poll-initial-delay");
      positive(pollMaxDelay, "iceberg.rest.scan-planning.poll-max-delay");
      positive(planTimeout, "iceberg.rest.scan-planning.plan-timeout");
      positive(cancelTimeout, "iceberg.rest.scan-planning.cancel-timeout");
      positive(healthTimeout, "iceberg.rest.scan-planning.health-timeout");
      if (streamBufferSize < 1) {
        throw new IllegalArgumentException(
            "iceberg.rest.scan-planning.stream-buffer-size must be at least 1, but was " + streamBufferSize);
      }
      if (maxResponseSize.toBytes() < 1 || maxResponseSize.toBytes() > Integer.MAX_VALUE) {
        throw new IllegalArgumentException("iceberg.rest.scan-planning.max-response-size must be between 1B and "
            + "2GB, but was " + maxResponseSize);
      }
    }

    /** The effective limit: never null once bound. */
    @Override
    public Integer maxConcurrency() {
      return this.maxConcurrency;
    }
  }

  private static void positive(Duration duration, String property) {
    if (duration.isNegative() || duration.isZero()) {
      throw new IllegalArgumentException(property + " must be positive, but was " + duration);
    }
  }
}
