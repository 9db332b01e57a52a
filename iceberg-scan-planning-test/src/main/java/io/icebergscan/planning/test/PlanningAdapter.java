package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Scan;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchPlanIdException;
import org.apache.iceberg.exceptions.NoSuchPlanTaskException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.HTTPRequest;
import org.apache.iceberg.rest.PlanStatus;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.apache.iceberg.rest.requests.PlanTableScanRequest;
import org.apache.iceberg.rest.responses.BaseScanTaskResponse;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.FetchPlanningResultResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;

/**
 * Apache Iceberg's REST adapter with this module's knobs. Without a fan-out, planning is Iceberg's
 * own (a chain of plan-tasks of {@code tasksPerPlanTask} each, optionally asynchronous); with one, the
 * tasks Iceberg plans are served over a tree of handles held by this adapter. Every response is one of
 * Iceberg's response classes, written by Iceberg's serializers.
 */
final class PlanningAdapter extends RESTCatalogAdapter {

  /** Tasks taken from Iceberg's planner per step when collecting a whole plan for a fan-out. */
  private static final int COLLECT_BATCH = 10_000;

  private final Catalog catalog;
  private final ServerSettings settings;
  private final RequestCounter counter;
  private final FanOutPlans fanOutPlans = new FanOutPlans();
  /** Plans left in Iceberg's JVM-wide planning state by this adapter, removed on close. */
  private final Set<String> icebergPlanIds = ConcurrentHashMap.newKeySet();

  PlanningAdapter(Catalog catalog, ServerSettings settings, RequestCounter counter) {
    super(catalog);
    this.catalog = catalog;
    this.settings = settings;
    this.counter = counter;
    setPlanningBehavior(new PlanningBehavior() {
      @Override
      public int numberFileScanTasksPerPlanTask() {
        return settings.tasksPerPlanTask;
      }

      @Override
      public boolean shouldPlanTableScanAsync(Scan<?, FileScanTask, ?> scan) {
        return settings.planAsync;
      }
    });
  }

  // The servlet calls this overload for every request.
  @Override
  protected <T extends RESTResponse> T execute(HTTPRequest request, Class<T> responseType,
      Consumer<ErrorResponse> errorHandler, Consumer<Map<String, String>> responseHeaders) {
    if (this.settings.requireBearerToken && !"v1/oauth/tokens".equals(request.path()) && !hasBearerToken(request)) {
      throw reject(errorHandler, ErrorResponse.builder().responseCode(401).withType("NotAuthorizedException")
          .withMessage("Not authorized: no bearer token"));
    }
    PlanningRoute route = PlanningRoute.of(request.method(), request.path());
    this.counter.started(route);
    try {
      if (route == PlanningRoute.OTHER) {
        return super.execute(request, responseType, errorHandler, responseHeaders);
      }
      if (route == PlanningRoute.CONFIG) {
        return responseType.cast(config(super.execute(request, ConfigResponse.class, errorHandler, responseHeaders)));
      }
      if (!this.settings.planningEndpoints) {
        throw reject(errorHandler, ErrorResponse.builder().responseCode(400).withType("BadRequestException")
            .withMessage(String.format("No route for request: %s %s", request.method(), request.path())));
      }
      if (route == PlanningRoute.CANCEL) {
        String planId = PlanningRoute.planId(request.path());
        if (this.fanOutPlans.owns(planId)) {
          this.fanOutPlans.remove(planId);
          return null;
        }
        this.icebergPlanIds.remove(planId);
        return super.execute(request, responseType, errorHandler, responseHeaders);
      }
      if (route == PlanningRoute.TASKS) {
        delay(this.settings.tasksLatency);
      }
      RESTResponse ours;
      try {
        ours = fanOut(route, request);
      }
      catch (RuntimeException failure) {
        ErrorResponse.Builder error = ErrorResponse.builder();
        configureResponseFromException(failure, error);
        throw reject(errorHandler, error);
      }
      if (ours != null) {
        return responseType.cast(ours);
      }
      T response = super.execute(request, responseType, errorHandler, responseHeaders);
      if (response instanceof PlanTableScanResponse planned && planned.planId() != null) {
        this.icebergPlanIds.add(planned.planId());
      }
      return response;
    }
    finally {
      this.counter.finished(route);
    }
  }

