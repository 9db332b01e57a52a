package io.icebergscan.planning.benchmarks;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RawSocketClientTest {

  @Test
  void theFlatFloorFetchesEveryHandleOnceAtMostLimitAtATimeAndReadsWhatThePlannerReads() throws Exception {
    PlanTree tree = PlanTree.flat(20, 2_000_000L);
    try (LatencyCatalog catalog = new LatencyCatalog(tree);
        RawSocketClient.FlatFloor floor = new RawSocketClient.FlatFloor(catalog.uri(), 20, 4);
        ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build()) {
      int bytes = floor.plan();
      assertThat(catalog.takeFetches()).isEqualTo(20);
      assertThat(catalog.takeMaxInFlight()).isBetween(1, 4);
      assertThat(floor.plan()).as("the same answers every plan").isEqualTo(bytes);
      assertThat(catalog.takeFetches()).isEqualTo(20);
      assertThat(planner.plan(FlatFanOut.TABLE, ScanRequest.all()).tasks()).hasSize(20);
      assertThat(catalog.takeFetches()).isEqualTo(20);
    }
  }
}
