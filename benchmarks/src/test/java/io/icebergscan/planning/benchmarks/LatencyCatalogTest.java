package io.icebergscan.planning.benchmarks;

import java.io.BufferedInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Queue;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class LatencyCatalogTest {

  private static final long MS = 1_000_000L;

  @Test
  void answersEveryHandleOfTheTreeNoEarlierThanItsLatency() {
    PlanTree tree = PlanTree.flat(6, 5 * MS);
    try (LatencyCatalog catalog = new LatencyCatalog(tree);
        ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(3).build()) {
      Queue<String> timeline = catalog.recordTimeline();
      ScanPlan plan = planner.plan(FlatFanOut.TABLE, ScanRequest.all());
      assertThat(plan.tasks()).hasSize(6);
      assertThat(catalog.takeFetches()).isEqualTo(6);
      assertThat(catalog.takeMaxInFlight()).isBetween(1, 3);
      long[] received = new long[6];
      long[] answered = new long[6];
      for (String event : timeline) {
        int node = Integer.parseInt(event.substring(2, event.indexOf(' ')));
        long at = Long.parseLong(event.substring(event.indexOf(' ') + 1));
        if (event.startsWith("+")) {
          received[node] = at;
        }
        else {
          answered[node] = at;
        }
      }
      for (int node = 0; node < 6; node++) {
        assertThat(answered[node] - received[node]).isGreaterThanOrEqualTo(5 * MS);
      }
    }
  }

  @Test
  void servesKeepAliveRequestsWithChunkedBodiesAndUnknownHandles() throws Exception {
    try (LatencyCatalog catalog = new LatencyCatalog(PlanTree.flat(2, 0));
        Socket socket = new Socket("127.0.0.1", URI.create(catalog.uri()).getPort())) {
      OutputStream out = socket.getOutputStream();
      InputStream in = new BufferedInputStream(socket.getInputStream());
      String body = "{\"plan-task\":\"h1\"}";
      out.write(("POST /v1/namespaces/bench/tables/flat/tasks HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
          + Integer.toHexString(body.length()) + "\r\n" + body + "\r\n0\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(readResponse(in)).startsWith("HTTP/1.1 200 OK").contains("s3://bench/data/1.parquet");
      String unknown = "{\"plan-task\":\"h9\"}";
      out.write(("POST /v1/namespaces/bench/tables/flat/tasks HTTP/1.1\r\nHost: x\r\nContent-Length: " + unknown.length()
          + "\r\n\r\n" + unknown).getBytes(StandardCharsets.US_ASCII));
      out.flush();
      assertThat(readResponse(in)).startsWith("HTTP/1.1 404 Not Found").contains("NoSuchPlanTaskException");
    }
  }

  /** One response with a Content-Length, as text. */
  private static String readResponse(InputStream in) throws Exception {
    StringBuilder head = new StringBuilder();
    while (!head.toString().endsWith("\r\n\r\n")) {
      int c = in.read();
      assertThat(c).isNotNegative();
      head.append((char) c);
    }
    int at = head.indexOf("Content-Length: ") + "Content-Length: ".length();
    int length = Integer.parseInt(head.substring(at, head.indexOf("\r\n", at)));
    return head + new String(in.readNBytes(length), StandardCharsets.UTF_8);
  }
}