  /**
   * Answers a plan, poll or fetch of a fan-out plan, or returns {@code null} to let Iceberg's adapter
   * answer it (no fan-out configured, or a plan id or handle this adapter did not issue).
   */
  private RESTResponse fanOut(PlanningRoute route, HTTPRequest request) {
    String path = request.path();
    switch (route) {
      case PLAN -> {
        FanOut shape = this.settings.fanOut;
        return shape == null ? null
            : planFanOut(PlanningRoute.table(path), castRequest(PlanTableScanRequest.class, request.body()), shape);
      }
      case POLL -> {
        String planId = PlanningRoute.planId(path);
        if (!this.fanOutPlans.owns(planId)) {
          return null;
        }
        FanOutPlans.Plan plan = this.fanOutPlans.plan(planId);
        if (plan == null || !plan.table().equals(PlanningRoute.table(path))) {
          throw new NoSuchPlanIdException("Unknown plan id: %s", planId);
        }
        if (plan.submittedPolls().getAndUpdate(left -> Math.max(0, left - 1)) > 0) {
          // As the spec's EmptyPlanningResult: a status and nothing else, no plan-id.
          return FetchPlanningResultResponse.builder().withPlanStatus(PlanStatus.SUBMITTED).build();
        }
        return serving(plan.root(),
            FetchPlanningResultResponse.builder(plan.root().specs()).withPlanStatus(PlanStatus.COMPLETED)).build();
      }
      case TASKS -> {
        String handle = castRequest(FetchScanTasksRequest.class, request.body()).planTask();
        if (handle == null || !this.fanOutPlans.owns(handle)) {
          return null;
        }
        FanOutPlans.Node node = this.fanOutPlans.node(handle);
        TableIdentifier table = PlanningRoute.table(path);
        if (node == null || !node.table().equals(table)) {
          throw new NoSuchPlanTaskException("Could not find tasks for plan task %s", handle);
        }
        return serving(node, FetchScanTasksResponse.builder(node.specs())).build();
      }
      default -> throw new IllegalStateException("not a fan-out route: " + route);
    }
  }

  private PlanTableScanResponse planFanOut(TableIdentifier table, PlanTableScanRequest request, FanOut shape) {
    List<FileScanTask> tasks = planWithIceberg(table, request);
    // read once: loading the table parses its metadata, which polls and fetches need not do again
    Map<Integer, PartitionSpec> specs = this.catalog.loadTable(table).specs();
    FanOutPlans.Plan plan = this.fanOutPlans.add(table, specs, tasks, shape, this.settings.submittedPolls);
    PlanTableScanResponse.Builder response = PlanTableScanResponse.builder(specs).withPlanId(plan.planId());
    if (this.settings.planAsync) {
      // Planned already; a poll completes it once the submitted polls are used up.
      return response.withPlanStatus(PlanStatus.SUBMITTED).build();
    }
    return serving(plan.root(), response.withPlanStatus(PlanStatus.COMPLETED)).build();
  }

  /**
   * A response serving a node: its tasks (Iceberg's builder collects their delete files into this
   * response's own {@code delete-files}) and its child handles, left out when there are none.
   */
  private static <B extends BaseScanTaskResponse.Builder<B, ?>> B serving(FanOutPlans.Node node, B response) {
    response.withFileScanTasks(node.tasks());
    return node.children().isEmpty() ? response : response.withPlanTasks(node.children());
  }

