package io.icebergscan.planning.iceberg;

import io.icebergscan.planning.exceptions.ScanPlanningException;

/**
 * Rows were asked for after their read was closed before its end: by another thread while this one waited for
 * rows, say, or by the plan being closed. The rows read so far are not all of them, so the read does not end as if
 * they were.
 */
public final class ReadCancelledException extends ScanPlanningException {

  public ReadCancelledException(String message) {
    super(message);
  }
}
