package io.icebergscan.planning.iceberg;

import org.jspecify.annotations.Nullable;

/**
 * Rows cannot be mapped to the type asked for: a component or property without its column, or of a type that cannot
 * hold the column's values, named with both. Thrown when the rows are asked for as that type, before any file is
 * read.
 */
public final class RowMappingException extends IllegalArgumentException {

  public RowMappingException(String message) {
    super(message);
  }

  public RowMappingException(String message, @Nullable Throwable cause) {
    super(message, cause);
  }
}
