package io.icebergscan.planning.benchmarks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

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
   * Serves {@code table} of {@code catalog} on a free port of 127.0.0.1, its plan spread over {@code tree}: the plan
   * response holds the tree's roots, each handle's response its children, after the handle's latency.
   */
  static PlainFanOutCatalog start(Catalog catalog, TableIdentifier table, PlanTree tree) throws Exception {
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
    context.addServlet(new ServletHolder(new RESTCatalogServlet(new Adapter(catalog, table, tree))), "/*");
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

    private static final String PLAN_ID = "plain-plan";

    /** A handle's prebuilt response and how long the server waits before it answers. */
    private record Answer(long latencyNanos, FetchScanTasksResponse response) {
    }

    private final String planPath;
    private final String tasksPath;
    private final PlanTableScanResponse plan;
    private final Map<String, Answer> tasks = new HashMap<>();

    Adapter(Catalog catalog, TableIdentifier table, PlanTree tree) {
      super(catalog);
      String tablePath = "v1/namespaces/" + table.namespace() + "/tables/" + table.name();
      this.planPath = tablePath + "/plan";
      this.tasksPath = tablePath + "/tasks";
      Table loaded = catalog.loadTable(table);
      Map<Integer, PartitionSpec> specs = loaded.specs();
      List<FileScanTask> planned = new ArrayList<>();
      try (CloseableIterable<FileScanTask> files = loaded.newScan().planFiles()) {
        files.forEach(planned::add);
      }
      catch (IOException failure) {
        throw new UncheckedIOException(failure);
      }
      // the plan response is the first of the m nodes the tasks are dealt over, the tree's handles (in walk order,
      // breadth-first) the others
      long n = planned.size();
      long m = tree.size() + 1L;
      PlanTableScanResponse.Builder root = PlanTableScanResponse.builder(specs).withPlanId(PLAN_ID)
          .withPlanStatus(PlanStatus.COMPLETED).withFileScanTasks(planned.subList(0, (int) (n / m)));
      this.plan = (tree.roots().isEmpty() ? root : root.withPlanTasks(handles(tree.roots()))).build();
      for (int node = 0; node < tree.size(); node++) {
        long dealt = node + 1L;
        FetchScanTasksResponse.Builder response = FetchScanTasksResponse.builder(specs)
            .withFileScanTasks(planned.subList((int) (dealt * n / m), (int) ((dealt + 1) * n / m)));
        List<Integer> children = tree.children(node);
        this.tasks.put(handle(node), new Answer(tree.latencyNanos(node),
            (children.isEmpty() ? response : response.withPlanTasks(handles(children))).build()));
      }
    }

    private static List<String> handles(List<Integer> nodes) {
      return nodes.stream().map(Adapter::handle).toList();
    }

    private static String handle(int node) {
      return "plain-" + node;
    }

    @Override
    protected <T extends RESTResponse> T execute(HTTPRequest request, Class<T> responseType,
        Consumer<ErrorResponse> errorHandler, Consumer<Map<String, String>> responseHeaders) {
      if (request.method() == HTTPMethod.POST && request.path().equals(this.planPath)) {
        return responseType.cast(this.plan);
      }
      if (request.method() == HTTPMethod.POST && request.path().equals(this.tasksPath)) {
        String handle = castRequest(FetchScanTasksRequest.class, request.body()).planTask();
        Answer answer = this.tasks.get(handle);
        if (answer == null) {
          throw new IllegalStateException("not a handle of this plan: " + handle);
        }
        try {
          // simulated server latency: the request thread answers late
          Thread.sleep(answer.latencyNanos() / 1_000_000, (int) (answer.latencyNanos() % 1_000_000));
        }
        catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw new IllegalStateException("interrupted while delaying a /tasks response", interrupted);
        }
        return responseType.cast(answer.response());
      }
      if (request.method() == HTTPMethod.DELETE && request.path().equals(this.planPath + "/" + PLAN_ID)) {
        // nothing is held per plan
        return null;
      }
      return super.execute(request, responseType, errorHandler, responseHeaders);
    }
  }
}
