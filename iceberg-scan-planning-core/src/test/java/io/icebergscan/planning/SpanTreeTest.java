package io.icebergscan.planning;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.model.TableIdentifier;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.contextpropagation.ObservationThreadLocalAccessor;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import reactor.util.context.Context;

import static io.icebergscan.planning.ScriptedCatalog.completed;
import static io.icebergscan.planning.ScriptedCatalog.json;
import static io.icebergscan.planning.ScriptedCatalog.tasks;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a real tracer, a plan's spans form the tree caller → plan → plan-task fetch → HTTP request, checked by
 * parent ids: the plan is its caller's child in {@code plan()} (a thread's current observation) and in
 * {@code planTasks()} (a subscriber's Reactor context), each fetch is the plan's child, and the HTTP client's
 * span of each request is the child of the fetch or plan it was made for.
 */
class SpanTreeTest {

  private final ScriptedCatalog catalog = new ScriptedCatalog();
  private final SimpleTracer tracer = new SimpleTracer();
  private final ObservationRegistry registry = ObservationRegistry.create();
  private final List<ScanPlanner> planners = new ArrayList<>();

  @AfterEach
  void close() {
    this.planners.forEach(ScanPlanner::close);
    this.catalog.close();
  }

  /** A plan three levels deep: the plan's answer holds {@code a}, whose answer holds {@code b}, then {@code c}. */
  private ScanPlanner planner() {
    this.registry.observationConfig().observationHandler(new DefaultTracingObservationHandler(this.tracer));
    this.catalog.plan(json(200, completed("p", List.of("root"), List.of("a"))))
        .task("a", tasks(List.of("a1"), List.of("b")))
        .task("b", tasks(List.of("b1"), List.of("c")))
        .task("c", tasks(List.of("c1"), List.of()));
    ScanPlanner planner = ScanPlanner.builder().uri(this.catalog.uri()).maxConcurrency(2)
        .observationRegistry(this.registry).build();
    this.planners.add(planner);
    return planner;
  }

  @Test
  void aBlockingPlansSpansNestUnderTheCallersCurrentObservation() {
    ScanPlanner planner = planner();
    Observation caller = Observation.start("caller", this.registry);
    caller.scoped(() -> assertThat(planner.plan(TableIdentifier.of("db", "t"), ScanRequest.all()).statistics()
        .walkDepth()).isEqualTo(3));
    caller.stop();

    assertTree();
  }

  @Test
  void aStreamedPlansSpansNestUnderTheSubscribersObservation() {
    ScanPlanner planner = planner();
    Observation caller = Observation.start("caller", this.registry);
    List<String> paths = planner.planTasks(TableIdentifier.of("db", "t"), ScanRequest.all())
        .map(task -> task.dataFile().filePath())
        .contextWrite(Context.of(ObservationThreadLocalAccessor.KEY, caller))
        .collectList().block();
    caller.stop();

    assertThat(paths).hasSize(4);
    assertTree();
  }

  private void assertTree() {
    List<SimpleSpan> spans = new ArrayList<>(this.tracer.getSpans());
    SimpleSpan caller = only(spans, "caller");
    SimpleSpan plan = only(spans, "plan scan");
    List<SimpleSpan> fetches = named(spans, "fetch plan task");
    List<SimpleSpan> requests = named(spans, "http post");
    SimpleSpan discovery = only(spans, "http get");

    assertThat(spans).extracting(SimpleSpan::getTraceId).containsOnly(caller.getTraceId());
    assertThat(plan.getParentId()).isEqualTo(caller.getSpanId());
    assertThat(fetches).hasSize(3).extracting(SimpleSpan::getParentId).containsOnly(plan.getSpanId());
    assertThat(discovery.getParentId()).isEqualTo(plan.getSpanId());
    // the submission is the plan's request; each fetch has exactly one request of its own
    assertThat(requests).hasSize(4).extracting(SimpleSpan::getParentId)
        .containsExactlyInAnyOrder(plan.getSpanId(), fetches.get(0).getSpanId(), fetches.get(1).getSpanId(),
            fetches.get(2).getSpanId());
    assertThat(spans).hasSize(1 + 1 + 3 + 4 + 1);
  }

  private static SimpleSpan only(List<SimpleSpan> spans, String name) {
    List<SimpleSpan> matching = named(spans, name);
    assertThat(matching).as(name).hasSize(1);
    return matching.get(0);
  }

  private static List<SimpleSpan> named(List<SimpleSpan> spans, String name) {
    return spans.stream().filter(span -> name.equals(span.getName())).toList();
  }
}
