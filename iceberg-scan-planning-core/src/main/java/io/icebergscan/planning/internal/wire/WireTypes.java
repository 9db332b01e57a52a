package io.icebergscan.planning.internal.wire;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import org.jspecify.annotations.Nullable;

/** The validated messages of the catalog, as the parsers of this package produce them. */
public final class WireTypes {

  private WireTypes() {
  }

  /**
   * The spec's {@code PlanTableScanRequest}, as the planner's {@code ScanRequest} fills it; {@code null} fields are
   * not sent.
   *
   * @param filter the row filter as compact Iceberg expression JSON, checked when it was made: sent as it is
   */
  public record PlanTableScanRequest(@Nullable Long snapshotId, @Nullable List<String> select,
      @Nullable String filter, @Nullable Boolean caseSensitive, @Nullable Boolean useSnapshotSchema,
      @Nullable Long startSnapshotId, @Nullable Long endSnapshotId, @Nullable List<String> statsFields,
      @Nullable Long minRowsRequested) {
  }

  /** A status of a server-side plan. */
  public enum PlanStatus {
    COMPLETED, SUBMITTED, CANCELLED, FAILED
  }

  /**
   * One {@code ScanTasks} payload: tasks with their delete references already resolved against this
   * payload's own {@code delete-files}, and the plan-task handles it announced, in order.
   */
  public record ScanTasks(List<FileScanTask> fileScanTasks, List<String> planTasks) {

    public static final ScanTasks EMPTY = new ScanTasks(List.of(), List.of());

    public ScanTasks {
      fileScanTasks = List.copyOf(fileScanTasks);
      planTasks = List.copyOf(planTasks);
    }
  }

  /** The {@code error} object of an error body or of a {@code failed} plan; every field may be absent. */
  public record ErrorBody(@Nullable String message, @Nullable String type, @Nullable Integer code) {
  }

  /** A {@code PlanTableScanResult} or {@code FetchPlanningResult}. */
  public record PlanningResult(PlanStatus status, @Nullable String planId, ScanTasks tasks, @Nullable ErrorBody error,
      List<StorageCredential> storageCredentials) {

    public PlanningResult {
      storageCredentials = List.copyOf(storageCredentials);
    }
  }

  /**
   * A {@code LoadTableResult}, the answer of {@code GET …/tables/{table}}.
   *
   * @param metadataJson the {@code metadata} object as JSON text, for Apache Iceberg's {@code TableMetadataParser}
   * @param config the table's {@code config}, empty when absent
   * @param readRestrictions the {@code read-restrictions} object as JSON text, {@code null} when absent or null
   */
  public record LoadTableResult(@Nullable String metadataLocation, String metadataJson, Map<String, String> config,
      List<StorageCredential> storageCredentials, @Nullable String readRestrictions) {

    public LoadTableResult {
      config = Map.copyOf(config);
      storageCredentials = List.copyOf(storageCredentials);
    }
  }

  /**
   * {@code GET /v1/config}.
   *
   * @param endpoints the advertised endpoints, or
   *     {@code null} when the catalog sent none (then planning is not advertised)
   * @param idempotencyKeyLifetime how long the catalog honours an {@code Idempotency-Key}; {@code null} when it
   *     does not say, which per the spec means it does not support them
   */
  public record CatalogConfig(Map<String, String> defaults, Map<String, String> overrides, @Nullable Set<Endpoint> endpoints,
      @Nullable Duration idempotencyKeyLifetime) {

    public CatalogConfig {
      defaults = Map.copyOf(defaults);
      overrides = Map.copyOf(overrides);
      endpoints = endpoints == null ? null : Set.copyOf(endpoints);
    }
  }
}
