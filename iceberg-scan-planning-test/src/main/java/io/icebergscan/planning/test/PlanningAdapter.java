package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Scan;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NoSuchPlanIdException;
import org.apache.iceberg.exceptions.NoSuchPlanTaskException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.rest.CatalogHandlers;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.HTTPRequest;
import org.apache.iceberg.rest.HTTPRequest.HTTPMethod;
import org.apache.iceberg.rest.PlanStatus;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.credentials.Credential;
import org.apache.iceberg.rest.credentials.ImmutableCredential;
import org.apache.iceberg.rest.requests.CreateTableRequest;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.apache.iceberg.rest.requests.PlanTableScanRequest;
import org.apache.iceberg.rest.requests.RegisterTableRequest;
import org.apache.iceberg.rest.responses.BaseScanTaskResponse;
import org.apache.iceberg.rest.responses.ConfigResponse;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.FetchPlanningResultResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.ImmutableLoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadTableResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Apache Iceberg's REST adapter with this module's knobs. Without a fan-out, planning is Iceberg's
 * own (a chain of plan-tasks of {@code tasksPerPlanTask} each, optionally asynchronous); with one, the
 * tasks Iceberg plans are served over a tree of handles held by this adapter. With vended credentials,
 * the table loads that ask for them, the completed plans and {@code GET …/credentials} (a route Iceberg's
 * adapter does not have) carry {@code storage-credentials}. Every response is one of Iceberg's response
 * classes, written by Iceberg's serializers; for the loads, creations and registrations of a table with
 * {@linkplain RestrictionPolicy read restrictions}, the adapter chooses them and the servlet adds them to the answer.
 */
