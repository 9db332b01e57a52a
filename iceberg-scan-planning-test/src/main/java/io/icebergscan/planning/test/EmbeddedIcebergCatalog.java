package io.icebergscan.planning.test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.RESTException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.rest.Endpoint;
import org.apache.iceberg.rest.HTTPRequest.HTTPMethod;
import org.apache.iceberg.rest.RESTCatalogServlet;
import org.apache.iceberg.rest.responses.LoadCredentialsResponse;
import org.apache.iceberg.rest.responses.LoadCredentialsResponseParser;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http2.server.HTTP2CServerConnectionFactory;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;

/**
 * Apache Iceberg's own REST catalog server ({@code RESTCatalogServlet} over {@code RESTCatalogAdapter}
 * over an {@code InMemoryCatalog}) on a free loopback port, for tests of REST clients.
 *
 * <pre>{@code
 * try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(4, 2)).start()) {
 *   EmbeddedTable table = catalog.createTable(TableIdentifier.of("db", "events"), schema);
 *   long snapshot = table.append(table.dataFile("s3://bucket/events/a.parquet", 100).build());
 *   long withRows = table.appendRows(FileFormat.AVRO, List.of(table.newRecord(1L, "a"), table.newRecord(2L, "b")));
 *   ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).build();
 * }
 * }</pre>
 *
 * <p>Tables hold what a test puts in them (see {@link EmbeddedTable}): file entries in manifests only, never
 * written, which is all server-side planning reads; or real Avro and Parquet data and delete files and Puffin
 * deletion vectors, written with Iceberg's own writers, for tests that read what they plan.
 *
 * <p>By default every file is stored in Iceberg's in-memory FileIO ({@code org.apache.iceberg.inmemory.InMemoryFileIO},
 * whose files are JVM-wide, at {@code memory://} locations), so only a client in the same JVM can open them,
 * and only with that FileIO. The catalog says so: its {@code /v1/config} answer carries
 * {@code io-impl = org.apache.iceberg.inmemory.InMemoryFileIO} (Iceberg's {@code CatalogProperties.FILE_IO_IMPL})
 * among its {@code defaults}, which Iceberg's own {@code RESTCatalog} merges under the client's properties
 * and uses to load its FileIO. A client that sets {@code io-impl} itself keeps its own; one that ignores the
 * defaults must be configured with that FileIO to read data.
 *
 * <p>{@link #create(EmbeddedS3)} keeps the warehouse in object storage instead: an {@link EmbeddedS3} store's bucket,
 * written with Iceberg's {@code S3FileIO}. Then {@code /v1/config} advertises the store's endpoint, path-style
 * access and region with {@code io-impl = org.apache.iceberg.aws.s3.S3FileIO}, but no credential: clients read with
 * the ones the catalog {@linkplain #vendedCredentials vends}, which the store checks on every request.
 *
 * <p>The knobs ({@link #tasksPerPlanTask}, {@link #planAsync}, {@link #submittedPolls}, {@link #tasksLatency},
 * {@link #metricsLatency}, {@link #fanOut}, {@link #planningEndpoints}, {@link #requireBearerToken},
 * {@link #vendedCredentials}, {@link #credentialsEndpoint}, {@link #readRestrictions(TableIdentifier,
 * RestrictionPolicy) readRestrictions} per table and per bearer token, {@link #recordRequests}, and the principals:
 * {@link #principal}, {@link #grant(String, TableIdentifier, RestrictionPolicy) grant} with or without a policy,
 * {@link #clientCredentials}, {@link #tokenExchange}, {@link #issuedTokenLifetime}, {@link #clock},
 * {@link #expireToken}) can be set before or after {@link #start()}; a change applies to the requests that arrive
 * after it.
 *
 * <p>With {@linkplain #principal principals} the catalog authenticates: each request's bearer token says whose it is
 * (401 for none or an unknown or expired one), a principal uses only the tables it was {@linkplain #grant(String,
 * TableIdentifier) granted} (403), with read restrictions of its own if so granted, and only the plans it submitted
 * (403, counted by {@link #crossPrincipalRequests()}); its token endpoint issues tokens for OAuth2 client credentials
 * and by token exchange (RFC 8693), counted by {@link #tokenRequests}.
 *
 * <p>Several catalogs can run in one JVM. Iceberg keeps the state of its own (non fan-out) plans in one
 * JVM-wide map whose stock {@code close()} clears it for everyone; this catalog instead removes only the
 * plans it issued when it closes. What it cannot isolate: Iceberg's in-memory FileIO is JVM-wide too, so
 * the metadata, data and delete files of closed catalogs stay in memory (each catalog writes under its own
 * warehouse location), and an asynchronous Iceberg plan still being planned when its catalog closes may leave its
 * plan-tasks behind.
 */
public final class EmbeddedIcebergCatalog implements AutoCloseable {

  private final WarehouseCatalog catalog = new WarehouseCatalog();
  private final ServerSettings settings = new ServerSettings();
  private final RequestCounter counter = new RequestCounter();
  private final RequestRecorder recorder = new RequestRecorder();
  private final TokenEndpoint tokens = new TokenEndpoint(this.settings.principals);
  private final PlanningAdapter adapter;
  private @Nullable Server server;
  private @Nullable String uri;
  private boolean closed;

