package io.icebergscan.planning.benchmarks;

import java.util.List;

import io.icebergscan.planning.test.FanOut;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class IdealScheduleTest {

  private static final long MS = 1_000_000L;

  @Test
  void flatIsCeilingOfHandlesOverSlotsTimesLatency() {
    assertThat(IdealSchedule.flat(64, 1, 10 * MS)).isEqualTo(640 * MS);
    assertThat(IdealSchedule.flat(64, 64, 10 * MS)).isEqualTo(10 * MS);
    assertThat(IdealSchedule.flat(256, 128, 10 * MS)).isEqualTo(20 * MS);
    assertThat(IdealSchedule.flat(65, 64, 10 * MS)).isEqualTo(20 * MS);
    assertThat(IdealSchedule.flat(0, 4, 10 * MS)).isZero();
  }

  @Test
  void schedulesOfAFlatLevelAgreeWithTheFormula() {
    for (int c : new int[] { 1, 3, 8, 64, 100 }) {
      PlanTree tree = PlanTree.flat(64, 10 * MS);
      assertThat(IdealSchedule.workConserving(tree, c)).isEqualTo(IdealSchedule.flat(64, c, 10 * MS));
      assertThat(IdealSchedule.tierBarrier(tree, c)).isEqualTo(IdealSchedule.flat(64, c, 10 * MS));
    }
  }

  @Test
  void unlimitedSlotsGiveTheCriticalPath() {
    // 1 -> 8 -> 64, the 2nd handle of level 2 slow (50 ms), the rest 10 ms
    PlanTree tree = PlanTree.of(FanOut.levels(1, 8, 8), i -> (i == 2 ? 50 : 10) * MS);
    assertThat(tree.size()).isEqualTo(73);
    assertThat(IdealSchedule.criticalPath(tree)).isEqualTo(70 * MS);
    assertThat(IdealSchedule.workConserving(tree, 1000)).isEqualTo(70 * MS);
    // with a barrier the fast subtrees wait for the slow handle: 10 + 50 + 10
    assertThat(IdealSchedule.tierBarrier(tree, 1000)).isEqualTo(70 * MS);
  }

  @Test
  void aBarrierMakesFastSubtreesWaitForTheSlowestHandleOfTheLevel() {
    // root -> {a (10 ms, 4 children of 30 ms), b (40 ms, leaf)}
    long[] latency = { 10 * MS, 10 * MS, 40 * MS, 30 * MS, 30 * MS, 30 * MS, 30 * MS };
    PlanTree tree = PlanTree.of(FanOut.custom(path -> path.isEmpty() ? 1 : path.equals(List.of(0)) ? 2
        : path.equals(List.of(0, 0)) ? 4 : 0), i -> latency[i]);
    assertThat(tree.shape().parents()).containsExactly(-1, 0, 0, 1, 1, 1, 1);
    // work-conserving, 4 slots: root 0-10; a 10-20, b 10-50; a's children start at 20 on 3 free
    // slots (20-50), the 4th at 50 (50-80)
    assertThat(IdealSchedule.workConserving(tree, 4)).isEqualTo(80 * MS);
    // barrier: 10 + 40 + 30
    assertThat(IdealSchedule.tierBarrier(tree, 4)).isEqualTo(80 * MS);
    // with 5 slots the greedy schedule finishes at 50, the barrier still at 80
    assertThat(IdealSchedule.workConserving(tree, 5)).isEqualTo(50 * MS);
    assertThat(IdealSchedule.tierBarrier(tree, 5)).isEqualTo(80 * MS);
  }

  @Test
  void greedyStartsTheEarliestWalkPositionFirst() {
    // two roots; one slot: walk order decides, 0 (10 ms) then 1 (20 ms), then 0's child (5 ms)
    long[] latency = { 10 * MS, 20 * MS, 5 * MS };
    PlanTree tree = PlanTree.of(FanOut.custom(path -> path.isEmpty() ? 2 : path.equals(List.of(0)) ? 1 : 0),
        i -> latency[i]);
    assertThat(tree.shape().parents()).containsExactly(-1, -1, 0);
    assertThat(IdealSchedule.workConserving(tree, 1)).isEqualTo(35 * MS);
    assertThat(IdealSchedule.tierBarrier(tree, 1)).isEqualTo(35 * MS);
    assertThat(IdealSchedule.workConserving(tree, 2)).isEqualTo(20 * MS);
    assertThat(IdealSchedule.tierBarrier(tree, 2)).isEqualTo(25 * MS);
  }

  @Test
  void chainWithSideBranchesIsInWalkOrder() {
    PlanTree tree = PlanTree.chainWithSideBranches(4, 3, 10, 30);
    assertThat(tree.size()).isEqualTo(1 + 3 * 4);
    assertThat(tree.maxDepth()).isEqualTo(4);
    // chain nodes end at 10, 20, 30, 40; the last side leaves hang off the 3rd: 30 + 30
    assertThat(IdealSchedule.criticalPath(tree)).isEqualTo(60 * MS);
    assertThat(IdealSchedule.workConserving(tree, 100)).isEqualTo(60 * MS);
    // barrier: level 1 10, levels 2-4 30 each
    assertThat(IdealSchedule.tierBarrier(tree, 100)).isEqualTo(100 * MS);
  }

  @Test
  void rejectsNoSlots() {
    assertThatIllegalArgumentException().isThrownBy(() -> IdealSchedule.flat(1, 0, MS));
    assertThatIllegalArgumentException().isThrownBy(() -> IdealSchedule.workConserving(PlanTree.flat(1, MS), 0));
  }
}
