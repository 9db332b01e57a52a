package io.icebergscan.planning.internal.walk;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.icebergscan.planning.TestTasks;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.FileScanTask;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The walk's decisions, one scenario at a time, on a fetcher the test answers by hand: which handle starts when,
 * what is cancelled, how demand and the window hold fetches back. Each scenario is one where a wrong decision
 * shows: a fetch that should not start, or one the walk needs and never starts, cancels or waits for forever.
 */
class PlanTaskWalkTest {

  /** A fetcher and listener in one: fetches wait until the test answers them; everything is recorded. */
  private static final class Scripted implements PlanTaskWalk.Fetcher, PlanTaskWalk.Listener {

    final Map<String, PlanTaskWalk.Callback> running = new LinkedHashMap<>();
    final List<String> started = new ArrayList<>();
    final List<String> aborted = new ArrayList<>();
    final List<String> emitted = new ArrayList<>();
    ScanPlanningException error;
    boolean completed;
    int maxRunning;

    @Override
    public Runnable fetch(String planTask, PlanTaskWalk.Callback callback) {
      this.started.add(planTask);
      this.running.put(planTask, callback);
      this.maxRunning = Math.max(this.maxRunning, this.running.size());
      return () -> {
        if (this.running.remove(planTask) != null) {
          this.aborted.add(planTask);
        }
      };
    }

    void answer(String handle, List<String> tasks, String... children) {
      PlanTaskWalk.Callback callback = this.running.remove(handle);
      assertThat(callback).as("%s is running", handle).isNotNull();
      callback.succeeded(new ScanTasks(TestTasks.tasks(tasks), List.of(children)));
    }

    void answer(String handle, String... children) {
      answer(handle, List.of(handle + "-file"), children);
    }

    void fail(String handle) {
      PlanTaskWalk.Callback callback = this.running.remove(handle);
      assertThat(callback).as("%s is running", handle).isNotNull();
      callback.failed(new NoSuchPlanTaskException(404, "NoSuchPlanTaskException", "scripted", handle));
    }

    @Override
    public void onTasks(List<FileScanTask> tasks) {
      this.emitted.addAll(TestTasks.paths(tasks));
    }

    @Override
    public void onComplete() {
      this.completed = true;
    }

    @Override
    public void onError(ScanPlanningException failure) {
      this.error = failure;
    }
  }

  private static PlanTaskWalk walk(Scripted script, int limit, int window, List<String> rootTasks,
      String... rootHandles) {
    PlanTaskWalk walk = new PlanTaskWalk(new ScanTasks(TestTasks.tasks(rootTasks), List.of(rootHandles)), script,
        script, new ConcurrencyLimiter(limit), limit, window);
    walk.start();
    return walk;
  }

