package io.icebergscan.planning.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;

import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Table;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.HTTPRequest;
import org.apache.iceberg.rest.HTTPRequest.HTTPMethod;
import org.apache.iceberg.rest.PlanStatus;
import org.apache.iceberg.rest.RESTCatalogAdapter;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.requests.FetchScanTasksRequest;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The second server of {@link AgainstIceberg}: Apache Iceberg's {@code RESTCatalogAdapter} behind its own
 * {@code RESTCatalogServlet} on Jetty, with nothing added but a fixed fan-out of one table. The table's tasks are
 * planned once, by Iceberg, when the server starts and dealt over the tree as {@code EmbeddedIcebergCatalog} deals
 * them (contiguous runs, breadth-first); every {@code POST …/plan} is answered with the same prebuilt response
 * (the same plan id and handles) and every {@code POST …/tasks} with its node's prebuilt response after the
 * latency. So, unlike {@code EmbeddedIcebergCatalog}, a plan costs the server no planning, no table load and no
 * state that stays until the plan is cancelled; what is left per request is Iceberg's servlet: routing, parsing the
 * body, serialising the response. Every other route (config, table loads, cancel) is Iceberg's adapter's.
 */
final class PlainFanOutCatalog implements AutoCloseable {

  private final Server jetty;
  private final String uri;

  private PlainFanOutCatalog(Server jetty, String uri) {
    this.jetty = jetty;
    this.uri = uri;
  }

  /**
   * Serves {@code table} of {@code catalog} on a free port of 127.0.0.1, its plan spread over the tree whose node at
   * a path (empty for the plan response) has {@code children.applyAsInt(path)} child handles.
   */
  static PlainFanOutCatalog start(Catalog catalog, TableIdentifier table, ToIntFunction<List<Integer>> children,
      Duration tasksLatency) throws Exception {
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("plain-fan-out-catalog");
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    ServerConnector connector = new ServerConnector(jetty);
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new Adapter(catalog, table, children, tasksLatency))),
        "/*");
    jetty.setHandler(context);
    jetty.start();
    return new PlainFanOutCatalog(jetty, "http://127.0.0.1:" + connector.getLocalPort());
  }

  String uri() {
    return this.uri;
  }

  @Override
  public void close() throws Exception {
    this.jetty.stop();
  }

  private static final class Adapter extends RESTCatalogAdapter {

    private final String planPath;
    private final String tasksPath;
    private final Duration tasksLatency;
    private final PlanTableScanResponse plan;
    private final Map<String, FetchScanTasksResponse> tasks = new HashMap<>();

    Adapter(Catalog catalog, TableIdentifier table, ToIntFunction<List<Integer>> children, Duration tasksLatency) {
      super(catalog);
      String tablePath = "v1/namespaces/" + table.namespace() + "/tables/" + table.name();
      this.planPath = tablePath + "/plan";
      this.tasksPath = tablePath + "/tasks";
      this.tasksLatency = tasksLatency;
      Table loaded = catalog.loadTable(table);
      Map<Integer, PartitionSpec> specs = loaded.specs();
      List<FileScanTask> planned = new ArrayList<>();
      try (CloseableIterable<FileScanTask> files = loaded.newScan().planFiles()) {
        files.forEach(planned::add);
      }
      catch (java.io.IOException failure) {
        throw new java.io.UncheckedIOException(failure);
      }
      // the tree breadth-first: each node's path, and its children's handles
      List<List<Integer>> paths = new ArrayList<>();
      paths.add(List.of());
      List<List<String>> childHandles = new ArrayList<>();
      for (int i = 0; i < paths.size(); i++) {
        List<Integer> path = paths.get(i);
        List<String> handles = new ArrayList<>();
        for (int child = 0; child < children.applyAsInt(path); child++) {
          List<Integer> childPath = new ArrayList<>(path);
          childPath.add(child);
          paths.add(List.copyOf(childPath));
          handles.add(handle(childPath));
        }
        childHandles.add(handles);
      }
      long n = planned.size();
      long m = paths.size();
      PlanTableScanResponse root = null;
      for (int i = 0; i < paths.size(); i++) {
        List<FileScanTask> share = planned.subList((int) (i * n / m), (int) ((i + 1) * n / m));
        if (i == 0) {
          PlanTableScanResponse.Builder response = PlanTableScanResponse.builder(specs).withPlanId("plain-plan")
              .withPlanStatus(PlanStatus.COMPLETED).withFileScanTasks(share);
          root = (childHandles.get(0).isEmpty() ? response : response.withPlanTasks(childHandles.get(0))).build();
        }
        else {
          FetchScanTasksResponse.Builder response = FetchScanTasksResponse.builder(specs).withFileScanTasks(share);
          this.tasks.put(handle(paths.get(i)), (childHandles.get(i).isEmpty() ? response
              : response.withPlanTasks(childHandles.get(i))).build());
        }
      }
      this.plan = root;
    }

    private static String handle(List<Integer> path) {
      StringBuilder handle = new StringBuilder("plain");
      path.forEach(index -> handle.append('-').append(index));
      return handle.toString();
    }

    @Override
    protected <T extends RESTResponse> T execute(HTTPRequest request, Class<T> responseType,
        Consumer<ErrorResponse> errorHandler, Consumer<Map<String, String>> responseHeaders) {
      if (request.method() == HTTPMethod.POST && request.path().equals(this.planPath)) {
        return responseType.cast(this.plan);
      }
      if (request.method() == HTTPMethod.POST && request.path().equals(this.tasksPath)) {
        String handle = castRequest(FetchScanTasksRequest.class, request.body()).planTask();
        FetchScanTasksResponse answer = this.tasks.get(handle);
        if (answer == null) {
          throw new IllegalStateException("not a handle of this plan: " + handle);
        }
        try {
          // simulated server latency: the request thread answers late
          Thread.sleep(this.tasksLatency.toMillis());
        }
        catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while delaying a /tasks response", interrupted);
        }
        return responseType.cast(answer);
      }
      if (request.method() == HTTPMethod.DELETE && request.path().equals(this.planPath + "/plain-plan")) {
        // nothing is held per plan
        return null;
      }
      return super.execute(request, responseType, errorHandler, responseHeaders);
    }
  }
}
