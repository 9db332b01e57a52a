package io.icebergscan.planning.benchmarks;

import io.icebergscan.planning.test.DemoTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanAndReadTest {

  @Test
  void eachBenchmarkPlansOrReadsTheDemoTableOnceAsTheOtherClientDoes() throws Exception {
    PlanAndRead benchmark = new PlanAndRead();
    benchmark.latencyMillis = 1;
    benchmark.workers = 2;
    // DemoTable.MIN_FILES: 4 files in each append, days 1 to 4, every delete of the demo table has its file
    benchmark.files = DemoTable.MIN_FILES;
    benchmark.start();
    try {
      // ids 0 to 63; the vectors delete 0, 2, 5, 57, 58, 59, the equality deletes 13, 15, 61, 63
      long liveIdSum = 63 * 64 / 2 - (0 + 2 + 5 + 57 + 58 + 59) - (13 + 15 + 61 + 63);
      assertThat(DemoTable.liveRows(DemoTable.MIN_FILES)).isEqualTo(54);
      assertThat(benchmark.ours()).isEqualTo(liveIdSum);
      assertThat(benchmark.iceberg()).isEqualTo(liveIdSum);
      assertThat(benchmark.readOurs()).isEqualTo(new PlanAndRead.Read(54, liveIdSum));
      assertThat(benchmark.oursPlanOnly()).isEqualTo(DemoTable.MIN_FILES);
      assertThat(benchmark.icebergPlanOnly()).isEqualTo(DemoTable.MIN_FILES);
    }
    finally {
      benchmark.stop();
    }
  }
}