  /**
   * @param catalogProperties the catalog's own: its {@code warehouse} and the FileIO it writes and reads with
   * @param clientFileIoDefaults what {@code /v1/config} tells clients to read with, among its defaults
   */
  private EmbeddedIcebergCatalog(Map<String, String> catalogProperties, Map<String, String> clientFileIoDefaults) {
    this.catalog.initialize("embedded", catalogProperties);
    this.adapter = new PlanningAdapter(this.catalog, this.settings, this.counter, clientFileIoDefaults);
  }

  /**
   * A catalog that is not started yet, with its files in Iceberg's JVM-wide in-memory FileIO: set knobs, create
   * tables, then {@link #start()}.
   */
  public static EmbeddedIcebergCatalog create() {
    Map<String, String> inMemory = Map.of(CatalogProperties.FILE_IO_IMPL, InMemoryFileIO.class.getName());
    Map<String, String> properties = new LinkedHashMap<>(inMemory);
    properties.put(CatalogProperties.WAREHOUSE_LOCATION,
        "memory://embedded-iceberg-catalog/" + UUID.randomUUID() + "/warehouse");
    return new EmbeddedIcebergCatalog(properties, inMemory);
  }

  /** The last Java release Hadoop 3.4's FileSystem, hence a local-disk warehouse, runs on. */
  public static final int LOCAL_DISK_LAST_JAVA = 22;

