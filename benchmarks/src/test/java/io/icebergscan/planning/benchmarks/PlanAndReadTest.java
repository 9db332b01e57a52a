package io.icebergscan.planning.benchmarks;

import java.util.List;

import io.icebergscan.planning.test.DemoTable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class PlanAndReadTest {

  @Test
  void eachBenchmarkReadsTheDemoTableAsTheOtherClientDoes() throws Exception {
    PlanAndRead benchmark = benchmark("demo");
    // DemoTable.MIN_FILES: 4 files in each append, days 1 to 4, every delete of the demo table has its file
    benchmark.files = DemoTable.MIN_FILES;
    benchmark.start();
    try {
      // ids 0 to 63; the vectors delete 0, 2, 5, 57, 58, 59, the equality deletes 13, 15, 61, 63
      long liveIdSum = 63 * 64 / 2 - (0 + 2 + 5 + 57 + 58 + 59) - (13 + 15 + 61 + 63);
      assertThat(DemoTable.liveRows(DemoTable.MIN_FILES)).isEqualTo(54);
      ClientCost cpu = new ClientCost();
      assertThat(benchmark.ours(cpu)).isEqualTo(liveIdSum);
      assertThat(benchmark.oursPlanned(cpu)).isEqualTo(liveIdSum);
      assertThat(benchmark.iceberg(cpu)).isEqualTo(liveIdSum);
      assertThat(benchmark.oursUnordered(cpu)).isEqualTo(liveIdSum);
      assertThat(benchmark.oursReadOnly(cpu)).isEqualTo(liveIdSum);
      assertThat(benchmark.oursReadOnly(cpu)).as("the plan made once, read again").isEqualTo(liveIdSum);
      assertThat(List.of(benchmark.oursPlanOnly(cpu), benchmark.icebergPlanOnly(cpu)))
          .containsOnly((long) DemoTable.MIN_FILES);
      assertThat(cpu.operations).isEqualTo(8);
      assertThat(cpu.clientCpuNanos).isPositive();
      assertThat(cpu.clientAllocatedBytes).isPositive();
      // the first row of whichever task comes first: the server plans manifests in parallel, in no fixed order
      List<Long> deleted = List.of(0L, 2L, 5L, 57L, 58L, 59L, 13L, 15L, 61L, 63L);
      assertThat(List.of(benchmark.oursFirstRow(), benchmark.icebergFirstRow()))
          .allSatisfy(id -> assertThat(id).isBetween(0L, 63L).isNotIn(deleted));
      assertThat(benchmark.plannedTasks()).isEqualTo(DemoTable.MIN_FILES);
    }
    finally {
      benchmark.stop();
    }
  }

  @Test
  void theParquetTableReadsThroughBothClientsWithStorageLatency() throws Exception {
    PlanAndRead benchmark = benchmark("parquet64");
    benchmark.parquetFiles = 3;
    benchmark.parquetRows = 100;
    benchmark.storageLatencyMillis = 1;
    benchmark.start();
    try {
      long idSum = 299L * 300 / 2;
      ClientCost cpu = new ClientCost();
      assertThat(benchmark.ours(cpu)).isEqualTo(idSum);
      assertThat(benchmark.iceberg(cpu)).isEqualTo(idSum);
      assertThat(benchmark.plannedTasks()).isEqualTo(3);
    }
    finally {
      benchmark.stop();
    }
  }

  private static PlanAndRead benchmark(String table) {
    PlanAndRead benchmark = new PlanAndRead();
    benchmark.table = table;
    benchmark.catalogLatencyMillis = 1;
    benchmark.readConcurrency = 4;
    benchmark.workers = 2;
    return benchmark;
  }
}
