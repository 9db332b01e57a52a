package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;

/** Reading rows in tests: all of them, then closing what read them. */
public final class TestRows {

  private TestRows() {
  }

  /** Every row, the rows closed after; a failure to close is a test failure. */
  public static List<Record> readAll(CloseableIterable<Record> rows) {
    List<Record> read = new ArrayList<>();
    try (rows) {
      rows.forEach(read::add);
    }
    catch (IOException failure) {
      throw new UncheckedIOException(failure);
    }
    return read;
  }
}
