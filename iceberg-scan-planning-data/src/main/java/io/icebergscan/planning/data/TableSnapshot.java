package io.icebergscan.planning.data;

import java.time.Instant;
import java.util.Objects;

import io.icebergscan.planning.iceberg.IcebergScan;
import org.jspecify.annotations.Nullable;

/**
 * Which snapshot of a table a repository call reads: a query method's parameter of this type (or its
 * {@link AtSnapshot @AtSnapshot}) pins it; without either, the table's current snapshot. Time travel reads with the
 * snapshot's schema, as Apache Iceberg's own client does.
 */
public final class TableSnapshot {

  private static final TableSnapshot CURRENT = new TableSnapshot(null, null, null);

  private final @Nullable Long id;
  private final @Nullable String ref;
  private final @Nullable Instant asOf;

  private TableSnapshot(@Nullable Long id, @Nullable String ref, @Nullable Instant asOf) {
    this.id = id;
    this.ref = ref;
    this.asOf = asOf;
  }

  /** The table's current snapshot. */
  public static TableSnapshot current() {
    return CURRENT;
  }

  /** The snapshot of this id. */
  public static TableSnapshot id(long snapshotId) {
    return new TableSnapshot(snapshotId, null, null);
  }

  /** The snapshot a branch or tag names. */
  public static TableSnapshot ref(String name) {
    Objects.requireNonNull(name, "name");
    return new TableSnapshot(null, name, null);
  }

  /** The snapshot that was current at {@code time}. */
  public static TableSnapshot asOf(Instant time) {
    Objects.requireNonNull(time, "time");
    return new TableSnapshot(null, null, time);
  }

  /** The snapshot id this pins, if it pins one by id. */
  public @Nullable Long snapshotId() {
    return this.id;
  }

  /** The branch or tag this pins, if it pins one. */
  public @Nullable String refName() {
    return this.ref;
  }

  /** The time this pins, if it pins one. */
  public @Nullable Instant asOf() {
    return this.asOf;
  }

  /** Whether this is the table's current snapshot. */
  public boolean isCurrent() {
    return this.id == null && this.ref == null && this.asOf == null;
  }

  /** {@code scan} reading this snapshot. */
  public IcebergScan applyTo(IcebergScan scan) {
    if (this.id != null) {
      return scan.useSnapshot(this.id);
    }
    if (this.ref != null) {
      return scan.useRef(this.ref);
    }
    if (this.asOf != null) {
      return scan.asOfTime(this.asOf.toEpochMilli());
    }
    return scan;
  }

  @Override
  public boolean equals(@Nullable Object other) {
    return other instanceof TableSnapshot that && Objects.equals(this.id, that.id) && Objects.equals(this.ref,
        that.ref) && Objects.equals(this.asOf, that.asOf);
  }

  @Override
  public int hashCode() {
    return Objects.hash(this.id, this.ref, this.asOf);
  }

  @Override
  public String toString() {
    return this.id != null ? "snapshot " + this.id : this.ref != null ? "ref " + this.ref
        : this.asOf != null ? "as of " + this.asOf : "current snapshot";
  }
}
