package io.icebergscan.planning;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

/**
 * The planner's observations: a plan's, under the caller's current observation, and a fetch's, under its plan's.
 * Each is put into the Reactor context of the requests made for it, where WebClient finds the parent of its own
 * {@code http.client.requests} observation, so the spans nest: caller, plan, fetch, HTTP request.
 */
record Instrumentation(ObservationRegistry registry, @Nullable ScanPlanningObservationConvention planConvention,
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
  Observation startPlan(TableIdentifier table, ContextView subscriber) {
    Observation parent = subscriber.getOrDefault(OBSERVATION_KEY, null);
    return ScanPlanningObservationDocumentation.PLAN.observation(this.planConvention, DEFAULT_PLAN_CONVENTION,
            () -> new ScanPlanningObservationContext(table), this.registry)
        .parentObservation(parent != null ? parent : this.registry.getCurrentObservation())
        .start();
  }

  Observation startFetch(TableIdentifier table, String planTask, Observation plan) {
    return ScanPlanningObservationDocumentation.PLAN_TASK_FETCH.observation(this.fetchConvention,
            DEFAULT_FETCH_CONVENTION, () -> new PlanTaskFetchObservationContext(table, planTask), this.registry)
        .parentObservation(plan)
        .start();
  }

  /**
   * Subscribes to {@code source} with {@code observation} in scope. Requests a subscription starts on the
   * subscribing thread (a blocking caller's, say) then see it as the current observation too: a tracer prefers
   * the thread's current span to the parent named in the Reactor context, which would make them the caller's.
   */
  static <T> Flux<T> subscribedWithin(Observation observation, Flux<T> source) {
    if (observation.isNoop()) {
      return source;
    }
    return Flux.from(subscriber -> {
      try (Observation.Scope scope = observation.openScope()) {
        source.subscribe(subscriber);
      }
    });
  }

  /** The Reactor context of requests made for {@code observation}; unchanged without observations. */
  static Context within(Context context, Observation observation) {
    return observation.isNoop() ? context : context.put(OBSERVATION_KEY, observation);
  }

  static void stopPlan(Observation plan, Outcome outcome, @Nullable Throwable failure, long tasks,
      int planTasksFetched, int requestsMade) {
    if (plan.isNoop()) {
      return;
    }
    ((ScanPlanningObservationContext) plan.getContext()).ended(outcome, tasks, planTasksFetched, requestsMade);
    if (failure != null) {
      plan.error(failure);
    }
    plan.stop();
  }

  static void stopFetch(Observation fetch, Outcome outcome, @Nullable Throwable failure) {
    if (fetch.isNoop()) {
      return;
    }
    ((PlanTaskFetchObservationContext) fetch.getContext()).outcome(outcome);
    if (failure != null) {
      fetch.error(failure);
    }
    fetch.stop();
  }
}
