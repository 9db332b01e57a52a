package io.icebergscan.planning.autoconfigure;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import io.icebergscan.planning.TestCatalogs;
import io.icebergscan.planning.TestTasks;
import mockwebserver3.Dispatcher;
import mockwebserver3.MockResponse;
import mockwebserver3.RecordedRequest;
import org.jspecify.annotations.Nullable;

/**
 * A catalog that authenticates bearer tokens as principals and owns every plan, and each of its plan tasks, by the
 * principal that submitted it: a request of another principal is a violation (answered 403). Tokens are the ones
 * {@link #accept accepted}, and every {@code catalog-<principal>-<n>} an identity provider issues, until
 * {@link #expire expired} (then 401, as for any other). A plan completes at once with a root task and two plan-tasks,
 * each fetched for a task; every task's file names the principal it was made for. Records each request with its
 * {@code Authorization}.
 */
final class CallerCatalog extends Dispatcher {

  static final String TABLE_PATH = "/v1/namespaces/db/tables/t";

  private static final Pattern ISSUED = Pattern.compile("Bearer catalog-([a-z]+)-[0-9]+");

  /** A request as the catalog saw it: who, with what, for what. */
  record Seen(@Nullable String principal, @Nullable String authorization, String request) {
  }

  final Queue<Seen> seen = new ConcurrentLinkedQueue<>();
  final Queue<String> violations = new ConcurrentLinkedQueue<>();
  private final Map<String, String> accepted = new ConcurrentHashMap<>();
  private final Set<String> expired = ConcurrentHashMap.newKeySet();
  private final Map<String, String> owners = new ConcurrentHashMap<>();
  private final AtomicInteger plans = new AtomicInteger();

  /** Accepts {@code token} as {@code principal}'s. */
  CallerCatalog accept(String token, String principal) {
    this.accepted.put("Bearer " + token, principal);
    return this;
  }

  /** Refuses {@code token} from now on, as a catalog refuses an expired one. */
  void expire(String token) {
    this.expired.add("Bearer " + token);
  }

  /** The {@code Authorization} values of the requests seen, in order. */
  List<String> authorizations() {
    return this.seen.stream().map(seen -> String.valueOf(seen.authorization())).toList();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getUrl().encodedPath();
    String method = request.getMethod();
    String authorization = request.getHeaders().get("Authorization");
    String principal = principal(authorization);
    this.seen.add(new Seen(principal, authorization, method + " " + path));
    if (principal == null) {
      return error(401, "NotAuthorizedException");
    }
    if (path.equals("/v1/config")) {
      return json(200, TestCatalogs.ALL_ENDPOINTS);
    }
    if (path.equals(TABLE_PATH + "/plan") && method.equals("POST")) {
      String planId = principal + "-" + this.plans.incrementAndGet();
      this.owners.put(planId, principal);
      return json(200, "{\"status\":\"completed\",\"plan-id\":\"" + planId + "\"," + tasks(principal, planId,
          List.of(planId + "/a", planId + "/b")).substring(1));
    }
    if (path.equals(TABLE_PATH + "/tasks")) {
      String body = request.getBody().utf8();
      String handle = body.substring(body.indexOf(":\"") + 2, body.lastIndexOf('"'));
      String planId = handle.substring(0, handle.indexOf('/'));
      String owner = this.owners.get(planId);
      if (!principal.equals(owner)) {
        this.violations.add(principal + " fetched " + handle + " of " + owner + "'s plan");
        return error(403, "ForbiddenException");
      }
      return json(200, tasks(principal, handle, List.of()));
    }
    return error(404, "NoSuchTableException");
  }

  private @Nullable String principal(@Nullable String authorization) {
    if (authorization == null || this.expired.contains(authorization)) {
      return null;
    }
    Matcher issued = ISSUED.matcher(authorization);
    return issued.matches() ? issued.group(1) : this.accepted.get(authorization);
  }

  private static String tasks(String principal, String name, List<String> planTasks) {
    return "{\"file-scan-tasks\":[" + TestTasks.json("s3://b/" + principal + "-" + name.replace('/', '-')
        + ".parquet") + "],\"plan-tasks\":[" + planTasks.stream().map(handle -> "\"" + handle + "\"")
        .collect(Collectors.joining(",")) + "]}";
  }

  private static MockResponse json(int status, String body) {
    return new MockResponse.Builder().code(status).setHeader("Content-Type", "application/json").body(body).build();
  }

  private static MockResponse error(int status, String type) {
    return json(status, "{\"error\":{\"message\":\"" + type + "\",\"type\":\"" + type + "\",\"code\":" + status
        + "}}");
  }
}
