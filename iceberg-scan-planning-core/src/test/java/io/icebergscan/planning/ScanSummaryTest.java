package io.icebergscan.planning;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.model.DataFile;
import io.icebergscan.planning.model.DeleteFile;
import io.icebergscan.planning.model.FileContent;
import io.icebergscan.planning.model.FileFormat;
import io.icebergscan.planning.model.FileScanTask;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * A plan's figures: a data file several tasks name counts once, by its path, for its bytes and records too; a delete
 * file several tasks share counts once; two deletion vectors in one Puffin file count twice.
 */
class ScanSummaryTest {

  private static final PlanStatistics STATISTICS = new PlanStatistics(0, 0, 1, 0, Duration.ZERO);

  @Test
  void aDataFileInSeveralTasksCountsOnceAndEachDistinctDeleteFileOnce() {
    DeleteFile equality = delete(FileContent.EQUALITY_DELETES, "s3://t/eq.parquet", FileFormat.PARQUET, null);
    DeleteFile firstVector = delete(FileContent.POSITION_DELETES, "s3://t/dv.puffin", FileFormat.PUFFIN, 4L);
    DeleteFile secondVector = delete(FileContent.POSITION_DELETES, "s3://t/dv.puffin", FileFormat.PUFFIN, 90L);
    List<FileScanTask> tasks = List.of(
        new FileScanTask(data("s3://t/a.parquet", 1_000, 10), List.of(equality, firstVector), null),
        new FileScanTask(data("s3://t/a.parquet", 1_000, 10), List.of(equality, firstVector), null),
        new FileScanTask(data("s3://t/b.parquet", 250, 3), List.of(equality, secondVector), null),
        new FileScanTask(data("s3://t/c.avro", 7, 0), List.of(), null));

    assertThat(new ScanPlan("p", tasks, List.of(), STATISTICS).summary())
        .isEqualTo(new ScanSummary(4, 3, 1_257L, 13L, 3));
  }

  @Test
  void anEmptyPlanCountsNothing() {
    assertThat(new ScanPlan(null, List.of(), List.of(), STATISTICS).summary())
        .isEqualTo(new ScanSummary(0, 0, 0L, 0L, 0));
  }

  @Test
  void aNegativeFigureIsRefusedNamingIt() {
    assertThatIllegalArgumentException().isThrownBy(() -> new ScanSummary(1, 1, -1L, null, 0))
        .withMessage("dataFileBytes must not be negative, but was -1");
    assertThatIllegalArgumentException().isThrownBy(() -> new ScanSummary(-1, 0, null, null, 0))
        .withMessage("tasks must not be negative, but was -1");
  }

  private static DataFile data(String path, long bytes, long records) {
    return new DataFile(path, FileFormat.PARQUET, 0, List.of(), bytes, records, null, List.of(), null, null, Map.of(),
        Map.of(), Map.of(), Map.of(), Map.of(), Map.of());
  }

  private static DeleteFile delete(FileContent content, String path, FileFormat format, @Nullable Long offset) {
    return new DeleteFile(content, path, format, 0, List.of(), 500, 2, null, List.of(), null,
        content == FileContent.EQUALITY_DELETES ? List.of(1) : List.of(), null, offset, offset == null ? null : 40L);
  }
}
