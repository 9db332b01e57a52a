package io.icebergscan.planning.internal.planner;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.exceptions.NoSuchPlanIdException;
import io.icebergscan.planning.exceptions.NoSuchPlanTaskException;
import io.icebergscan.planning.exceptions.PlanCancelledException;
import io.icebergscan.planning.exceptions.PlanFailedException;
import io.icebergscan.planning.exceptions.PlanTimeoutException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.http.CatalogClient;
import io.icebergscan.planning.internal.http.CatalogClient.Handoff;
import io.icebergscan.planning.internal.http.DiscoveredCatalog;
import io.icebergscan.planning.internal.http.PlanRequests;
import io.icebergscan.planning.internal.http.TablePaths;
import io.icebergscan.planning.internal.walk.ConcurrencyLimiter;
import io.icebergscan.planning.internal.walk.PlanTaskWalk;
import io.icebergscan.planning.internal.wire.RequestBodies;
import io.icebergscan.planning.internal.wire.WireTypes.ErrorBody;
import io.icebergscan.planning.internal.wire.WireTypes.PlanTableScanRequest;
import io.icebergscan.planning.internal.wire.WireTypes.PlanningResult;
import io.icebergscan.planning.internal.wire.WireTypes.ScanTasks;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.FileScanTask;
import io.icebergscan.planning.model.StorageCredential;
import io.icebergscan.planning.model.TableIdentifier;
import io.icebergscan.planning.observation.Outcome;
import io.micrometer.observation.Observation;
import org.jspecify.annotations.Nullable;
import reactor.core.Disposable;
import reactor.core.Exceptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.util.context.Context;

/**
 * One plan's life: discovery, submission, polling until the catalog completes it, the plan-task walk,
 * the deadline, and the {@code DELETE} that tells the catalog a plan with an id was abandoned.
 * One instance serves one subscription.
 *
 * <p><b>Re-plans.</b> A catalog that forgets a plan or a handle (they expire, a replica restarts) fails it with
 * {@code NoSuchPlanIdException} or {@code NoSuchPlanTaskException}. With re-plans allowed, the plan then starts
 * over from the submission, as an {@link Attempt} of its own: the abandoned attempt gets its DELETE and its
 * partial result is dropped. A whole plan ({@code plan()}) keeps an attempt's result until the attempt ends, so
 * what it returns is one attempt's; a stream starts over only while it has emitted nothing.
 */
final class PlanRun {

  private final CatalogClient client;
  private final RequestBodies bodies;
  private final ConcurrencyLimiter limiter;
  /** The planner's executor, where a plan's first request is subscribed. */
  private final Scheduler scheduler;
  private final PlannerSettings settings;
  private final TableIdentifier table;
  private final int limit;
  private final int window;
  private final byte[] planRequest;
  private final @Nullable String defaultResidual;
  private final Instrumentation instrumentation;
  private final AtomicInteger requests = new AtomicInteger();
  /** The plans running on this planner: each is ended by {@link #breakOff} when a planner thread fails. */
  private final Set<PlanRun> running;
  private final Sinks.One<ScanPlanningException> brokenOff = Sinks.one();

  /** Whether the caller takes the whole plan at once ({@code plan()}), not a stream of it. */
  private final boolean wholePlan;
  /** The attempt running now, or that ended the plan. */
  private volatile Attempt current = new Attempt();
  private final AtomicInteger replans = new AtomicInteger();
  /** {@link System#nanoTime()} when the plan timeout expires. */
  private volatile long deadline;
  /** Whether the plan is for a read under read restrictions, as its observation records. */
  private final boolean restricted;
  /** The plan's observation, the parent of its fetches'; set when the plan is subscribed. */
  private volatile Observation observation = Observation.NOOP;