  /**
   * A catalog that is not started yet whose warehouse (table metadata, manifests, data and delete files) is a
   * directory on local disk, written with Apache Iceberg's {@code HadoopFileIO}: another process given the catalog's
   * URI (an application started with {@code java -jar} while this catalog runs in a test's or a dev-time JVM) opens
   * the same files, where {@link #create()}'s in-memory files exist in this JVM only. The table pointers stay in this
   * JVM: the catalog's tables end with it, their files do not. Needs hadoop-client-api and hadoop-client-runtime.
   *
   * @param warehouse the directory, created when missing
   * @throws IllegalStateException when Hadoop is not on the class path, or on Java 23 and later, where Hadoop 3.4
   *     cannot run
   */
  public static EmbeddedIcebergCatalog create(java.nio.file.Path warehouse) {
    Objects.requireNonNull(warehouse, "warehouse");
    if (!OptionalDependencies.isPresent("org.apache.hadoop.conf.Configuration")) {
      throw new IllegalStateException("a local-disk warehouse is written with Apache Iceberg's HadoopFileIO: add "
          + "org.apache.hadoop:hadoop-client-api and hadoop-client-runtime to the class path");
    }
    if (Runtime.version().feature() > LOCAL_DISK_LAST_JAVA) {
      // Hadoop 3.4's FileSystem asks Subject.getSubject, which throws from Java 23 on
      throw new IllegalStateException("a local-disk warehouse is written with Hadoop's FileSystem, which Hadoop 3.4 "
          + "cannot run on Java " + Runtime.version().feature() + " (javax.security.auth.Subject.getSubject is no "
          + "longer supported): run the catalog on Java 17 to 22, or use the in-memory warehouse of create()");
    }
    java.nio.file.Path directory = warehouse.toAbsolutePath();
    try {
      java.nio.file.Files.createDirectories(directory);
    }
    catch (java.io.IOException failure) {
      throw new java.io.UncheckedIOException("cannot create the warehouse directory " + directory, failure);
    }
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put(CatalogProperties.FILE_IO_IMPL, "org.apache.iceberg.hadoop.HadoopFileIO");
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, directory.toUri().toString().replaceAll("/$", ""));
    // clients resolve file: locations with their own FileIO (Iceberg's ResolvingFileIO takes HadoopFileIO for them)
    return new EmbeddedIcebergCatalog(properties, Map.of());
  }

  /**
   * A catalog that is not started yet whose warehouse (table metadata, manifests, data and delete files) is in an
   * S3 store's bucket, under a directory of its own ({@code s3://{bucket}/{uuid}}), written with Apache Iceberg's
   * {@code S3FileIO} and the store's {@linkplain EmbeddedS3#rootCredentials() root credentials}. {@code /v1/config}
   * advertises the store's {@linkplain EmbeddedS3#clientProperties() client properties} (the FileIO, endpoint,
   * path-style access and region, never a secret) among its defaults, so a client reads the files with the
   * credentials the catalog {@linkplain #vendedCredentials vends}, e.g. {@code vendedCredentials(request ->
   * List.of(s3.vend(Duration.ofHours(1))))}, and with no others: without vending a client has none.
   *
   * @param store a started store, which must outlive the catalog
   */
  public static EmbeddedIcebergCatalog create(EmbeddedS3 store) {
    Objects.requireNonNull(store, "store");
    Map<String, String> properties = new LinkedHashMap<>(store.fileIoProperties(store.rootCredentials()));
    properties.put(CatalogProperties.WAREHOUSE_LOCATION, store.location() + "/" + UUID.randomUUID());
    return new EmbeddedIcebergCatalog(properties, store.clientProperties());
  }

  /**
   * File scan tasks per plan-task in Iceberg's own planning (its {@code PlanningBehavior}): the plan
   * response holds the first {@code n} tasks and a chain of plan-tasks of {@code n} tasks each follows.
   * Default 100, as in Iceberg. Not used while a {@link #fanOut(FanOut) fan-out} is set.
   */
  public EmbeddedIcebergCatalog tasksPerPlanTask(int tasksPerPlanTask) {
    if (tasksPerPlanTask < 1) {
      throw new IllegalArgumentException("tasksPerPlanTask must be at least 1: " + tasksPerPlanTask);
    }
    this.settings.tasksPerPlanTask = tasksPerPlanTask;
    return this;
  }

  /**
   * Whether plans are answered {@code submitted} with a plan id for the client to poll. Without a
   * fan-out Iceberg plans in the background and polls return {@code submitted} until it is done (a
   * race the client usually loses once or twice); with one the plan is complete after
   * {@link #submittedPolls(int)} polls.
   */
  public EmbeddedIcebergCatalog planAsync(boolean planAsync) {
    this.settings.planAsync = planAsync;
    return this;
  }

  /**
   * With a fan-out and {@link #planAsync(boolean)}: how many polls of each plan answer
   * {@code submitted} (a bare status, as the spec's {@code EmptyPlanningResult}) before one answers
   * with the completed plan. Default 0: the first poll completes it.
   */
  public EmbeddedIcebergCatalog submittedPolls(int submittedPolls) {
    if (submittedPolls < 0) {
      throw new IllegalArgumentException("submittedPolls must not be negative: " + submittedPolls);
    }
    this.settings.submittedPolls = submittedPolls;
    return this;
  }

  /**
   * A delay before each {@code /tasks} response (default none), to make fetch concurrency measurable; the time spent
   * in it is {@link AnsweringTime#tasksLatency()}.
   */
  public EmbeddedIcebergCatalog tasksLatency(Duration latency) {
    Objects.requireNonNull(latency, "latency");
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
    this.settings.tasksLatency = latency;
    return this;
  }

  /**
   * A delay before each answer to {@code POST …/metrics} (default none), as at a catalog slow to take reports: a
   * client should not make its plans wait for one. {@link RequestCounts#metricsInFlight()} shows those being
   * answered.
   */
  public EmbeddedIcebergCatalog metricsLatency(Duration latency) {
    Objects.requireNonNull(latency, "latency");
    if (latency.isNegative()) {
      throw new IllegalArgumentException("latency must not be negative: " + latency);
    }
    this.settings.metricsLatency = latency;
    return this;
  }

  /**
   * Serves plans over a tree of plan-task handles of this shape instead of Iceberg's chain: Iceberg
   * plans the scan (same table, snapshot, filter and projection), then its tasks are dealt over the
   * tree's nodes as {@link FanOut} describes. {@code null} (the default) restores Iceberg's own planning.
   */
  public EmbeddedIcebergCatalog fanOut(@Nullable FanOut fanOut) {
    this.settings.fanOut = fanOut;
    return this;
  }

  /**
   * Whether the catalog supports server-side planning (default true). When false, {@code /v1/config}
   * advertises no planning endpoint and the planning routes answer 400 "No route for request", as for
   * any route Iceberg's adapter does not know; the requests are still counted.
   */
  public EmbeddedIcebergCatalog planningEndpoints(boolean supported) {
    this.settings.planningEndpoints = supported;
    return this;
  }

  /**
   * Whether requests need an {@code Authorization: Bearer} header (default false), as at a catalog behind
   * authentication: without one, every request but the token endpoint ({@code POST /v1/oauth/tokens},
   * where Iceberg's adapter issues a token for any client credentials) is answered 401
   * {@code NotAuthorizedException} and not counted. The token itself is not checked; {@linkplain #principal
   * principals} check it, and need a token whether this is on or not.
   */
  public EmbeddedIcebergCatalog requireBearerToken(boolean required) {
    this.settings.requireBearerToken = required;
    return this;
  }

  /**
   * Defines a principal, a caller the catalog tells apart by its bearer tokens: a request with
   * {@code Authorization: Bearer <t>}, {@code t} one of these tokens (never expiring) or one the {@linkplain
   * #clientCredentials token endpoint issued} for it (until it {@linkplain #issuedTokenLifetime expires}), is that
   * principal's. As soon as the catalog has a principal, every request but the token endpoint's
   * ({@code POST /v1/oauth/tokens}) without the token of a principal (none, an unknown one, an expired one) is
   * answered 401 {@code NotAuthorizedException}, and, like a request refused for want of a token, not counted; the
   * message never quotes the token. Without principals (the default) requests are not told apart.
   *
   * <p>A principal may use every table until it is {@linkplain #grant(String, TableIdentifier) granted} some; the
   * plans it submits are its own: {@linkplain #crossPrincipalRequests other principals cannot touch them}. Calling
   * this again for a principal adds tokens to it.
   *
   * @param name the principal's name, not empty, used in messages
   * @param bearerTokens tokens of this principal, none for one that only gets issued tokens
   * @throws IllegalArgumentException when a token is empty or is another principal's already
   */
  public EmbeddedIcebergCatalog principal(String name, String... bearerTokens) {
    this.settings.principals.define(name, bearerTokens);
    return this;
  }

  /**
   * Grants the principal the table. Once a principal has any grant, its requests on the path of a table it was not
   * granted ({@code …/tables/{table}} and below: loads, {@code HEAD}, commits, plans, polls, cancels, {@code /tasks},
   * {@code GET …/credentials}, metrics) are answered 403 {@code ForbiddenException} naming the table, whether the
   * table exists or not; they are counted as their routes. A principal without grants may use every table. Requests
   * whose path names no table (listing, creating, registering, renaming tables) are not checked.
   *
   * <p>This grant serves the principal no {@code read-restrictions} of its own: it is served those of its bearer
   * token, if {@linkplain #readRestrictions(TableIdentifier, String, RestrictionPolicy) any}, else the table's. A
   * later grant of the same table replaces the earlier one.
   *
   * @param table the table, whether it exists yet or not
   * @throws IllegalArgumentException when no such principal is {@linkplain #principal defined}
   */
  public EmbeddedIcebergCatalog grant(String principal, TableIdentifier table) {
    this.settings.principals.grant(principal, table);
    this.settings.readRestrictions.putForPrincipal(table, principal, null);
    return this;
  }

  /**
   * {@linkplain #grant(String, TableIdentifier) Grants} the principal the table, and serves the principal the
   * policy as the table's {@code read-restrictions}, whatever its token, in place of the table's {@linkplain
   * #readRestrictions(TableIdentifier, RestrictionPolicy) policy for every caller}: with its loads, creations and
   * registrations, and in refusing with 403 its plans' {@code stats-fields} on the columns the policy masks, exactly
   * as {@link #readRestrictions(TableIdentifier, String, RestrictionPolicy)} does for a bearer token, whose policy,
   * the more specific, still comes first. {@code RestrictionPolicy.json("{}")} leaves the principal unrestricted on a
   * restricted table. A later grant of the same table replaces this one.
   *
   * @throws IllegalArgumentException when no such principal is {@linkplain #principal defined}
   */
  public EmbeddedIcebergCatalog grant(String principal, TableIdentifier table, RestrictionPolicy policy) {
    Objects.requireNonNull(policy, "policy");
    this.settings.principals.grant(principal, table);
    this.settings.readRestrictions.putForPrincipal(table, principal, policy);
    return this;
  }

  /**
   * Registers an OAuth2 client of the principal at the token endpoint ({@code POST /v1/oauth/tokens}, form-encoded),
   * which the catalog answers itself while it has principals: a {@code grant_type=client_credentials} request
   * authenticated as this client, with HTTP Basic ({@code client_secret_basic}: id and secret form-encoded first, as
   * Spring Security sends them, or as they are) or with {@code client_id} and {@code client_secret} in the body
   * ({@code client_secret_post}, as Iceberg's {@code RESTCatalog} sends them), is answered 200 with a new random
   * opaque token of the principal: {@code {"access_token": …, "token_type": "Bearer", "expires_in": …}}, the
   * {@linkplain #issuedTokenLifetime issued-token lifetime} in seconds. A wrong secret, an unknown client or no client
   * authentication is answered 401 {@code {"error": "invalid_client", "error_description": …}}, another grant type
   * 400 {@code unsupported_grant_type}. The same client may authenticate a {@linkplain #tokenExchange token
   * exchange}. Registering the id again replaces its secret and principal. Without principals, Iceberg's adapter
   * answers the endpoint as before: a token for any client credentials, which no principal check follows.
   *
   * @throws IllegalArgumentException when no such principal is {@linkplain #principal defined}, or the id or the
   *     secret is empty
   */
  public EmbeddedIcebergCatalog clientCredentials(String principal, String clientId, String clientSecret) {
    this.settings.principals.clientCredentials(principal, clientId, clientSecret);
    return this;
  }

  /**
   * Registers an identity provider's token (a user's JWT, say, as an opaque string: it is compared, not parsed) that
   * the token endpoint exchanges, as RFC 8693 says, for a new token of the principal. A
   * {@code grant_type=urn:ietf:params:oauth:grant-type:token-exchange} request with {@code subject_token} this token,
   * {@code subject_token_type} {@code urn:ietf:params:oauth:token-type:access_token} or {@code …:jwt}, and
   * {@code actor_token} a valid token of any principal (the service acting for the subject) with
   * {@code actor_token_type} one of those two, is answered 200 with {@code access_token} (new, random, opaque),
   * {@code issued_token_type} {@code urn:ietf:params:oauth:token-type:access_token}, {@code token_type}
   * {@code Bearer} and {@code expires_in}: what Spring Security's {@code RestClientTokenExchangeTokenResponseClient}
   * and {@code WebClientReactiveTokenExchangeTokenResponseClient} send and read. Client authentication is optional
   * ({@code client_id} alone is a public client's), but when present (HTTP Basic, or {@code client_secret} in the
   * body) it must be a {@linkplain #clientCredentials registered client}'s, or the answer is 401
   * {@code invalid_client}.
   *
   * <p>Refusals, never quoting a token: a subject token not registered, 400 {@code {"error": "invalid_grant",
   * "error_description": …}}; no {@code actor_token}, one that is not a principal's valid token, a missing or other
   * token type, or a {@code requested_token_type} other than an access token, 400 {@code invalid_request}.
   * Registering the token again gives it another principal.
   *
   * @param subjectToken the identity provider's token, not empty
   * @throws IllegalArgumentException when no such principal is {@linkplain #principal defined}
   */
  public EmbeddedIcebergCatalog tokenExchange(String subjectToken, String principal) {
    this.settings.principals.exchangeable(subjectToken, principal);
    return this;
  }

  /**
   * How long a token the token endpoint issues from now on is accepted (default 1 hour), on the {@linkplain #clock
   * clock}; its answer's {@code expires_in} is this in whole seconds. Once expired, a token is refused with 401
   * {@code NotAuthorizedException}, as an unknown one is, and is no longer a valid {@code actor_token}. Tokens
   * given to {@link #principal} do not expire.
   *
   * @param lifetime positive
   */
  public EmbeddedIcebergCatalog issuedTokenLifetime(Duration lifetime) {
    this.settings.principals.issuedTokenLifetime(lifetime);
    return this;
  }

  /**
   * The clock issued tokens are stamped and expire by (default the system's); can be changed at any time, and a
   * settable test clock (a {@code Clock.fixed} set again) makes tokens expire when the test says.
   */
  public EmbeddedIcebergCatalog clock(Clock clock) {
    this.settings.principals.clock(clock);
    return this;
  }

  /**
   * Expires a principal's token now, as if its lifetime had run out: every request with it from now on is answered
   * 401 {@code NotAuthorizedException}, for a test that a client replaces a token expiring in the middle of its
   * work. Works on issued tokens and on those given to {@link #principal} alike.
   *
   * @throws IllegalArgumentException when it is not a principal's token (the message does not quote it)
   */
  public EmbeddedIcebergCatalog expireToken(String token) {
    this.settings.principals.expire(token);
    return this;
  }

  /**
   * What an answer that carries vended credentials answers: the argument of the function given to
   * {@link #vendedCredentials}.
   *
   * @param endpoint the endpoint answered, one of Iceberg's {@link Endpoint#V1_LOAD_TABLE} (a load that asked for
   *     credentials), {@link Endpoint#V1_SUBMIT_TABLE_SCAN_PLAN} and {@link Endpoint#V1_FETCH_TABLE_SCAN_PLAN} (a
   *     completed plan) and {@link Endpoint#V1_TABLE_CREDENTIALS}
   * @param table the table of the request
   * @param planId the plan's id for a plan, the {@code planId} query parameter for {@code GET …/credentials};
   *     {@code null} for a table load and for a credentials request without one
   */
  public record CredentialsRequest(Endpoint endpoint, TableIdentifier table, @Nullable String planId) {

    public CredentialsRequest {
      Objects.requireNonNull(endpoint, "endpoint");
      Objects.requireNonNull(table, "table");
    }
  }

  /**
   * Vends storage credentials, as a catalog in front of object storage does (default {@code null}: none). When set,
   * {@code storage-credentials} are in the answer to a table load whose request has
   * {@code X-Iceberg-Access-Delegation: vended-credentials}, in every completed plan (the submission's answer or
   * the poll's), and in the answer to {@code GET …/tables/{table}/credentials} (with or without {@code planId}),
   * which {@code /v1/config} then advertises (unless {@link #credentialsEndpoint} is off). Without vending, loads
   * and plans carry no credentials, the endpoint is not advertised and the route answers 400 "No route for request",
   * as Iceberg's adapter does.
   *
   * <p>The function is called for each such answer, on the server's thread, so it can vend different credentials
   * each time (a generation counter in their config, an expiry such as {@code s3.session-token-expires-at-ms}
   * later each time): a client that refreshes its credentials gets new ones. In the in-memory FileIO the
   * credentials are fakes, which it ignores; over an {@link EmbeddedS3} they are the store's
   * ({@link EmbeddedS3#vend}), checked on every request. A function that throws fails the request, with the status
   * Iceberg's adapter gives its exception (500 for most).
   *
   * @param credentials the credentials for an answer, Iceberg's own type
   *     ({@code StorageCredential.create(prefix, config)}), an empty list for none; {@code null} to stop vending
   */
  public EmbeddedIcebergCatalog vendedCredentials(
      @Nullable Function<CredentialsRequest, List<StorageCredential>> credentials) {
    this.settings.vendedCredentials = credentials;
    return this;
  }

  /**
   * Whether, while it {@linkplain #vendedCredentials vends credentials}, the catalog has the
   * {@code GET …/tables/{table}/credentials} endpoint (default true). When false, {@code /v1/config} does not
   * advertise it and the route answers 400 "No route for request", as at a catalog that vends credentials with
   * table loads and plans only; the requests are still counted.
   */
  public EmbeddedIcebergCatalog credentialsEndpoint(boolean supported) {
    this.settings.credentialsEndpoint = supported;
    return this;
  }

  /**
   * Serves a governed table: the answers to its loads ({@code GET …/tables/{table}}, with or without
   * {@code X-Iceberg-Access-Delegation: vended-credentials}), to its creation ({@code POST …/tables}) and to its
   * registration ({@code POST …/register}) carry the policy as the top-level member {@code read-restrictions} of the
   * spec's {@code LoadTableResult}, which Apache Iceberg 1.12's {@code LoadTableResponse} lacks (its own
   * {@code RESTCatalog} ignores the member). The policy is written {@linkplain RestrictionPolicy#toJson for the
   * table's current schema} at the time of each answer; one that does not fit it (a column the schema lacks) fails
   * the answer with the status Iceberg's adapter gives an {@link IllegalArgumentException} (400). Every other answer
   * is unchanged, and so is the table's data: the catalog serves restrictions, it does not apply them.
   *
   * <p>As Rustberg does, the catalog then also refuses with 403 ({@code ForbiddenException}, an Iceberg error
   * response naming the column) a {@code POST …/plan} of the table whose {@code stats-fields} names a column masked
   * for the caller, or a field nested under one, resolved against the current schema as the plan resolves names
   * (its {@code case-sensitive}): their bounds and counts would be raw values.
   *
   * @param table the table, whether it exists yet or not
   * @param policy what every caller is served, unless its bearer token has a {@linkplain
   *     #readRestrictions(TableIdentifier, String, RestrictionPolicy) policy of its own} or its principal was
   *     {@linkplain #grant(String, TableIdentifier, RestrictionPolicy) granted the table with one}; {@code null}
   *     removes it
   */
  public EmbeddedIcebergCatalog readRestrictions(TableIdentifier table, @Nullable RestrictionPolicy policy) {
    this.settings.readRestrictions.put(table, policy);
    return this;
  }

  /**
   * Serves the table's callers with this bearer token (requests with {@code Authorization: Bearer <bearerToken>})
   * their own {@code read-restrictions}, in place of the table's {@linkplain #readRestrictions(TableIdentifier,
   * RestrictionPolicy) policy for every caller}, and refuses their plans' {@code stats-fields} on the columns it
   * masks as that one does. {@code RestrictionPolicy.json("{}")} leaves them unrestricted on a restricted table.
   * The token is matched as sent: without {@linkplain #principal principals} it is not checked (with
   * {@link #requireBearerToken} or not, any token reaches the catalog; Iceberg's token endpoint issues one for any
   * client credentials), with them it must be a principal's, and this policy comes before that principal's
   * {@linkplain #grant(String, TableIdentifier, RestrictionPolicy) own}.
   *
   * @param bearerToken the token, not empty
   * @param policy what those callers are served; {@code null} removes it, and they get the table's again
   */
  public EmbeddedIcebergCatalog readRestrictions(TableIdentifier table, String bearerToken,
      @Nullable RestrictionPolicy policy) {
    this.settings.readRestrictions.put(table, bearerToken, policy);
    return this;
  }

  /**
   * A request as it reached the catalog, recorded while {@link #recordRequests recording} is on.
   *
   * @param method the HTTP method, e.g. {@code POST}
   * @param path the request's path as sent, percent-encoded, without the query string, e.g.
   *     {@code /v1/namespaces/db/tables/events/plan}
   * @param authorization the {@code Authorization} header as sent (its first, if several), {@code null} without one
   * @param body the body as text (in the request's character encoding, UTF-8 without one), {@code null} when it has
   *     none
   */
  public record RecordedRequest(String method, String path, @Nullable String authorization, @Nullable String body) {

    public RecordedRequest {
      Objects.requireNonNull(method, "method");
      Objects.requireNonNull(path, "path");
    }
  }

  /**
   * Whether to record the requests that arrive (default false), for tests that assert what a client sent: every
   * request, the token endpoint's and refused ones included, as {@link #recordedRequests()}. Recording changes no
   * answer; a recorded request's body is read in full when it arrives.
   */
  public EmbeddedIcebergCatalog recordRequests(boolean record) {
    this.recorder.recording(record);
    return this;
  }

  /** The requests recorded so far, in the order they arrived; an immutable copy. */
  public List<RecordedRequest> recordedRequests() {
    return this.recorder.recorded();
  }

  /** Forgets the requests recorded so far; recording stays on or off. */
  public void clearRecordedRequests() {
    this.recorder.clear();
  }

  /**
   * Starts the server on a free port of 127.0.0.1.
   *
   * @throws IllegalStateException when already started or closed, or when the server cannot start
   */
  public synchronized EmbeddedIcebergCatalog start() {
    if (this.closed || this.server != null) {
      throw new IllegalStateException(this.closed ? "the catalog is closed" : "the catalog is already started");
    }
    QueuedThreadPool threads = new QueuedThreadPool();
    threads.setName("embedded-iceberg-catalog");
    // A test that forgets close() must not keep the JVM alive.
    threads.setDaemon(true);
    Server jetty = new Server(threads);
    // HTTP/1.1, and h2c for clients that open with HTTP/2's preface (prior knowledge), on the same port
    HttpConfiguration http = new HttpConfiguration();
    ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http),
        new HTTP2CServerConnectionFactory(http));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setContextPath("/");
    context.addServlet(new ServletHolder(new CatalogServlet(this.adapter, this.tokens, this.counter, this.recorder)),
        "/*");
    jetty.setHandler(context);
    try {
      jetty.start();
    }
    catch (Exception failure) {
      stopQuietly(jetty, failure);
      throw new IllegalStateException("the embedded Iceberg catalog could not start", failure);
    }
    this.server = jetty;
    this.uri = "http://127.0.0.1:" + connector.getLocalPort();
    return this;
  }

  /**
   * The base URI clients are configured with (requests go to {@code {uri}/v1/config}, …), e.g.
   * {@code http://127.0.0.1:40123}.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  public synchronized String uri() {
    if (this.uri == null) {
      throw new IllegalStateException("the catalog is not started");
    }
    return this.uri;
  }

  /** Whether the server is started and not closed. */
  public synchronized boolean isRunning() {
    return this.server != null && !this.closed;
  }

  /** The catalog behind the server, for anything this class does not cover. */
  public InMemoryCatalog catalog() {
    return this.catalog;
  }

  /** Creates a namespace and whichever of its ancestors do not exist yet; existing ones are kept. */
  public Namespace createNamespace(String... levels) {
    if (levels.length == 0) {
      throw new IllegalArgumentException("a namespace needs at least one level");
    }
    Namespace namespace = Namespace.of(levels);
    for (int length = 1; length <= levels.length; length++) {
      Namespace level = Namespace.of(Arrays.copyOf(levels, length));
      if (!this.catalog.namespaceExists(level)) {
        this.catalog.createNamespace(level);
      }
    }
    return namespace;
  }

  /** Creates an unpartitioned format-version 2 table, and its namespace if needed. */
  public EmbeddedTable createTable(TableIdentifier identifier, Schema schema) {
    return createTable(identifier, schema, PartitionSpec.unpartitioned(), 2);
  }

  /**
   * Creates a table, and its namespace if needed.
   *
   * @param spec the partition spec, bound to {@code schema} ({@code PartitionSpec.builderFor(schema)…})
   * @param formatVersion the table format version (2 or 3; deletion vectors need 3)
   */
  public EmbeddedTable createTable(TableIdentifier identifier, Schema schema, PartitionSpec spec, int formatVersion) {
    createNamespace(identifier.namespace().levels());
    this.catalog.buildTable(identifier, schema).withPartitionSpec(spec)
        .withProperty(TableProperties.FORMAT_VERSION, Integer.toString(formatVersion)).create();
    return new EmbeddedTable(this.catalog, identifier);
  }

  /**
   * An existing table.
   *
   * @throws org.apache.iceberg.exceptions.NoSuchTableException when there is none
   */
  public EmbeddedTable table(TableIdentifier identifier) {
    this.catalog.loadTable(identifier);
    return new EmbeddedTable(this.catalog, identifier);
  }

  /**
   * The planning requests answered so far, and the time spent answering plans ({@link RequestCounts#answering()}):
   * what a client's plan cost the catalog, next to the client's own wall time.
   */
  public RequestCounts requestCounts() {
    return this.counter.snapshot();
  }

  /**
   * Starts the counts and the times again from zero, e.g. after setting up tables or before the plan measured, and
   * {@link #crossPrincipalRequests()} and {@link #tokenRequests} too.
   */
  public void resetRequestCounts() {
    this.counter.reset();
    this.adapter.planOwners().resetCounts();
    this.tokens.resetCounts();
  }

  /**
   * How many requests of one {@linkplain #principal principal} for a plan another submitted were refused (403
   * {@code ForbiddenException}, "plan … belongs to another principal") since start or {@link #resetRequestCounts()}:
   * a poll ({@code GET …/plan/{plan-id}}), a cancel ({@code DELETE …/plan/{plan-id}}), a fetch ({@code POST …/tasks})
   * of one of its plan-tasks (those of its submission's and polls' answers, of the answers to fetches of them,
   * Iceberg's chain and a {@linkplain #fanOut fan-out}'s tree alike) and {@code GET …/credentials?planId=} with its
   * id. A client test asserts 0 to prove every request of a plan carried the plan's identity. A plan submitted while
   * the catalog had no principals belongs to no one; a plan is forgotten once cancelled or answered failed or
   * cancelled by a poll, and its plan id and plan-tasks are then answered as unknown ones.
   */
  public int crossPrincipalRequests() {
    return this.adapter.planOwners().crossPrincipalRequests();
  }

  /**
   * How many requests of the grant type the token endpoint answered with a token while the catalog had principals,
   * since start or {@link #resetRequestCounts()}: {@code "client_credentials"} ({@link #clientCredentials}),
   * {@code "urn:ietf:params:oauth:grant-type:token-exchange"} ({@link #tokenExchange}); refusals are not counted, nor
   * the tokens Iceberg's adapter issues while there are no principals.
   */
  public int tokenRequests(String grantType) {
    return this.tokens.answered(Objects.requireNonNull(grantType, "grantType"));
  }

  /** Stops the server and removes this catalog's plans; idempotent. */
  @Override
  public synchronized void close() {
    if (this.closed) {
      return;
    }
    this.closed = true;
    RuntimeException failure = null;
    if (this.server != null) {
      try {
        this.server.stop();
      }
      catch (Exception stopFailure) {
        failure = new IllegalStateException("the embedded Iceberg catalog did not stop cleanly", stopFailure);
      }
    }
    this.adapter.close();
    try {
      this.catalog.close();
    }
    catch (Exception closeFailure) {
      if (failure == null) {
        failure = new IllegalStateException("the in-memory catalog did not close cleanly", closeFailure);
      }
      else {
        failure.addSuppressed(closeFailure);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "EmbeddedIcebergCatalog[" + (this.uri != null ? this.uri : "not started") + (this.closed ? ", closed" : "")
        + "]";
  }

  /**
   * Iceberg's servlet, which rejects a path its own routes do not name before the adapter sees it, and
   * {@code GET …/credentials} is not among them (1.11): that one is handed to the adapter here. While the catalog has
   * principals, the token endpoint is answered here too, by {@link TokenEndpoint}: OAuth2 error answers are not the
   * Iceberg error bodies the adapter writes. It ends each timed
   * request's time once the answer is written, which happens here, after the adapter has returned. It records
   * requests while recording is on. It holds back the answers of table loads, creations and registrations, the only
   * ones that can carry {@code read-restrictions}, until the adapter has said which (on this thread, through
   * {@link PlanningAdapter#takeReadRestrictions}): every other answer, {@code /tasks} ones among them, is written
   * straight through as Iceberg writes it.
   */
  private static final class CatalogServlet extends RESTCatalogServlet {

    private static final long serialVersionUID = 1L;

    private final transient PlanningAdapter adapter;
    private final transient TokenEndpoint tokens;
    private final transient RequestCounter counter;
    private final transient RequestRecorder recorder;

    CatalogServlet(PlanningAdapter adapter, TokenEndpoint tokens, RequestCounter counter, RequestRecorder recorder) {
      super(adapter);
      this.adapter = adapter;
      this.tokens = tokens;
      this.counter = counter;
      this.recorder = recorder;
    }

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws ServletException, IOException {
      try {
        super.service(this.recorder.arrived(request), response);
      }
      finally {
        this.counter.answered();
      }
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
      String path = request.getRequestURI().substring(1);
      if (TokenEndpoint.PATH.equals(path) && this.tokens.answers()) {
        this.tokens.answer(request, response);
        return;
      }
      if (PlanningRoute.answersLoadTable(HTTPMethod.POST, path)) {
        answerLoadTable(request, response, super::doPost);
        return;
      }
      super.doPost(request, response);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
      // as Iceberg's servlet reads its paths: no leading slash, still percent-encoded
      String path = request.getRequestURI().substring(1);
      if (PlanningRoute.answersLoadTable(HTTPMethod.GET, path)) {
        answerLoadTable(request, response, super::doGet);
        return;
      }
      if (PlanningRoute.of(HTTPMethod.GET, path) != PlanningRoute.CREDENTIALS) {
        super.doGet(request, response);
        return;
      }
      Map<String, String> query = new LinkedHashMap<>();
      request.getParameterMap().forEach((name, values) -> query.put(name, values[0]));
      Map<String, String> headers = new LinkedHashMap<>();
      Collections.list(request.getHeaderNames()).forEach(name -> headers.put(name, request.getHeader(name)));
      response.setContentType("application/json");
      response.setCharacterEncoding(StandardCharsets.UTF_8.name());
      LoadCredentialsResponse answer;
      try {
        answer = this.adapter.loadCredentials(path, query, headers, handle(response));
      }
      catch (RESTException answered) {
        // the error handler has written the status and the error body already
        return;
      }
      response.setStatus(HttpServletResponse.SC_OK);
      response.getWriter().write(LoadCredentialsResponseParser.toJson(answer));
    }

    /** Iceberg's answer to a {@code LoadTableResult} request, with the {@code read-restrictions} the adapter chose. */
    private void answerLoadTable(HttpServletRequest request, HttpServletResponse response, Answering iceberg)
        throws IOException {
      BufferedLoadTableAnswer answer = new BufferedLoadTableAnswer(response);
      @Nullable String restrictions;
      try {
        iceberg.answer(request, answer);
      }
      finally {
        // taken whatever happened: the thread answers other requests next
        restrictions = this.adapter.takeReadRestrictions();
      }
      answer.send(restrictions);
    }

    /** One of Iceberg's servlet's own {@code doGet} and {@code doPost}. */
    @FunctionalInterface
    private interface Answering {

      void answer(HttpServletRequest request, HttpServletResponse response) throws IOException;
    }
  }

  private static void stopQuietly(Server jetty, Exception failure) {
    try {
      jetty.stop();
    }
    catch (Exception stopFailure) {
      failure.addSuppressed(stopFailure);
    }
  }
}
