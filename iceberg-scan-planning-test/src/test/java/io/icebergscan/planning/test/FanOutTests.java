package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** A fan-out's handles in walk order, the position of each one's parent, and the ideal time to fetch them. */
class FanOutTests {

  private static final Duration TEN_MILLIS = Duration.ofMillis(10);

  @Test
  void handlesAreInWalkOrderEachNamingThePositionOfTheHandleWhoseResponseHoldsIt() {
    FanOut shape = FanOut.levels(2, 2);
    assertThat(shape.handles()).containsExactly(List.of(0), List.of(1), List.of(0, 0), List.of(0, 1), List.of(1, 0),
        List.of(1, 1));
    assertThat(shape.parents()).containsExactly(-1, -1, 0, 0, 1, 1);
  }

  @Test
  void anUnevenShapeKeepsEachResponsesHandlesTogether() {
    // only the first handle of each level has children: [0] holds [0, 0] and [0, 1], [0, 0] holds [0, 0, 0]
    FanOut shape = FanOut.custom(path -> path.isEmpty() ? 2 : path.equals(List.of(0)) ? 2
        : path.equals(List.of(0, 0)) ? 1 : 0);
    assertThat(shape.parents()).containsExactly(-1, -1, 0, 0, 2);
  }

  @Test
  void aFlatShapeHasOnlyThePlanResponsesHandlesAndMayHaveNone() {
    assertThat(FanOut.flat(3).parents()).containsExactly(-1, -1, -1);
    assertThat(FanOut.flat(0).handles()).isEmpty();
    assertThat(FanOut.flat(0).idealTime(4, TEN_MILLIS)).isZero();
    assertThatIllegalArgumentException().isThrownBy(() -> FanOut.flat(-1)).withMessageContaining("-1");
  }

  @Test
  void withTheDemosSixteenSlotsEveryRoundIsFull() {
    // 104 handles, 16 at a time, and no round waits for a parent: ceil(104 / 16) rounds of 10 ms
    assertThat(DemoTable.FAN_OUT.idealTime(16, TEN_MILLIS)).isEqualTo(Duration.ofMillis(70));
  }

  @Test
  void oneSlotFetchesOneHandleAfterTheOther() {
    assertThat(DemoTable.FAN_OUT.idealTime(1, TEN_MILLIS)).isEqualTo(Duration.ofMillis(1040));
  }

  @Test
  void enoughSlotsLeaveOnlyTheCriticalPath() {
    assertThat(DemoTable.FAN_OUT.idealTime(1000, TEN_MILLIS)).isEqualTo(Duration.ofMillis(30));
  }

  @Test
  void aHandleWaitsForItsParentEvenWithSlotsFree() {
    // 2 roots with 20 children each, 16 slots: the roots take a round although 14 slots stay idle, then 40
    // children take three rounds; a bound of ceil(42 / 16) = 3 rounds would not wait for the parents
    assertThat(FanOut.levels(2, 20).idealTime(16, TEN_MILLIS)).isEqualTo(Duration.ofMillis(40));
  }

  @Test
  void theKnownHandleEarliestInWalkOrderStartsFirst() {
    // two roots; one slot: 0 (10 ms), then 1 (20 ms), then 0's child (5 ms); two slots: the child starts at 10
    long[] latency = { 10, 20, 5 };
    FanOut shape = FanOut.custom(path -> path.isEmpty() ? 2 : path.equals(List.of(0)) ? 1 : 0);
    assertThat(shape.idealNanos(1, handle -> latency[handle])).isEqualTo(35);
    assertThat(shape.idealNanos(2, handle -> latency[handle])).isEqualTo(20);
  }

  @Test
  void aScheduleNeedsASlot() {
    assertThatIllegalArgumentException().isThrownBy(() -> DemoTable.FAN_OUT.idealTime(0, TEN_MILLIS))
        .withMessageContaining("slot");
  }
}
