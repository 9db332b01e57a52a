package io.icebergscan.planning;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.exceptions.NoSuchPlanIdException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.NoSuchTableException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.ScanPlanningObservationContext;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.error;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Re-plans: a plan the catalog forgot (its id or one of its handles) starts over from the submission, as often as
 * allowed, and the result is always one whole plan. Handle {@code gone} is one the catalog no longer knows.
 */
class ReplanTest {

  private static final TableIdentifier TABLE = TableIdentifier.of("db", "t");

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final List<ScanPlanner> planners = new ArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  private ScanPlanner planner(int replans) {
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(4).maxRetries(0)
        .replans(replans).build();
    this.planners.add(planner);
    return planner;
  }

  /** The first plan answers its own tasks and a handle the catalog then forgets; the second plan is whole. */
  private void forgetsOnce() {
    this.catalog.plan(json(200, completed("first", List.of("first-root"), List.of("first-a", "gone"))))
        .plan(json(200, completed("second", List.of("second-root"), List.of("second-a"))))
        .task("first-a", tasks(List.of("first-a1"), List.of()))
        .task("second-a", tasks(List.of("second-a1", "second-a2"), List.of()));
  }

  @Test
  void aPlanWhoseHandleWasForgottenOnceIsPlannedAgainWholeWithNothingOfTheFirst() {
    forgetsOnce();

    ScanPlan plan = planner(1).plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("second-root", "second-a1", "second-a2");
    assertThat(plan.planId()).isEqualTo("second");
    assertThat(plan.statistics().replans()).isEqualTo(1);
    this.catalog.awaitDeletes(1);
    assertThat(this.catalog.deletes).containsExactly("/v1/namespaces/db/tables/t/plan/first");
    assertThat(this.catalog.submissions).hasSize(2);
  }

  @Test
  void withoutReplansAForgottenHandleFailsAsBefore() {
    forgetsOnce();

    assertThatThrownBy(() -> planner(0).plan(TABLE)).isInstanceOf(NoSuchPlanTaskException.class)
        .satisfies(failure -> assertThat(((ScanPlanningException) failure).planTask()).isEqualTo("gone"));
    assertThat(this.catalog.submissions).hasSize(1);
  }

  @Test
  void aCatalogThatForgetsEveryTimeFailsAfterTheReplansWithTheEarlierFailuresSuppressed() {
    this.catalog.everyPlan(json(200, completed("p", List.of("root"), List.of("gone"))));

    NoSuchPlanTaskException failure = catchThrowableOfType(NoSuchPlanTaskException.class,
        () -> planner(2).plan(TABLE));

    assertThat(failure.planTask()).isEqualTo("gone");
    assertThat(failure.getSuppressed()).hasSize(2).allSatisfy(earlier -> assertThat(earlier)
        .isInstanceOf(NoSuchPlanTaskException.class).isNotSameAs(failure));
    assertThat(this.catalog.submissions).hasSize(3);
    this.catalog.awaitDeletes(3);
  }

  @Test
  void aPlanIdForgottenWhileItIsPolledIsPlannedAgain() {
    this.catalog.plan(json(200, "{\"status\":\"submitted\",\"plan-id\":\"first\"}"))
        .plan(json(200, completed("second", List.of("root"), List.of())))
        .polls(error(404, "NoSuchPlanIdException"));

    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxRetries(0).replans(1)
        .pollInitialDelay(Duration.ofMillis(5)).build();
    this.planners.add(planner);

    ScanPlan plan = planner.plan(TABLE);

    assertThat(TestTasks.paths(plan.tasks())).containsExactly("root");
    assertThat(plan.statistics().replans()).isEqualTo(1);
  }

  @Test
  void aStreamThatHasEmittedNothingStartsOver() {
    this.catalog.plan(json(200, completed("first", List.of(), List.of("gone"))))
        .plan(json(200, completed("second", List.of("second-root"), List.of())));

    List<String> paths = planner(1).planTasks(TABLE, ScanRequest.all()).map(task -> task.dataFile().filePath())
        .collectList().block(Duration.ofSeconds(10));

    assertThat(paths).containsExactly("second-root");
  }

  @Test
  void aStreamFailsAsBeforeOnceItHasEmittedATask() {
    forgetsOnce();
    List<String> emitted = new CopyOnWriteArrayList<>();

    assertThatThrownBy(() -> planner(3).planTasks(TABLE, ScanRequest.all())
        .doOnNext(task -> emitted.add(task.dataFile().filePath())).blockLast(Duration.ofSeconds(10)))
        .isInstanceOf(NoSuchPlanTaskException.class);
    assertThat(emitted).contains("first-root").doesNotContain("second-root");
    assertThat(this.catalog.submissions).hasSize(1);
  }

  @Test
  void aTableThatIsNotThereIsNeverPlannedAgain() {
    this.catalog.everyPlan(error(404, "NoSuchTableException"));

    assertThatThrownBy(() -> planner(3).plan(TABLE)).isInstanceOf(NoSuchTableException.class);
    assertThat(this.catalog.submissions).hasSize(1);
  }

  @Test
  void aFailureOtherThanAForgottenPlanIsNeverPlannedAgain() {
    this.catalog.everyPlan(json(200, completed("p", List.of(), List.of("broken"))))
        .task("broken", error(500, "ServiceFailureException"));

    assertThatThrownBy(() -> planner(3).plan(TABLE)).isInstanceOf(ScanPlanningException.class)
        .isNotInstanceOf(NoSuchPlanTaskException.class).isNotInstanceOf(NoSuchPlanIdException.class);
    assertThat(this.catalog.submissions).hasSize(1);
  }

  @Test
  void aRequestNamingASnapshotIsPlannedAgainAtThatSnapshot() {
    forgetsOnce();

    planner(1).plan(TABLE, ScanRequest.builder().snapshotId(42L).build());

    assertThat(this.catalog.submissions).hasSize(2).allSatisfy(body -> assertThat(body).contains("\"snapshot-id\":42"));
  }

  @Test
  void thePlansObservationRecordsItsReplans() {
    forgetsOnce();
    ObservationRegistry registry = ObservationRegistry.create();
    List<String> events = new CopyOnWriteArrayList<>();
    List<ScanPlanningObservationContext> stopped = new CopyOnWriteArrayList<>();
    registry.observationConfig().observationHandler(new ObservationHandler<ScanPlanningObservationContext>() {
      @Override
      public void onEvent(Observation.Event event, ScanPlanningObservationContext context) {
        events.add(event.getName());
      }

      @Override
      public void onStop(ScanPlanningObservationContext context) {
        stopped.add(context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ScanPlanningObservationContext;
      }
    });
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxRetries(0).replans(1)
        .observationRegistry(registry).build();
    this.planners.add(planner);

    planner.plan(TABLE);

    assertThat(events).containsExactly("replans");
    assertThat(stopped).singleElement().satisfies(context -> {
      assertThat(context.replans()).isEqualTo(1);
      assertThat(context.tasks()).isEqualTo(3);
    });
  }
}
