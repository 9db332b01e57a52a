package io.icebergscan.planning.benchmarks;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class RawSocketClientTest {

  @Test
  void theFlatFloorFetchesEveryHandleOnceLimitAtATimeAndReadsWhatThePlannerReads() throws Exception {
    // 200 ms a fetch: the four threads of a round overlap unless one starts 200 ms late
    PlanTree tree = PlanTree.flat(8, 200_000_000L);
    try (LatencyCatalog catalog = new LatencyCatalog(tree);
        RawSocketClient.FlatFloor floor = new RawSocketClient.FlatFloor(catalog.uri(), 8, 4);
        ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build()) {
      int bytes = floor.plan();
      assertThat(catalog.takeFetches()).isEqualTo(8);
      assertThat(catalog.takeMaxInFlight()).as("limit at a time, never more").isEqualTo(4);
      assertThat(floor.plan()).as("the same answers every plan").isEqualTo(bytes);
      assertThat(catalog.takeFetches()).isEqualTo(8);
      assertThat(planner.plan(FlatFanOut.TABLE, ScanRequest.all()).tasks()).hasSize(8);
      assertThat(catalog.takeFetches()).isEqualTo(8);
    }
  }
}
