package io.icebergscan.planning.internal.planner;

import java.util.function.Supplier;

import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.DefaultPlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.DefaultScanPlanningObservationConvention;
import io.icebergscan.planning.observation.Outcome;
import io.icebergscan.planning.observation.PlanTaskFetchObservationContext;
import io.icebergscan.planning.observation.PlanTaskFetchObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationContext;
import io.icebergscan.planning.observation.ScanPlanningObservationConvention;
import io.icebergscan.planning.observation.ScanPlanningObservationDocumentation;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The planner's observations: a plan's, under the caller's current observation, and a fetch's, under its plan's.
 * Each is put into the Reactor context of the requests made for it, where WebClient finds the parent of its own
 * {@code http.client.requests} observation, so the spans nest: caller, plan, fetch, HTTP request.
 *
 * <p>An observation handler that throws disturbs neither the plan nor its observations: its failure is its own,
 * as a listener's was. Errors (an {@code OutOfMemoryError}) still go their way.
 */
public record Instrumentation(ObservationRegistry registry, @Nullable ScanPlanningObservationConvention planConvention,
    @Nullable PlanTaskFetchObservationConvention fetchConvention) {

  /**
   * Where a Reactor context holds the current observation: Micrometer's {@code ObservationThreadLocalAccessor.KEY},
   * which WebClient reads; written out so that context-propagation need not be on the classpath.
   */
  static final String OBSERVATION_KEY = "micrometer.observation";

  private static final DefaultScanPlanningObservationConvention DEFAULT_PLAN_CONVENTION =
      new DefaultScanPlanningObservationConvention();
  private static final DefaultPlanTaskFetchObservationConvention DEFAULT_FETCH_CONVENTION =
      new DefaultPlanTaskFetchObservationConvention();

  /**
   * Starts a plan's observation, a child of the subscriber's observation (from its Reactor context, as a WebFlux
   * handler has it) or else of the subscribing thread's current one (as a blocking {@code plan()} caller has it).
   */
  Observation startPlan(TableIdentifier table, boolean restricted, boolean caller, ContextView subscriber) {
    Observation parent = subscriber.getOrDefault(OBSERVATION_KEY, null);
    return started(ScanPlanningObservationDocumentation.PLAN.observation(this.planConvention,
            DEFAULT_PLAN_CONVENTION, () -> new ScanPlanningObservationContext(table, restricted, caller), this.registry)
        .parentObservation(parent != null ? parent : this.registry.getCurrentObservation()));
  }

  Observation startFetch(TableIdentifier table, String planTask, Observation plan) {
    return started(ScanPlanningObservationDocumentation.PLAN_TASK_FETCH.observation(this.fetchConvention,
            DEFAULT_FETCH_CONVENTION, () -> new PlanTaskFetchObservationContext(table, planTask), this.registry)
        .parentObservation(plan));
  }

  private static Observation started(Observation observation) {
    quietly(observation::start);
    return observation;
  }

  /**
   * Runs {@code subscribe} with {@code observation} in scope: a request it starts on this thread (one a stream's
   * consumer asked for, say) then sees it as the current observation too, since a tracer prefers the thread's
   * current span to the parent named in the Reactor context.
   */
  static <T> T withinScope(Observation observation, Supplier<T> subscribe) {
    if (observation.isNoop()) {
      return subscribe.get();
    }
    Observation.Scope[] scope = { Observation.Scope.NOOP };
    quietly(() -> scope[0] = observation.openScope());
    try {
      return subscribe.get();
    }
    finally {
      quietly(scope[0]::close);
    }
  }

  /** The Reactor context of requests made for {@code observation}; unchanged without observations. */
  static Context within(Context context, Observation observation) {
    return observation.isNoop() ? context : context.put(OBSERVATION_KEY, observation);
  }

  /** Ends a plan's observation: called once, as {@code PlanRun} ends. */
  static void stopPlan(Observation plan, Outcome outcome, @Nullable Throwable failure, long tasks,
      int planTasksFetched, int requestsMade) {
    if (plan.isNoop()) {
      return;
    }
    ((ScanPlanningObservationContext) plan.getContext()).ended(outcome, tasks, planTasksFetched, requestsMade);
    stop(plan, failure);
  }

  /** A plan starts over: counted on its context, and an event of its observation (a counter, for meters). */
  static void replanned(Observation plan) {
    if (plan.isNoop()) {
      return;
    }
    ((ScanPlanningObservationContext) plan.getContext()).replanned();
    quietly(() -> plan.event(ScanPlanningObservationDocumentation.Events.REPLANNED));
  }

  /** Ends a fetch's observation the first time it is called: an answer, a failure and an abort can all come. */
  static void stopFetch(Observation fetch, Outcome outcome, @Nullable Throwable failure) {
    if (fetch.isNoop() || !((PlanTaskFetchObservationContext) fetch.getContext()).ended(outcome)) {
      return;
    }
    stop(fetch, failure);
  }

  private static void stop(Observation observation, @Nullable Throwable failure) {
    if (failure != null) {
      quietly(() -> observation.error(failure));
    }
    quietly(observation::stop);
  }

  private static void quietly(Runnable notification) {
    try {
      notification.run();
    }
    catch (RuntimeException handlerFailure) {
      // an observation handler's failure is its own
    }
  }
}