  /** @param wholePlan whether the caller takes the whole plan at once: {@code plan()}, not {@code planTasks()} */
  PlanRun(CatalogClient client, RequestBodies bodies, ConcurrencyLimiter limiter, Scheduler scheduler,
      PlannerSettings settings, Instrumentation instrumentation, Set<PlanRun> running, TableIdentifier table,
      ScanRequest request, int window, boolean wholePlan) {
    this.client = client;
    this.wholePlan = wholePlan;
    this.scheduler = scheduler;
    this.running = running;
    this.instrumentation = instrumentation;
    this.bodies = bodies;
    this.limiter = limiter;
    this.settings = settings;
    this.table = table;
    this.restricted = request.restricted();
    Integer requested = request.maxConcurrency();
    if (requested != null && requested > settings.maxConcurrency()) {
      throw new IllegalArgumentException("the request's maxConcurrency " + requested
          + " exceeds the planner's maxConcurrency " + settings.maxConcurrency());
    }
    this.limit = requested != null ? requested : settings.maxConcurrency();
    this.window = Math.max(window, this.limit);
    // the filter's JSON, written once: into the request body, and as the residual of tasks sent without one
    this.defaultResidual = request.filter() != null ? request.filter().toJson() : null;
    this.planRequest = bodies.plan(new PlanTableScanRequest(request.snapshotId(), request.select(),
        this.defaultResidual, request.caseSensitive(), request.useSnapshotSchema(), request.startSnapshotId(),
        request.endSnapshotId(), request.statsFields(), request.minRowsRequested()));
  }

  /** Each non-empty task list of the plan, in walk order. */
  Flux<List<FileScanTask>> responses() {
    // Subscribed on a planner thread, never the caller's: a plan's first request is then not made where the
    // caller's own observation is current, which a tracer would prefer as the request's parent over the plan's,
    // and a plan that fails at once does not fail inside the caller's subscribe call.
    Flux<List<FileScanTask>> planned = attempts(this.settings.replans(), new ArrayList<>())
        .map(this::withDefaultResidual)
        .subscribeOn(this.scheduler, false)
        .onErrorMap(RejectedExecutionException.class,
            refused -> new ScanPlanningException("planning " + this.table + " was refused by the planner's "
                + "executor", null, refused));
    return Flux.deferContextual(subscriber -> {
      if (this.client.isClosed()) {
        // before anything is handed to an executor that is gone
        return Flux.error(new ScanPlanningException("planning " + this.table + " failed: the planner is closed"));
      }
      this.deadline = System.nanoTime() + this.settings.planTimeout().toNanos();
      Observation observation = this.instrumentation.startPlan(this.table, this.restricted, this.client.forCaller(),
          subscriber);
      this.observation = observation;
      AtomicLong delivered = new AtomicLong();
      AtomicReference<Throwable> failure = new AtomicReference<>();
      this.running.add(this);
      return bounded(planned)
          .contextWrite(context -> Instrumentation.within(context, observation))
          .doOnNext(tasks -> delivered.addAndGet(tasks.size()))
          // abandon before the failure or cancel reaches the caller, who may close the planner right away
          .doOnError(error -> {
            failure.set(error);
            this.current.abandon();
          })
          .doOnCancel(() -> this.current.abandon())
          // end the observation before the outcome reaches the caller, so a plan never outlives its parent, and
          // after a cancel has gone upstream, so that the fetches it aborted end before their plan
          .doOnTerminate(() -> ended(observation, failure.get() == null ? Outcome.SUCCESS : Outcome.FAILURE,
              failure.get(), delivered.get()))
          .doFinally(signal -> {
            if (signal == SignalType.CANCEL) {
              ended(observation, Outcome.CANCELLED, null, delivered.get());
            }
          });
    });
  }

  /** As the spec says, a task the catalog sent without a residual filter has the request's filter as its residual. */
  private List<FileScanTask> withDefaultResidual(List<FileScanTask> tasks) {
    String residual = this.defaultResidual;
    if (residual == null || tasks.stream().allMatch(task -> task.residualFilter() != null)) {
      return tasks;
    }
    return tasks.stream()
        .map(task -> task.residualFilter() != null ? task : new FileScanTask(task.dataFile(), task.deleteFiles(),
            residual))
        .toList();
  }