  /**
   * A handle first seen late (under B) turns up earlier (under A) after a later handle F has failed: its
   * position moves before F's, so it must still be fetched; kept at its old place it would wait behind F forever.
   */
  @Test
  void aHandleThatTurnsUpEarlierThanAFailureIsStillFetched() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 2, Integer.MAX_VALUE, List.of(), "A", "B");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "F", "X");
    assertThat(script.started).containsExactly("A", "B", "F");
    script.fail("F");
    script.answer("A", "X");

    assertThat(script.started).as("X now comes before F").containsExactly("A", "B", "F", "X");
    script.answer("X");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
    assertThat(script.emitted).containsExactly("A-file", "B-file", "X-file");
  }

  /**
   * A running fetch after a failure is not cancelled while an unanswered handle before the failure could still
   * announce it earlier: here A does, and the fetch the walk then needs is still running.
   */
  @Test
  void aFetchAfterAFailureIsNotCancelledWhileAnEarlierHandleCouldStillAnnounceIt() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 3, Integer.MAX_VALUE, List.of(), "A", "B", "C");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "F");
    script.answer("C", "Y");
    assertThat(script.running.keySet()).containsExactly("A", "F", "Y");
    script.fail("F");
    assertThat(script.aborted).as("A may still announce Y before F").isEmpty();
    script.answer("A", "Y");
    script.answer("Y");

    assertThat(script.aborted).isEmpty();
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
    assertThat(script.emitted).containsExactly("A-file", "B-file", "C-file", "Y-file");
  }

  /** The same two levels further down: a handle two levels above the failure keeps it uncertain too. */
  @Test
  void aHandleTwoLevelsAboveAFailureKeepsItsPositionUncertain() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 3, Integer.MAX_VALUE, List.of(), "A", "B");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "B1");
    script.answer("B1", "F", "Y");
    assertThat(script.running.keySet()).containsExactly("A", "F", "Y");
    script.fail("F");
    assertThat(script.aborted).as("A, two levels up, may still announce a handle that announces Y early").isEmpty();
    script.answer("A", "A1");
    script.answer("A1", "Y");

    assertThat(script.running.keySet()).containsExactly("Y");
    script.answer("Y");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
  }

  /** Once nothing unanswered can come before the failure, the fetches after it are cancelled at once. */
  @Test
  void fetchesAfterAFailureWhosePositionIsCertainAreCancelled() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 3, Integer.MAX_VALUE, List.of(), "A", "B", "C");
    walk.request(Long.MAX_VALUE);

    script.answer("A");
    script.fail("B");

    assertThat(script.aborted).containsExactly("C");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("B"));
  }

  /**
   * An unanswered handle on the level of the failure's parent but after that parent can only announce handles
   * after the failure: it does not hold back the cancel of the fetches after the failure, and is itself awaited.
   */
  @Test
  void anUnansweredHandleAfterTheFailuresParentDoesNotHoldBackTheCancel() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 4, Integer.MAX_VALUE, List.of(), "A", "B");
    walk.request(Long.MAX_VALUE);

    script.answer("A", "F", "G");
    assertThat(script.running.keySet()).containsExactly("B", "F", "G");
    script.fail("F");

    assertThat(script.aborted).as("B, after A, cannot announce anything before F").containsExactly("G");
    assertThat(script.error).as("B comes before F and is still awaited").isNull();
    script.answer("B", "G");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
    assertThat(script.emitted).containsExactly("A-file", "B-file");
  }

  /**
   * Two failures arriving in the reverse of walk order: the earlier one becomes the failure that decides, so the
   * handles between them are not started.
   */
  @Test
  void anEarlierFailureArrivingLaterBecomesTheOneThatDecides() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 2, Integer.MAX_VALUE, List.of(), "A", "B", "C", "D");
    walk.request(Long.MAX_VALUE);

    assertThat(script.running.keySet()).containsExactly("A", "B");
    script.fail("B");
    assertThat(script.started).as("C and D come after the failure").containsExactly("A", "B");
    script.fail("A");

    assertThat(script.started).containsExactly("A", "B");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("A"));
  }

  /**
   * A later failure arriving first, then an earlier one, while both positions are uncertain: once certain, the
   * earlier decides what is cancelled, here M, after it but before the later one, while P, before both, runs on.
   */
  @Test
  void theEarliestFailureDecidesWhatIsCancelledWhateverTheOrderTheyArrived() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 5, Integer.MAX_VALUE, List.of(), "A", "B", "C");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "P", "F1", "M");
    script.answer("C", "F2");
    assertThat(script.running.keySet()).containsExactly("A", "P", "F1", "M", "F2");
    script.fail("F2");
    script.fail("F1");
    assertThat(script.aborted).as("A may still announce handles before both").isEmpty();
    script.answer("A");

    assertThat(script.aborted).containsExactly("M");
    assertThat(script.running.keySet()).containsExactly("P");
    script.answer("P");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F1"));
  }

  /** The same when a handle moving earlier makes the walk recompute every position, failures included. */
  @Test
  void theEarliestFailureStillDecidesAfterPositionsAreRecomputed() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 6, Integer.MAX_VALUE, List.of(), "A", "B", "C");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "P", "F1", "M");
    script.answer("C", "F2", "Z");
    assertThat(script.running.keySet()).containsExactly("A", "P", "F1", "M", "F2", "Z");
    script.fail("F2");
    script.fail("F1");
    script.answer("A", "Z");

    assertThat(script.aborted).as("Z moved before F1; M is after it").containsExactly("M");
    script.answer("Z");
    script.answer("P");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F1"));
  }

  /** A handle first seen two levels down turns up one level higher, before a failure: it is fetched. */
  @Test
  void aHandleThatTurnsUpALevelHigherThanAFailureIsStillFetched() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 2, Integer.MAX_VALUE, List.of(), "A", "B");
    walk.request(Long.MAX_VALUE);

    script.answer("B", "B1");
    script.answer("B1", "F", "X");
    assertThat(script.running.keySet()).containsExactly("A", "F");
    script.fail("F");
    script.answer("A", "X");

    assertThat(script.running.keySet()).as("X now comes before F").containsExactly("X");
    script.answer("X");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
    assertThat(script.emitted).containsExactly("A-file", "B-file", "X-file", "B1-file");
  }

  /** A fetch cancelled after a failure frees its room in the window for a handle before the failure. */
  @Test
  void aFetchCancelledAfterAFailureFreesItsRoomInTheWindow() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 4, 4, List.of(), "A", "B");

    script.answer("B", "F", "Y");
    assertThat(script.running.keySet()).containsExactly("A", "F", "Y");
    script.fail("F");
    script.answer("A", "Q");

    assertThat(script.aborted).containsExactly("Y");
    assertThat(script.running.keySet()).as("Y's room goes to Q, though nothing is emitted yet").containsExactly("Q");
    walk.request(Long.MAX_VALUE);
    script.answer("Q");
    assertThat(script.error).isNotNull().satisfies(error -> assertThat(error.planTask()).isEqualTo("F"));
  }

  /** Demand adds up: two requests of one allow exactly two task lists, whatever is already answered. */
  @Test
  void demandAddsUpAcrossRequestsAndHoldsTheRestBack() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 3, Integer.MAX_VALUE, List.of(), "A", "B", "C");

    walk.request(1);
    walk.request(1);
    script.answer("A");
    script.answer("B");
    script.answer("C");

    assertThat(script.emitted).containsExactly("A-file", "B-file");
    walk.request(1);
    assertThat(script.emitted).containsExactly("A-file", "B-file", "C-file");
    assertThat(script.completed).isTrue();
  }

  /** A request of zero or less changes nothing; demand saturates instead of overflowing. */
  @Test
  void aRequestOfNothingIsIgnoredAndHugeDemandSaturates() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 2, Integer.MAX_VALUE, List.of("root"), "A");

    walk.request(0);
    walk.request(-5);
    assertThat(script.emitted).isEmpty();
    walk.request(Long.MAX_VALUE);
    walk.request(Long.MAX_VALUE);
    script.answer("A");
    assertThat(script.emitted).containsExactly("root", "A-file");
    assertThat(script.completed).isTrue();
  }

  /**
   * The window: fetched-but-unemitted answers are bounded, except for the one the cursor waits on, and each
   * answer the cursor takes makes room for the next fetch, until the whole walk is done.
   */
  @Test
  void theWindowBoundsFetchesAheadOfTheConsumerAndEachEmissionMakesRoom() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 4, 2, List.of("root"), "A", "B", "C", "D", "E");

    assertThat(script.started).containsExactly("A", "B");
    script.answer("B");
    script.answer("A");
    assertThat(script.started).as("nothing emitted yet: the window is full").containsExactly("A", "B");
    walk.request(1);
    assertThat(script.started).as("the root emitted, A and B still held").containsExactly("A", "B");
    walk.request(1);
    assertThat(script.started).as("A emitted: room for one more").containsExactly("A", "B", "C");
    for (int emitted = 1; !script.completed && emitted < 20; emitted++) {
      walk.request(1);
      script.running.keySet().stream().toList().forEach(script::answer);
    }

    assertThat(script.completed).isTrue();
    assertThat(script.emitted).containsExactly("root", "A-file", "B-file", "C-file", "D-file", "E-file");
    assertThat(script.maxRunning).isLessThanOrEqualTo(2);
  }

  /** Cancelling the walk aborts every fetch still running and signals nothing. */
  @Test
  void cancellingAbortsEveryRunningFetch() {
    Scripted script = new Scripted();
    PlanTaskWalk walk = walk(script, 3, Integer.MAX_VALUE, List.of(), "A", "B", "C");

    walk.cancel();

    assertThat(script.aborted).containsExactlyInAnyOrder("A", "B", "C");
    assertThat(script.error).isNull();
    assertThat(script.completed).isFalse();
  }
}
