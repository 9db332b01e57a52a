package io.icebergscan.examples;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The ideal the example prints beside its plan times, for the demo tree of 8, 4 and 2 handles a level. */
class IdealPlanTimeTests {

  private static final List<Integer> DEMO_TREE = List.of(8, 4, 2);
  private static final Duration TEN_MILLIS = Duration.ofMillis(10);

  @Test
  void withTheDemosSixteenSlotsEveryRoundIsFull() {
    // 104 handles, 16 at a time, and no round waits for a parent: ceil(104 / 16) rounds of 10 ms
    assertThat(IdealPlanTime.of(DEMO_TREE, 16, TEN_MILLIS)).isEqualTo(Duration.ofMillis(70));
  }

  @Test
  void oneSlotFetchesOneHandleAfterTheOther() {
    assertThat(IdealPlanTime.of(DEMO_TREE, 1, TEN_MILLIS)).isEqualTo(Duration.ofMillis(1040));
  }

  @Test
  void enoughSlotsLeaveOnlyTheCriticalPath() {
    assertThat(IdealPlanTime.of(DEMO_TREE, 1000, TEN_MILLIS)).isEqualTo(Duration.ofMillis(30));
  }

  @Test
  void aHandleWaitsForItsParentEvenWithSlotsFree() {
    // 2 roots with 20 children each, 16 slots: the roots take a round although 14 slots stay idle, then 40
    // children take three rounds; a bound of ceil(42 / 16) = 3 rounds would not wait for the parents
    assertThat(IdealPlanTime.of(List.of(2, 20), 16, TEN_MILLIS)).isEqualTo(Duration.ofMillis(40));
  }

  @Test
  void aScheduleNeedsASlot() {
    assertThatIllegalArgumentException().isThrownBy(() -> IdealPlanTime.of(DEMO_TREE, 0, TEN_MILLIS));
  }
}
