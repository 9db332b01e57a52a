package io.icebergscan.planning.model;

import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * One unit of scan work: a data file and the delete files that apply to it.
 *
 * @param dataFile the data file to read
 * @param deleteFiles the delete files to apply, already resolved from the response's references
 * @param residualFilter the filter still to apply to the file's rows, as Iceberg expression JSON; the
 *     request's filter when the catalog sent no residual, {@code null} when neither exists
 */
public record FileScanTask(DataFile dataFile, List<DeleteFile> deleteFiles, @Nullable String residualFilter) {

  public FileScanTask {
    Objects.requireNonNull(dataFile, "dataFile");
    deleteFiles = List.copyOf(deleteFiles);
  }
}
