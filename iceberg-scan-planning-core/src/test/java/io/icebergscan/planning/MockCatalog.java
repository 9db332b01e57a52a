package io.icebergscan.planning;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import mockwebserver3.MockResponse;
import mockwebserver3.MockWebServer;
import mockwebserver3.RecordedRequest;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A catalog played by a {@link MockWebServer}, and the planners a test builds for it: the one set-up of the tests
 * that talk to a scripted catalog, shared through the core's test jar. Register it per test
 * ({@code @RegisterExtension final MockCatalog catalog = new MockCatalog();}): the server starts before each test,
 * and after it the planners built here are closed, then the server.
 */
public final class MockCatalog implements BeforeEachCallback, AfterEachCallback {

  private final MockWebServer server = new MockWebServer();
  private final List<ScanPlanner> planners = new CopyOnWriteArrayList<>();
  /** Requests taken from the server by {@link #take()} so far. */
  private int taken;

  public MockWebServer server() {
    return this.server;
  }

  /** The catalog's base URI, the server's root. */
  public String uri() {
    return this.server.url("/").toString();
  }

  /** A planner builder for this catalog. */
  public ScanPlanner.Builder builder() {
    return ScanPlanner.builder().uri(uri());
  }

  /** Builds the planner, to be closed after the test. */
  public ScanPlanner planner(ScanPlanner.Builder builder) {
    ScanPlanner planner = builder.build();
    this.planners.add(planner);
    return planner;
  }

  /** Queues a JSON answer; {@code headers} are name-value pairs, sent besides (or in place of) its content type. */
  public void enqueue(int status, String body, String... headers) {
    MockResponse.Builder response = new MockResponse.Builder().code(status)
        .setHeader("Content-Type", "application/json").body(body);
    for (int i = 0; i < headers.length; i += 2) {
      response.setHeader(headers[i], headers[i + 1]);
    }
    this.server.enqueue(response.build());
  }

  /** The next request the server received and no test took yet, waited for up to 10 s. */
  public RecordedRequest take() throws InterruptedException {
    RecordedRequest request = this.server.takeRequest(10, TimeUnit.SECONDS);
    if (request == null) {
      throw new AssertionError("no request reached the catalog in 10 s (" + this.taken + " taken before)");
    }
    this.taken++;
    return request;
  }

  /** Every request the server received and no test took yet, in order. */
  public List<RecordedRequest> requests() throws InterruptedException {
    List<RecordedRequest> requests = new ArrayList<>();
    while (this.taken < this.server.getRequestCount()) {
      requests.add(take());
    }
    return requests;
  }

  @Override
  public void beforeEach(ExtensionContext context) throws IOException {
    this.server.start();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    try {
      for (int i = this.planners.size() - 1; i >= 0; i--) {
        this.planners.get(i).close();
      }
    }
    finally {
      this.planners.clear();
      this.server.close();
    }
  }
}
