package io.icebergscan.planning;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What to plan: every field of the REST spec's {@code PlanTableScanRequest}, how many plan-task fetches this plan may
 * have in flight, and whether the plan is for a read under the catalog's read restrictions. Fields left {@code null}
 * are not sent, so the catalog's defaults apply.
 *
 * @param snapshotId the snapshot to scan (time travel); not together with an incremental range
 * @param select the full names of the fields to read, or {@code null} for all
 * @param filter the row filter, e.g. {@code RowFilter.greaterThan("id", 5)}, or {@code null} for every row; its
 *     JSON is written once, into the request body, and is the residual of every task the catalog sends none for
 * @param caseSensitive whether field names in {@code select} and {@code filter} match case-sensitively
 * @param useSnapshotSchema whether to use the schema of the scanned snapshot rather than the table's
 * @param startSnapshotId the exclusive start of an incremental scan; needs {@code endSnapshotId}
 * @param endSnapshotId the inclusive end of an incremental scan
 * @param statsFields the fields whose column statistics the catalog should send
 * @param minRowsRequested a hint that this many rows are enough
 * @param maxConcurrency plan-task fetches this plan may have in flight, at most the planner's limit;
 *     {@code null} for the planner's limit
 * @param restricted whether the table was loaded with read restrictions for this caller, which the read of this plan
 *     enforces; not sent: the plan's observation records it (the low-cardinality key {@code restricted}), never what
 *     the restrictions say
 */
public record ScanRequest(
    @Nullable Long snapshotId,
    @Nullable List<String> select,
    @Nullable RowFilter filter,
    @Nullable Boolean caseSensitive,
    @Nullable Boolean useSnapshotSchema,
    @Nullable Long startSnapshotId,
    @Nullable Long endSnapshotId,
    @Nullable List<String> statsFields,
    @Nullable Long minRowsRequested,
    @Nullable Integer maxConcurrency,
    boolean restricted) {

  public ScanRequest {
    if (snapshotId != null && (startSnapshotId != null || endSnapshotId != null)) {
      throw new IllegalArgumentException("snapshotId " + snapshotId
          + " cannot be combined with an incremental range (startSnapshotId/endSnapshotId): choose one");
    }
    if (startSnapshotId != null && endSnapshotId == null) {
      throw new IllegalArgumentException("startSnapshotId " + startSnapshotId + " needs an endSnapshotId");
    }
    if (endSnapshotId != null && startSnapshotId == null) {
      // Apache Iceberg's server answers a bare end with an HTML 500: say what is wrong before sending it
      throw new IllegalArgumentException("endSnapshotId " + endSnapshotId
          + " needs a startSnapshotId: an incremental scan is a range; for one snapshot use snapshotId");
    }
    select = select == null ? null : List.copyOf(select);
    statsFields = statsFields == null ? null : List.copyOf(statsFields);
    if (minRowsRequested != null && minRowsRequested < 0) {
      throw new IllegalArgumentException("minRowsRequested must not be negative: " + minRowsRequested);
    }
    if (maxConcurrency != null && maxConcurrency < 1) {
      throw new IllegalArgumentException("maxConcurrency must be at least 1: " + maxConcurrency);
    }
  }

  /** A request of a read without read restrictions. */
  public ScanRequest(@Nullable Long snapshotId, @Nullable List<String> select, @Nullable RowFilter filter,
      @Nullable Boolean caseSensitive, @Nullable Boolean useSnapshotSchema, @Nullable Long startSnapshotId,
      @Nullable Long endSnapshotId, @Nullable List<String> statsFields, @Nullable Long minRowsRequested,
      @Nullable Integer maxConcurrency) {
    this(snapshotId, select, filter, caseSensitive, useSnapshotSchema, startSnapshotId, endSnapshotId, statsFields,
        minRowsRequested, maxConcurrency, false);
  }

  /** A request for the whole current snapshot with the catalog's defaults. */
  public static ScanRequest all() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Builds a {@link ScanRequest}; {@link #build()} checks it. */
  public static final class Builder {

    private @Nullable Long snapshotId;
    private @Nullable List<String> select;
    private @Nullable RowFilter filter;
    private @Nullable Boolean caseSensitive;
    private @Nullable Boolean useSnapshotSchema;
    private @Nullable Long startSnapshotId;
    private @Nullable Long endSnapshotId;
    private @Nullable List<String> statsFields;
    private @Nullable Long minRowsRequested;
    private @Nullable Integer maxConcurrency;
    private boolean restricted;

    private Builder() {
    }

    public Builder snapshotId(long snapshotId) {
      this.snapshotId = snapshotId;
      return this;
    }

    public Builder select(List<String> select) {
      this.select = select;
      return this;
    }

    public Builder select(String... select) {
      return select(List.of(select));
    }

    /**
     * The row filter, e.g. {@code RowFilter.greaterThan("amount", 100)}, or {@link RowFilter#ofJson} for one given
     * as Iceberg expression JSON; sent as its {@link RowFilter#toJson()}.
     *
     * @throws IllegalArgumentException when the filter is null: leave it unset to scan without a filter
     */
    public Builder filter(RowFilter filter) {
      if (filter == null) {
        throw new IllegalArgumentException("filter is null: leave it unset to scan without a filter");
      }
      this.filter = filter;
      return this;
    }

    public Builder caseSensitive(boolean caseSensitive) {
      this.caseSensitive = caseSensitive;
      return this;
    }

    public Builder useSnapshotSchema(boolean useSnapshotSchema) {
      this.useSnapshotSchema = useSnapshotSchema;
      return this;
    }

    /** An incremental scan of the snapshots after {@code startExclusive} up to {@code endInclusive}. */
    public Builder incremental(long startExclusive, long endInclusive) {
      this.startSnapshotId = startExclusive;
      this.endSnapshotId = endInclusive;
      return this;
    }

    public Builder startSnapshotId(long startSnapshotId) {
      this.startSnapshotId = startSnapshotId;
      return this;
    }

    public Builder endSnapshotId(long endSnapshotId) {
      this.endSnapshotId = endSnapshotId;
      return this;
    }

    public Builder statsFields(List<String> statsFields) {
      this.statsFields = statsFields;
      return this;
    }

    public Builder minRowsRequested(long minRowsRequested) {
      this.minRowsRequested = minRowsRequested;
      return this;
    }

    /** Plan-task fetches this plan may have in flight; at most the planner's {@code maxConcurrency}. */
    public Builder maxConcurrency(int maxConcurrency) {
      this.maxConcurrency = maxConcurrency;
      return this;
    }

    /**
     * Whether the plan is for a read under the catalog's read restrictions, which the caller enforces (default
     * false): recorded by the plan's observation, not sent.
     */
    public Builder restricted(boolean restricted) {
      this.restricted = restricted;
      return this;
    }

    public ScanRequest build() {
      return new ScanRequest(this.snapshotId, this.select, this.filter, this.caseSensitive, this.useSnapshotSchema,
          this.startSnapshotId, this.endSnapshotId, this.statsFields, this.minRowsRequested, this.maxConcurrency,
          this.restricted);
    }
  }
}