  private void ended(Observation observation, Outcome outcome, @Nullable Throwable failure, long delivered) {
    if (this.running.remove(this)) {
      Instrumentation.stopPlan(observation, outcome, failure, delivered, planTasksFetched(), requestsMade());
    }
  }

  /**
   * The plan's attempts, the first and those after the catalog forgot the one before: {@code replansLeft} more,
   * and the failures that ended the earlier ones, to be suppressed by the last if re-plans run out.
   */
  private Flux<List<FileScanTask>> attempts(int replansLeft, List<ScanPlanningException> forgotten) {
    return Flux.defer(() -> {
      Attempt attempt = new Attempt();
      this.current = attempt;
      Flux<List<FileScanTask>> tasks = this.client.catalog().flatMapMany(attempt::run);
      if (replansLeft > 0) {
        tasks = this.wholePlan
            // one attempt's whole result or none of it: a plan that starts over returns nothing of the one before
            ? tasks.collectList().flatMapIterable(lists -> lists)
            : tasks.doOnNext(emitted -> attempt.emitted = true);
      }
      return tasks.onErrorResume(ScanPlanningException.class, failure -> {
        if (replansLeft == 0 || attempt.emitted || !forgotten(failure)) {
          forgotten.forEach(failure::addSuppressed);
          return Flux.error(failure);
        }
        attempt.abandon();
        forgotten.add(failure);
        this.replans.incrementAndGet();
        Instrumentation.replanned(this.observation);
        return attempts(replansLeft - 1, forgotten);
      });
    });
  }

  /** The catalog forgot the plan or one of its handles: the failures a re-plan can help with. */
  private static boolean forgotten(ScanPlanningException failure) {
    return failure instanceof NoSuchPlanIdException || failure instanceof NoSuchPlanTaskException;
  }

  /**
   * A whole plan's walk goes on where its small answers were read, on an event loop; a stream's must not, since its
   * tasks are emitted from there to a subscriber that may block.
   */
  private Handoff handoff() {
    return this.wholePlan ? Handoff.LARGE_ANSWERS : Handoff.ALWAYS;
  }

  @Nullable String planId() {
    return this.current.planId;
  }

  List<StorageCredential> storageCredentials() {
    return this.current.storageCredentials;
  }

  int requestsMade() {
    return this.requests.get();
  }

  /** How often the plan started over because the catalog forgot it. */
  int replans() {
    return this.replans.get();
  }

  /** One request of this plan goes out: a submission, a poll or a fetch, or a retry of one. */
  private void sending() {
    this.requests.incrementAndGet();
  }

  /** The context of this plan's requests, which counts them. */
  private Context counted(Context context) {
    return PlanRequests.counted(context, this::sending);
  }

  int planTasksFetched() {
    PlanTaskWalk walk = this.current.walk;
    return walk == null ? 0 : walk.fetchesStarted();
  }

  int walkDepth() {
    PlanTaskWalk walk = this.current.walk;
    return walk == null ? 0 : walk.depth();
  }

  /** One submission of the plan and what follows it: its polls, its walk, and its DELETE if it is abandoned. */
  private final class Attempt {

    /** Where the plan was submitted: set once, before the submission is sent. */
    private volatile @Nullable Target target;
    private volatile @Nullable String planId;
    /** The catalog ended the plan itself (failed or cancelled): nothing to clean up. */
    private volatile boolean endedByCatalog;
    /** An error racing the caller's cancel runs both hooks: one DELETE all the same. */
    private final AtomicBoolean abandoned = new AtomicBoolean();
    private volatile List<StorageCredential> storageCredentials = List.of();
    private volatile @Nullable PlanTaskWalk walk;
    /** Whether a stream has emitted tasks of this attempt: a stream cannot take them back. */
    private volatile boolean emitted;