final class PlanningAdapter extends RESTCatalogAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedIcebergCatalog.class);

  /** Tasks taken from Iceberg's planner per step when collecting a whole plan for a fan-out. */
  private static final int COLLECT_BATCH = 10_000;
  /** The header a client asks for credentials with ({@code vended-credentials} among its comma-separated values). */
  private static final String ACCESS_DELEGATION = "X-Iceberg-Access-Delegation";

  private final Catalog catalog;
  private final ServerSettings settings;
  private final RequestCounter counter;
  private final FanOutPlans fanOutPlans = new FanOutPlans();
  /** Whose each plan and plan-task is, while the catalog has principals. */
  private final PlanOwners planOwners = new PlanOwners();
  /** Plans left in Iceberg's JVM-wide planning state by this adapter, removed on close. */
  private final Set<String> icebergPlanIds = ConcurrentHashMap.newKeySet();

  /** The FileIO properties {@code /v1/config} gives clients among its defaults: where the catalog's files are. */
  private final Map<String, String> clientFileIoDefaults;

  /**
   * The {@code read-restrictions} of the {@code LoadTableResult} this thread answers, as JSON text, from
   * {@link #execute} until the servlet, which writes the answer on the same thread, {@linkplain
   * #takeReadRestrictions takes} it to add it to the answer: Iceberg's response class has no such member.
   */
  private final ThreadLocal<@Nullable String> readRestrictions = new ThreadLocal<>();

  PlanningAdapter(Catalog catalog, ServerSettings settings, RequestCounter counter,
      Map<String, String> clientFileIoDefaults) {
    super(catalog);
    this.catalog = catalog;
    this.settings = settings;
    this.counter = counter;
    this.clientFileIoDefaults = Map.copyOf(clientFileIoDefaults);
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

  /**
   * The servlet calls this overload for every request. An error is answered the way Iceberg's adapter answers it:
   * through the servlet's handler, which writes the status and the body, then a {@code RESTException} for the servlet,
   * which logs it as an ERROR with its stack trace. A client error (4xx: a table that does not exist, a request
   * refused) is not the catalog's, and a test that asks for one on purpose would log some seventy lines for it: its
   * exception ends here, logged at debug, and the servlet finds the answer written. A server error still goes on.
   */
  @Override
  protected <T extends RESTResponse> @Nullable T execute(HTTPRequest request, Class<T> responseType,
      Consumer<ErrorResponse> errorHandler, Consumer<Map<String, String>> responseHeaders) {
    AnsweredError answered = new AnsweredError(errorHandler);
    try {
      return answer(request, responseType, answered, responseHeaders);
    }
    catch (RESTException unhandled) {
      ErrorResponse error = answered.error;
      if (error == null || error.code() >= 500) {
        throw unhandled;
      }
      // the answer is written and committed: the status the servlet sets for a null answer (204, 304) is ignored
      LOG.debug("{} /{} answered {} {}: {}", request.method(), request.path(), error.code(), error.type(),
          error.message());
      return null;
    }
  }

  private <T extends RESTResponse> @Nullable T answer(HTTPRequest request, Class<T> responseType,
      Consumer<ErrorResponse> errorHandler, Consumer<Map<String, String>> responseHeaders) {
    @Nullable String principal = authenticate(request, errorHandler);
    PlanningRoute route = PlanningRoute.of(request.method(), request.path());
    this.counter.started(route);
    try {
      if (principal != null) {
        refuseWhatIsNotThePrincipals(route, request, principal, errorHandler);
      }
      if (route == PlanningRoute.CREDENTIALS) {
        return responseType.cast(loadCredentials(request, errorHandler));
      }
      if (route == PlanningRoute.METRICS) {
        delay(this.settings.metricsLatency);
        return super.execute(request, responseType, errorHandler, responseHeaders);
      }
      if (route == PlanningRoute.OTHER) {
        T response = withVendedCredentials(request,
            super.execute(request, responseType, errorHandler, responseHeaders), responseType, errorHandler);
        serveReadRestrictions(request, response, principal, errorHandler);
        return response;
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
        this.planOwners.ended(planId);
        if (this.fanOutPlans.owns(planId)) {
          this.fanOutPlans.remove(planId);
          return null;
        }
        this.icebergPlanIds.remove(planId);
        return super.execute(request, responseType, errorHandler, responseHeaders);
      }
      if (route == PlanningRoute.PLAN) {
        refuseStatsOfMaskedColumns(request, principal, errorHandler);
      }
      if (route == PlanningRoute.TASKS && !this.settings.tasksLatency.isZero()) {
        long waiting = System.nanoTime();
        delay(this.settings.tasksLatency);
        this.counter.waited(waiting);
      }
      RESTResponse ours;
      try {
        ours = fanOut(route, request);
      }
      catch (RuntimeException failure) {
        throw reject(errorHandler, errorFor(failure));
      }
      if (ours != null) {
        placePlanTasks(request, principal, ours);
        return responseType.cast(vended(request, ours, errorHandler));
      }
      T response = super.execute(request, responseType, errorHandler, responseHeaders);
      if (response instanceof PlanTableScanResponse planned && planned.planId() != null) {
        this.icebergPlanIds.add(planned.planId());
      }
      placePlanTasks(request, principal, response);
      return withVendedCredentials(request, response, responseType, errorHandler);
    }
    finally {
      this.counter.finished(route);
    }
  }

  /**
   * The request's principal while the catalog has principals, {@code null} while it has none. Refuses with 401
   * {@code NotAuthorizedException}, before the request is counted, one without a bearer token of a principal (none,
   * an unknown one or an expired one) while there are principals, and one without a bearer token while they are
   * {@linkplain ServerSettings#requireBearerToken required}. The token endpoint is open to all.
   */
  private @Nullable String authenticate(HTTPRequest request, Consumer<ErrorResponse> errorHandler) {
    if (TokenEndpoint.PATH.equals(request.path())) {
      return null;
    }
    @Nullable String token = bearerToken(request);
    Principals principals = this.settings.principals;
    if (principals.any()) {
      String principal = principals.authenticate(token);
      if (principal == null) {
        throw reject(errorHandler, notAuthorized(token == null ? "no bearer token"
            : "the bearer token is not a principal's, or it has expired"));
      }
      return principal;
    }
    if (this.settings.requireBearerToken && token == null) {
      throw reject(errorHandler, notAuthorized("no bearer token"));
    }
    return null;
  }

  private static ErrorResponse.Builder notAuthorized(String why) {
    return ErrorResponse.builder().responseCode(401).withType("NotAuthorizedException")
        .withMessage("Not authorized: " + why);
  }

  /**
   * Answers 403 ({@code ForbiddenException}) a request on the path of a table not granted to the principal, and a
   * poll, cancel or credentials request of a plan, or a fetch of a plan-task, that belongs to another principal;
   * the latter are counted as {@linkplain PlanOwners#crossPrincipalRequests cross-principal requests}. A plan or a
   * plan-task this catalog has not placed (unknown, or submitted while it had no principals) is left to the route.
   */
  private void refuseWhatIsNotThePrincipals(PlanningRoute route, HTTPRequest request, String principal,
      Consumer<ErrorResponse> errorHandler) {
    @Nullable TableIdentifier table = PlanningRoute.tableOf(request.path());
    if (table != null && !this.settings.principals.mayUse(principal, table)) {
      throw reject(errorHandler, forbidden("table " + table + " is not granted to principal " + principal));
    }
    @Nullable String planId;
    @Nullable String owner;
    switch (route) {
      case POLL, CANCEL -> {
        planId = PlanningRoute.planId(request.path());
        owner = this.planOwners.ofPlan(planId);
      }
      case CREDENTIALS -> {
        planId = request.queryParameters().get("planId");
        owner = planId == null ? null : this.planOwners.ofPlan(planId);
      }
      case TASKS -> {
        @Nullable String handle = castRequest(FetchScanTasksRequest.class, request.body()).planTask();
        PlanOwners.Owner handleOwner = handle == null ? null : this.planOwners.ofPlanTask(handle);
        planId = handleOwner == null ? null : handleOwner.planId();
        owner = handleOwner == null ? null : handleOwner.principal();
      }
      default -> {
        return;
      }
    }
    if (owner != null && !owner.equals(principal)) {
      this.planOwners.refusedCrossPrincipal();
      throw reject(errorHandler, forbidden("plan " + (planId != null ? planId : "of this plan task")
          + " belongs to another principal"));
    }
  }

  private static ErrorResponse.Builder forbidden(String why) {
    return ErrorResponse.builder().responseCode(403).withType("ForbiddenException").withMessage("Forbidden: " + why);
  }

  /**
   * Records whose the plan-tasks of an answer are, while the catalog has principals: a submission's are the
   * principal's, a poll's the plan's principal's, a fetch's the fetched plan-task's principal's. A poll that answers
   * the plan failed or cancelled ends it.
   */
  private void placePlanTasks(HTTPRequest request, @Nullable String principal, @Nullable RESTResponse answer) {
    if (principal == null) {
      return;
    }
    if (answer instanceof PlanTableScanResponse planned) {
      this.planOwners.submitted(principal, planned.planId(), planned.planTasks());
    }
    else if (answer instanceof FetchPlanningResultResponse polled) {
      String planId = PlanningRoute.planId(request.path());
      if (polled.planStatus() == PlanStatus.FAILED || polled.planStatus() == PlanStatus.CANCELLED) {
        this.planOwners.ended(planId);
      }
      else {
        this.planOwners.polled(planId, polled.planTasks());
      }
    }
    else if (answer instanceof FetchScanTasksResponse fetched) {
      @Nullable String handle = castRequest(FetchScanTasksRequest.class, request.body()).planTask();
      if (handle != null) {
        this.planOwners.fetched(handle, fetched.planTasks());
      }
    }
  }

  /** Whose each plan is, and how many requests of a plan by another principal were refused. */
  PlanOwners planOwners() {
    return this.planOwners;
  }

  /**
   * The {@code read-restrictions} of the answer this thread is writing, as JSON text, or {@code null} when the answer
   * has none; cleared for the thread's next request. The servlet calls this after each load, creation and
   * registration of a table.
   */
  @Nullable String takeReadRestrictions() {
    String restrictions = this.readRestrictions.get();
    this.readRestrictions.remove();
    return restrictions;
  }

  /**
   * When the answer is a table's {@code LoadTableResult} (a load, a creation or a registration) and the catalog has a
   * policy for the table and the caller, that policy for the table's current schema, for the servlet to add: the
   * field ids are those of the metadata in the answer. A policy that cannot be served (a column the schema lacks)
   * fails the request, as Iceberg's adapter answers an {@link IllegalArgumentException}.
   */
  private void serveReadRestrictions(HTTPRequest request, @Nullable RESTResponse response, @Nullable String principal,
      Consumer<ErrorResponse> errorHandler) {
    if (!(response instanceof LoadTableResponse loaded)
        || !PlanningRoute.answersLoadTable(request.method(), request.path())) {
      return;
    }
    RestrictionPolicy policy = this.settings.readRestrictions.servedTo(loadedTable(request), principal,
        bearerToken(request));
    if (policy == null) {
      return;
    }
    try {
      this.readRestrictions.set(policy.toJson(loaded.tableMetadata().schema()));
    }
    catch (RuntimeException failure) {
      throw reject(errorHandler, errorFor(failure));
    }
  }

  /** The table a load, creation or registration answers: in the path of a load, named in the body of the others. */
  private static TableIdentifier loadedTable(HTTPRequest request) {
    String path = request.path();
    if (request.method() == HTTPMethod.GET) {
      return PlanningRoute.table(path);
    }
    String name = request.body() instanceof RegisterTableRequest registration ? registration.name()
        : castRequest(CreateTableRequest.class, request.body()).name();
    return TableIdentifier.of(PlanningRoute.namespace(path), name);
  }

  /**
   * Answers 403, as a catalog that serves restrictions does, a plan whose {@code stats-fields} names a column masked
   * for the caller, or a field nested under one: their bounds and counts are raw values. Names resolve as the plan
   * resolves them (its {@code case-sensitive}); a name the table lacks is left to Iceberg's planning.
   */
  private void refuseStatsOfMaskedColumns(HTTPRequest request, @Nullable String principal,
      Consumer<ErrorResponse> errorHandler) {
    TableIdentifier table = PlanningRoute.table(request.path());
    RestrictionPolicy policy = this.settings.readRestrictions.servedTo(table, principal, bearerToken(request));
    if (policy == null) {
      return;
    }
    PlanTableScanRequest plan = castRequest(PlanTableScanRequest.class, request.body());
    List<String> statsFields = plan.statsFields();
    if (statsFields == null || statsFields.isEmpty()) {
      return;
    }
    Schema schema;
    Map<Integer, String> masked;
    try {
      schema = this.catalog.loadTable(table).schema();
      masked = policy.maskedFields(schema);
    }
    catch (RuntimeException failure) {
      throw reject(errorHandler, errorFor(failure));
    }
    for (String name : statsFields) {
      Types.NestedField field = plan.caseSensitive() ? schema.findField(name) : schema.caseInsensitiveFindField(name);
      @Nullable String column = field == null ? null : masked.get(field.fieldId());
      if (column != null) {
        String what = column.equals(name) ? "the masked column " + name
            : name + ", which is under the masked column " + column;
        throw reject(errorHandler, forbidden("stats-fields names " + what + " for this caller"));
      }
    }
  }

  /**
   * {@code GET …/tables/{table}/credentials} as the servlet hands it over: through {@link #execute}, so it is
   * authenticated and counted as every other request. Iceberg's servlet has no route for it, which is why it
   * does not come through the servlet's own dispatch.
   */
  LoadCredentialsResponse loadCredentials(String path, Map<String, String> queryParameters,
      Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
    // a refusal throws through the error handler: a credentials request is never answered with null
    return Objects.requireNonNull(execute(buildRequest(HTTPMethod.GET, path, queryParameters, headers, null),
        LoadCredentialsResponse.class, errorHandler, ignored -> { }));
  }

  /**
   * The table's current credentials, or, without vending or with the endpoint turned off, Iceberg's answer to a
   * route it does not know. Only the table is checked, as the spec's 404 says: the {@code planId} is handed to the
   * credentials function as sent.
   */
  private LoadCredentialsResponse loadCredentials(HTTPRequest request, Consumer<ErrorResponse> errorHandler) {
    if (!servesCredentials()) {
      throw reject(errorHandler, ErrorResponse.builder().responseCode(400).withType("BadRequestException")
          .withMessage(String.format("No route for request: %s %s", request.method(), request.path())));
    }
    TableIdentifier table = PlanningRoute.table(request.path());
    if (!this.catalog.tableExists(table)) {
      throw reject(errorHandler, errorFor(new NoSuchTableException("Table does not exist: %s", table)));
    }
    String planId = request.queryParameters().get("planId");
    return ImmutableLoadCredentialsResponse.builder().addAllCredentials(credentials(
        new EmbeddedIcebergCatalog.CredentialsRequest(Endpoint.V1_TABLE_CREDENTIALS, table, planId), errorHandler))
        .build();
  }

  /**
   * Iceberg's adapter's response, with vended credentials if it takes some; the same instance otherwise, for the
   * routes without a response class too (the servlet hands those a {@code null} type).
   */
  private <T extends RESTResponse> @Nullable T withVendedCredentials(HTTPRequest request, @Nullable T response,
      Class<T> responseType, Consumer<ErrorResponse> errorHandler) {
    RESTResponse answer = vended(request, response, errorHandler);
    return answer == response ? response : responseType.cast(answer);
  }

  /**
   * The response with the vended credentials added when vending is on and it is a table load that asked for
   * them, or a completed plan (from the submission or a poll); any other response as it is.
   */
  private @Nullable RESTResponse vended(HTTPRequest request, @Nullable RESTResponse response,
      Consumer<ErrorResponse> errorHandler) {
    if (this.settings.vendedCredentials == null) {
      return response;
    }
    String path = request.path();
    if (response instanceof LoadTableResponse loaded && request.method() == HTTPMethod.GET
        && asksForVendedCredentials(request)) {
      LoadTableResponse.Builder answer = LoadTableResponse.builder().withTableMetadata(loaded.tableMetadata())
          .addAllConfig(loaded.config()).addAllCredentials(loaded.credentials())
          .addAllCredentials(credentials(new EmbeddedIcebergCatalog.CredentialsRequest(Endpoint.V1_LOAD_TABLE,
              PlanningRoute.table(path), null), errorHandler));
      if (loaded.remoteSigningConfig() != null) {
        answer.withRemoteSigningConfig(loaded.remoteSigningConfig());
      }
      if (loaded.labels() != null) {
        answer.withLabels(loaded.labels());
      }
      return answer.build();
    }
    if (response instanceof PlanTableScanResponse planned && planned.planStatus() == PlanStatus.COMPLETED) {
      return planned.toBuilder().withCredentials(credentials(new EmbeddedIcebergCatalog.CredentialsRequest(
          Endpoint.V1_SUBMIT_TABLE_SCAN_PLAN, PlanningRoute.table(path), planned.planId()), errorHandler)).build();
    }
    if (response instanceof FetchPlanningResultResponse polled && polled.planStatus() == PlanStatus.COMPLETED) {
      return polled.toBuilder().withCredentials(credentials(new EmbeddedIcebergCatalog.CredentialsRequest(
          Endpoint.V1_FETCH_TABLE_SCAN_PLAN, PlanningRoute.table(path), PlanningRoute.planId(path)), errorHandler))
          .build();
    }
    return response;
  }

  /**
   * What the test's function vends for one answer, as Iceberg's REST type; a function that fails fails the
   * request with the status Iceberg's adapter gives its exception.
   */
  private List<Credential> credentials(EmbeddedIcebergCatalog.CredentialsRequest answering,
      Consumer<ErrorResponse> errorHandler) {
    Function<EmbeddedIcebergCatalog.CredentialsRequest, List<StorageCredential>> vending =
        this.settings.vendedCredentials;
    if (vending == null) {
      // turned off while the request was answered: as if it had been off from the start
      return List.of();
    }
    List<StorageCredential> vended;
    try {
      vended = List.copyOf(vending.apply(answering));
    }
    catch (RuntimeException failure) {
      throw reject(errorHandler, errorFor(failure));
    }
    return vended.stream().map(credential -> (Credential) ImmutableCredential.builder().prefix(credential.prefix())
        .config(credential.config()).build()).toList();
  }

  private boolean servesCredentials() {
    return this.settings.vendedCredentials != null && this.settings.credentialsEndpoint;
  }

  private static boolean asksForVendedCredentials(HTTPRequest request) {
    return request.headers().entries(ACCESS_DELEGATION).stream()
        .flatMap(header -> Arrays.stream(header.value().split(",")))
        .anyMatch(mechanism -> "vended-credentials".equalsIgnoreCase(mechanism.strip()));
  }

  private ErrorResponse.Builder errorFor(RuntimeException failure) {
    ErrorResponse.Builder error = ErrorResponse.builder();
    configureResponseFromException(failure, error);
    return error;
  }

  /**
   * Answers a plan, poll or fetch of a fan-out plan, or returns {@code null} to let Iceberg's adapter
   * answer it (no fan-out configured, or a plan id or handle this adapter did not issue).
   */
  private @Nullable RESTResponse fanOut(PlanningRoute route, HTTPRequest request) {
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
   * Iceberg's config with the client FileIO properties among the defaults ({@code io-impl}, and for object storage
   * its endpoint, path-style access and region), without the planning endpoints when the catalog is told not to
   * support them, and with {@code GET …/credentials} exactly when it serves it. The in-memory catalog writes every
   * file through Iceberg's JVM-wide {@link InMemoryFileIO}, which a client's default ({@code ResolvingFileIO}, Hadoop
   * for {@code memory://}) cannot open; one over an S3 store writes through {@code S3FileIO}, which needs the
   * store's endpoint. Defaults and not a table's {@code config}: Iceberg's {@code RESTSessionCatalog} merges
   * defaults under the client's own properties, so a client can still choose its FileIO, and keeps one FileIO for
   * all tables, where a table-level {@code config} would override the client and cost a FileIO per load.
   */
  private ConfigResponse config(ConfigResponse config) {
    List<Endpoint> endpoints = new ArrayList<>(config.endpoints());
    if (!this.settings.planningEndpoints) {
      endpoints.removeIf(PlanningAdapter::isPlanningEndpoint);
    }
    endpoints.remove(Endpoint.V1_TABLE_CREDENTIALS);
    if (servesCredentials()) {
      endpoints.add(Endpoint.V1_TABLE_CREDENTIALS);
    }
    ConfigResponse.Builder answer = ConfigResponse.builder().withDefaults(config.defaults())
        .withOverrides(config.overrides()).withEndpoints(endpoints);
    // one by one: the builder's bulk method asks its argument whether it holds a null key, which an immutable map
    // answers with an exception
    this.clientFileIoDefaults.forEach(answer::withDefault);
    if (config.idempotencyKeyLifetime() != null) {
      answer.withIdempotencyKeyLifetime(config.idempotencyKeyLifetime());
    }
    return answer.build();
  }

  static boolean isPlanningEndpoint(Endpoint endpoint) {
    String path = endpoint.path();
    return path.endsWith("/plan") || path.endsWith("/plan/{plan-id}") || path.endsWith("/tasks");
  }

  /** The token of the request's first {@code Authorization: Bearer} header, {@code null} without one. */
  private static @Nullable String bearerToken(HTTPRequest request) {
    return request.headers().entries("Authorization").stream().map(header -> header.value())
        .filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7) && value.length() > 7)
        .map(value -> value.substring(7)).findFirst().orElse(null);
  }

  /** The servlet's error handler, which remembers the error it wrote: one per request, on the request's thread. */
  private static final class AnsweredError implements Consumer<ErrorResponse> {

    private final Consumer<ErrorResponse> servlet;
    private @Nullable ErrorResponse error;

    AnsweredError(Consumer<ErrorResponse> servlet) {
      this.servlet = servlet;
    }

    @Override
    public void accept(ErrorResponse answer) {
      this.error = answer;
      this.servlet.accept(answer);
    }
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
      throw new IllegalStateException("interrupted while delaying a response", interrupted);
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
    this.planOwners.clear();
    this.icebergPlanIds.forEach(CatalogHandlers::cancelPlanTableScan);
    this.icebergPlanIds.clear();
  }
}
