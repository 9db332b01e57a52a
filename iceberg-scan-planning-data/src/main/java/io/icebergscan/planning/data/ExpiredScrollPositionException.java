package io.icebergscan.planning.data;

/**
 * A scroll position whose snapshot the table no longer has (expired, or rolled away): its rows cannot be read on
 * consistently. Start again from {@link IcebergScrollPosition#initial()}.
 */
public final class ExpiredScrollPositionException extends IllegalStateException {

  private final String table;
  private final long snapshotId;

  public ExpiredScrollPositionException(String table, long snapshotId) {
    super("the scroll position reads snapshot " + snapshotId + " of " + table + ", which the table no longer has "
        + "(expired?); start again from IcebergScrollPosition.initial()");
    this.table = table;
    this.snapshotId = snapshotId;
  }

  public String table() {
    return this.table;
  }

  public long snapshotId() {
    return this.snapshotId;
  }
}