    /** Submits the plan, follows it until it is completed, and walks its plan-tasks. */
    Flux<List<FileScanTask>> run(DiscoveredCatalog catalog) {
      catalog.require(Endpoint.SUBMIT_PLAN);
      Target submitted = new Target(catalog, PlanRun.this.client.paths(catalog, PlanRun.this.table.namespace(),
          PlanRun.this.table.name()));
      this.target = submitted;
      return PlanRun.this.client
          .submit(catalog, submitted.paths(), PlanRun.this.planRequest, handoff())
          .contextWrite(PlanRun.this::counted)
          .flatMap(answer -> {
            this.planId = answer.value().planId();
            return settle(submitted, answer.value(), answer.retryAfter(), 0);
          })
          .flatMapMany(root -> walk(submitted, root));
    }

    /** Follows the plan's status until it is completed, polling while it is submitted. */
    private Mono<ScanTasks> settle(Target submitted, PlanningResult result, @Nullable Duration retryAfter,
        int polls) {
      TableIdentifier table = PlanRun.this.table;
      switch (result.status()) {
        case COMPLETED -> {
          this.storageCredentials = result.storageCredentials();
          return Mono.just(result.tasks());
        }
        case FAILED -> {
          this.endedByCatalog = true;
          ErrorBody error = result.error();
          String message = error != null && error.message() != null ? error.message() : "no reason given";
          return Mono.error(new PlanFailedException("the catalog failed to plan " + table + ": " + message,
              error != null ? error.type() : null));
        }
        case CANCELLED -> {
          this.endedByCatalog = true;
          return Mono.error(new PlanCancelledException("the catalog cancelled plan " + this.planId + " of " + table));
        }
        default -> {
          // a submission the catalog did not answer as completed carries the id to poll (PlanResultParser)
          String id = Objects.requireNonNull(this.planId);
          submitted.catalog().require(Endpoint.FETCH_PLAN);
          long left = PlanRun.this.deadline - System.nanoTime();
          if (retryAfter != null && retryAfter.compareTo(Duration.ofNanos(left)) > 0) {
            // A Retry-After past the deadline (even one too long for Mono.delay's nanoseconds): waiting cannot help.
            return Mono.error(new PlanTimeoutException("the catalog asked to poll plan " + id + " of " + table
                + " again in " + retryAfter + ", after the plan timeout of " + PlanRun.this.settings.planTimeout()));
          }
          return Mono.delay(PlanRun.this.settings.pollDelay(polls, retryAfter))
              .then(Mono.defer(() -> PlanRun.this.client.poll(submitted.paths(), id, handoff())
                  .contextWrite(PlanRun.this::counted)))
              .flatMap(answer -> settle(submitted, answer.value(), answer.retryAfter(), polls + 1));
        }
      }
    }

    private Flux<List<FileScanTask>> walk(Target submitted, ScanTasks root) {
      if (!root.planTasks().isEmpty()) {
        submitted.catalog().require(Endpoint.FETCH_PLAN_TASKS);
      }
      PlanTaskWalk.Fetcher fetcher = (planTask, callback) -> fetch(submitted.paths(), planTask, callback);
      return Flux.create(sink -> {
        PlanTaskWalk planTaskWalk = new PlanTaskWalk(root, fetcher, new PlanTaskWalk.Listener() {
          @Override
          public void onTasks(List<FileScanTask> tasks) {
            sink.next(tasks);
          }

          @Override
          public void onComplete() {
            sink.complete();
          }

          @Override
          public void onError(ScanPlanningException failure) {
            sink.error(failure);
          }
        }, PlanRun.this.limiter, PlanRun.this.limit, PlanRun.this.window);
        this.walk = planTaskWalk;
        sink.onCancel(planTaskWalk::cancel);
        sink.onRequest(planTaskWalk::request);
        planTaskWalk.start();
      });
    }

    private Runnable fetch(TablePaths paths, String planTask, PlanTaskWalk.Callback callback) {
      Observation observation = PlanRun.this.instrumentation.startFetch(PlanRun.this.table, planTask,
          PlanRun.this.observation);
      return Instrumentation.withinScope(observation, () -> subscribe(paths, planTask, callback, observation));
    }