  /**
   * Every task Iceberg's own server-side planning returns for the request (same scan configuration:
   * snapshot, incremental range, filter, projection, case sensitivity), in Iceberg's order, by walking
   * its plan-task chain; its JVM-wide state for the plan is removed again right away.
   */
  private List<FileScanTask> planWithIceberg(TableIdentifier table, PlanTableScanRequest request) {
    PlanTableScanResponse first = CatalogHandlers.planTableScan(this.catalog, table, request, scan -> false,
        scan -> COLLECT_BATCH);
    try {
      List<FileScanTask> tasks = new ArrayList<>(first.fileScanTasks());
      List<String> next = first.planTasks() == null ? List.of() : first.planTasks();
      while (!next.isEmpty()) {
        FetchScanTasksResponse more = CatalogHandlers.fetchScanTasks(this.catalog, table,
            new FetchScanTasksRequest(next.get(0)));
        tasks.addAll(more.fileScanTasks());
        next = more.planTasks() == null ? List.of() : more.planTasks();
      }
      return tasks;
    }
    finally {
      CatalogHandlers.cancelPlanTableScan(first.planId());
    }
  }

  /**
   * Iceberg's config with {@code io-impl} among the defaults, and without the planning endpoints when the
   * catalog is told not to support them. The in-memory catalog writes every file through Iceberg's JVM-wide
   * {@link InMemoryFileIO}, which a client's default ({@code ResolvingFileIO}, Hadoop for {@code memory://})
   * cannot open. A default and not a table's {@code config}: Iceberg's {@code RESTSessionCatalog} merges
   * defaults under the client's own properties, so a client can still choose its FileIO, and keeps one FileIO
   * for all tables, where a table-level {@code config} would override the client and cost a FileIO per load.
   */
  private ConfigResponse config(ConfigResponse config) {
    List<Endpoint> endpoints = this.settings.planningEndpoints ? config.endpoints()
        : config.endpoints().stream().filter(endpoint -> !isPlanningEndpoint(endpoint)).toList();
    ConfigResponse.Builder answer = ConfigResponse.builder().withDefaults(config.defaults())
        .withDefault(CatalogProperties.FILE_IO_IMPL, InMemoryFileIO.class.getName())
        .withOverrides(config.overrides()).withEndpoints(endpoints);
    if (config.idempotencyKeyLifetime() != null) {
      answer.withIdempotencyKeyLifetime(config.idempotencyKeyLifetime());
    }
    return answer.build();
  }

  static boolean isPlanningEndpoint(Endpoint endpoint) {
    String path = endpoint.path();
    return path.endsWith("/plan") || path.endsWith("/plan/{plan-id}") || path.endsWith("/tasks");
  }

  private static boolean hasBearerToken(HTTPRequest request) {
    return request.headers().entries("Authorization").stream()
        .anyMatch(header -> header.value().regionMatches(true, 0, "Bearer ", 0, 7) && header.value().length() > 7);
  }

  /** Reports an error the way Iceberg's adapter does: through the servlet's handler, then a RESTException. */
  private static RESTException reject(Consumer<ErrorResponse> errorHandler, ErrorResponse.Builder error) {
    ErrorResponse response = error.build();
    errorHandler.accept(response);
    return new RESTException("Unhandled error: %s", response);
  }

  private static void delay(Duration latency) {
    if (latency.isZero()) {
      return;
    }
    try {
      // Simulated server latency, not test synchronisation: the request thread answers late.
      Thread.sleep(latency.toMillis(), latency.toNanosPart() % 1_000_000);
    }
    catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while delaying a /tasks response", interrupted);
    }
  }

  /**
   * Removes this adapter's plans: its fan-out plans, and the plans it left in Iceberg's JVM-wide state
   * (one by one). Deliberately not {@code super.close()}, which clears that state for every catalog in
   * the JVM.
   */
  @Override
  public void close() {
    this.fanOutPlans.clear();
    this.icebergPlanIds.forEach(CatalogHandlers::cancelPlanTableScan);
    this.icebergPlanIds.clear();
  }
}
