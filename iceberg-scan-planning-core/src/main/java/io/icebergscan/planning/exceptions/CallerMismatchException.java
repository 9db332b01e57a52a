package io.icebergscan.planning.exceptions;

/**
 * A table loaded as one principal was to be planned or read as another: its metadata and read restrictions are what
 * the catalog answered the principal that loaded it, so they may not be another's. Nothing was sent. Load the table
 * as the caller that reads it.
 */
public class CallerMismatchException extends ScanPlanningException {

  public CallerMismatchException(String table, String call) {
    super(call + " of " + table + " runs as a caller other than the one the table was loaded as; load the table as "
        + "the caller that reads it", null, null);
  }
}