    private Runnable subscribe(TablePaths paths, String planTask, PlanTaskWalk.Callback callback,
        Observation observation) {
      Disposable fetch = PlanRun.this.client
          .fetchTasks(paths, planTask, PlanRun.this.bodies.tasks(planTask), handoff(), !PlanRun.this.restricted)
          .doOnCancel(() -> Instrumentation.stopFetch(observation, Outcome.CANCELLED, null))
          .contextWrite(context -> counted(Instrumentation.within(context, observation)))
          .subscribe(tasks -> breakingOffOnFatal(() -> {
            Instrumentation.stopFetch(observation, Outcome.SUCCESS, null);
            callback.succeeded(tasks);
          }), failure -> breakingOffOnFatal(() -> {
            ScanPlanningException planning = failure instanceof ScanPlanningException known
                ? known
                : new ScanPlanningException("fetching a plan task failed: " + failure, planTask, failure);
            Instrumentation.stopFetch(observation, Outcome.FAILURE, planning);
            callback.failed(planning);
          }));
      return fetch::dispose;
    }

    /**
     * A whole plan's fetch of a small answer ends on the Netty event loop that read it, where no planner thread's
     * uncaught-exception handler sees an error Reactor rethrows instead of signalling (an {@code OutOfMemoryError}
     * in an observation handler, say): the running plans are ended here, as that handler ends them on planner
     * threads (and only there: twice, the second could end a plan its caller started after the first).
     */
    private void breakingOffOnFatal(Runnable ending) {
      try {
        ending.run();
      }
      catch (Throwable error) {
        if (Exceptions.isJvmFatal(error) && !RestScanPlanner.onPlannerThread()) {
          List.copyOf(PlanRun.this.running).forEach(run -> run.breakOff(error));
        }
        throw error;
      }
    }

    /** Error, timeout, a re-plan or the caller going away: a plan the catalog still holds gets one DELETE. */
    void abandon() {
      String id = this.planId;
      Target submitted = this.target;
      if (id == null || this.endedByCatalog || submitted == null || !submitted.catalog().supports(Endpoint.CANCEL_PLAN)
          || !this.abandoned.compareAndSet(false, true)) {
        return;
      }
      PlanRun.this.client.cancelInBackground(submitted.paths(), id, PlanRun.this.settings.cancelTimeout());
    }
  }

  /** The catalog a plan was submitted to and its table's paths there. */
  private record Target(DiscoveredCatalog catalog, TablePaths paths) {
  }

  /**
   * Ends the plan with a failure: a planner thread failed with an error Reactor could not signal to
   * the plan it belonged to (an {@code OutOfMemoryError}, say), so no plan running then can be trusted
   * to finish; without this its caller would wait for the plan timeout.
   */
  void breakOff(Throwable cause) {
    this.brokenOff.tryEmitValue(new ScanPlanningException("planning " + this.table + " was ended: a planner thread "
        + "failed with " + cause, null, cause));
  }

  /**
   * The plan timeout bounds the whole plan: submission, polling and walk. The plan also ends when it is
   * {@linkplain #breakOff broken off}. Either way the walk is cancelled, then the failure follows.
   */
  private Flux<List<FileScanTask>> bounded(Flux<List<FileScanTask>> planned) {
    Duration timeout = this.settings.planTimeout();
    Mono<ScanPlanningException> expiry = Mono.delay(timeout)
        .map(tick -> new PlanTimeoutException("planning " + this.table + " did not finish within " + timeout));
    AtomicReference<ScanPlanningException> ended = new AtomicReference<>();
    // an ending that errors would not cancel the walk (takeUntilOther only cancels the main flux on a value)
    return planned
        .takeUntilOther(Mono.firstWithValue(expiry, this.brokenOff.asMono()).doOnNext(ended::set))
        .concatWith(Mono.defer(() -> ended.get() != null ? Mono.error(ended.get()) : Mono.empty()));
  }
}
