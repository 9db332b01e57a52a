package io.icebergscan.planning.metrics;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import io.icebergscan.planning.DefaultScanPlanningObservationConvention;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanPlanningListener;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter.MeterProvider;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer meters of scan planning, fed as a {@link ScanPlanningListener} of the planner:
 * <ul>
 * <li>{@value #FETCHES}: a timer of plan-task fetches, tagged {@code outcome} ({@code SUCCESS} or
 * {@code FAILURE}) and {@code exception} (the failure's simple class name, or {@code none});</li>
 * <li>{@value #FILE_SCAN_TASKS}: a distribution summary of the file scan tasks each finished plan
 * delivered, tagged {@code outcome} ({@code SUCCESS}, {@code FAILURE} or {@code CANCELLED});</li>
 * <li>{@value #REQUESTS_IN_FLIGHT}: a gauge of the planner's plan-task fetches in flight, when a
 * planner is given.</li>
 * </ul>
 * The outcome values are those of the {@code iceberg.scan.planning} observation. Tables are never tags:
 * they are unbounded.
 *
 * <p>The planner is built with its listeners, so the gauge reaches it through a supplier, read when the
 * gauge is read:
 *
 * <pre>{@code
 * AtomicReference<ScanPlanner> planner = new AtomicReference<>();
 * ScanPlanningMetrics metrics = new ScanPlanningMetrics(planner::get);
 * planner.set(ScanPlanner.builder().uri(uri).listener(metrics).build());
 * metrics.bindTo(registry);
 * }</pre>
 *
 * Events that arrive before {@link #bindTo} are not recorded.
 */
public final class ScanPlanningMetrics implements ScanPlanningListener, MeterBinder {

  /** The timer of plan-task fetches. */
  public static final String FETCHES = "iceberg.scan.planning.plan.task.fetches";
  /** The distribution summary of file scan tasks per finished plan. */
  public static final String FILE_SCAN_TASKS = "iceberg.scan.planning.file.scan.tasks";
  /** The gauge of plan-task fetches in flight. */
  public static final String REQUESTS_IN_FLIGHT = "iceberg.scan.planning.requests.in.flight";

  private static final Tags SUCCESS = Tags.of("outcome", "SUCCESS", "exception",
      DefaultScanPlanningObservationConvention.exceptionTag(null));

  /** The meters of one registry the binder was bound to. */
  private record Bound(MeterProvider<Timer> fetches, MeterProvider<DistributionSummary> tasks) {
  }

  private final @Nullable Supplier<? extends @Nullable ScanPlanner> plannerSupplier;
  private volatile @Nullable ScanPlanner planner;
  private final List<Bound> registries = new CopyOnWriteArrayList<>();

  /** Meters of fetches and plans only, without the in-flight gauge. */
  public ScanPlanningMetrics() {
    this.plannerSupplier = null;
  }

  /**
   * Meters of fetches and plans, and the in-flight gauge of the planner that {@code planner} supplies
   * once it exists ({@code null} until then: the gauge reads NaN).
   */
  public ScanPlanningMetrics(Supplier<? extends @Nullable ScanPlanner> planner) {
    this.plannerSupplier = Objects.requireNonNull(planner, "planner");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    MeterProvider<Timer> fetches = Timer.builder(FETCHES)
        .description("Plan-task fetches answered by the catalog, successfully or not")
        .withRegistry(registry);
    MeterProvider<DistributionSummary> tasks = DistributionSummary.builder(FILE_SCAN_TASKS)
        .description("File scan tasks delivered by each finished plan")
        .baseUnit("tasks")
        .withRegistry(registry);
    if (this.plannerSupplier != null) {
      Gauge.builder(REQUESTS_IN_FLIGHT, this, ScanPlanningMetrics::requestsInFlight)
          .description("Plan-task fetches in flight across all plans of the planner")
          .baseUnit("requests")
          .register(registry);
    }
    this.registries.add(new Bound(fetches, tasks));
  }

  @Override
  public void planTaskFetched(TableIdentifier table, Duration duration, @Nullable ScanPlanningException failure) {
    Tags tags = failure == null ? SUCCESS
        : Tags.of("outcome", "FAILURE", "exception", DefaultScanPlanningObservationConvention.exceptionTag(failure));
    for (Bound bound : this.registries) {
      bound.fetches().withTags(tags).record(duration);
    }
  }

  @Override
  public void planFinished(PlanSummary summary) {
    Tags tags = Tags.of("outcome", summary.outcome().name());
    for (Bound bound : this.registries) {
      bound.tasks().withTags(tags).record(summary.tasks());
    }
  }

  private double requestsInFlight() {
    ScanPlanner current = this.planner;
    if (current == null && this.plannerSupplier != null) {
      try {
        current = this.plannerSupplier.get();
      }
      catch (RuntimeException notYet) {
        // e.g. a Spring context that is closing: no planner to read, now or later
        return Double.NaN;
      }
      this.planner = current;
    }
    return current != null ? current.requestsInFlight() : Double.NaN;
  }
}
