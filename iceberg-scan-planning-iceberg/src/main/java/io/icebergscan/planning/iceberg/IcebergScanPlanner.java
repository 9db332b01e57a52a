package io.icebergscan.planning.iceberg;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.CallerMismatchException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * Plans with a {@link ScanPlanner} and hands the plan over as Apache Iceberg's own types, ready for Iceberg's
 * readers and for engines: table metadata loaded through the planner's HTTP client, {@link FileScanTask}s,
 * split {@code CombinedScanTask}s, and rows with deletes applied.
 *
 * <pre>{@code
 * try (IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build()) {
 *   IcebergTable table = iceberg.loadTable(TableIdentifier.of("db", "events"));
 *   IcebergScan scan = IcebergScan.all().filter(Expressions.greaterThan("id", 5));
 *   try (IcebergScanPlan plan = iceberg.plan(table, scan); ScanRows rows = plan.rows()) {
 *     rows.forEach(System.out::println);
 *   }
 * }
 * }</pre>
 *
 * <p>Rows are read {@link Builder#readConcurrency readConcurrency} tasks at a time on a reading executor: the one
 * given to {@link Builder#readExecutor}, or a pool of that many daemon threads of its own, which {@link #close()}
 * shuts down. Thread-safe.
 */
public final class IcebergScanPlanner implements AutoCloseable {

  /** Apache Iceberg's catalog property naming the FileIO implementation. */
  static final String FILE_IO_IMPL = "io-impl";

  private final ScanPlanner planner;
  private final Map<String, String> fileIoProperties;
  private final boolean vendedCredentials;
  private final @Nullable Long splitSize;
  private final boolean scanReports;
  private final Clock clock;
  private final ScanRows.Reading reading;
  /** The reading pool this planner made itself, shut down by {@link #close()}; none when one was given. */
  private final @Nullable ExecutorService ownedExecutor;

  private IcebergScanPlanner(Builder builder) {
    this.planner = builder.planner;
    this.fileIoProperties = Map.copyOf(builder.fileIoProperties);
    this.vendedCredentials = builder.vendedCredentials;
    this.splitSize = builder.splitSize;
    this.scanReports = builder.scanReports;
    this.clock = builder.clock;
    Executor given = builder.readExecutor;
    this.ownedExecutor = given == null ? readingPool(builder.readConcurrency) : null;
    this.reading = new ScanRows.Reading(given != null ? given : Objects.requireNonNull(this.ownedExecutor),
        builder.readConcurrency, builder.readBufferBytes);
  }

  /** A view of {@code of} as {@code caller}: the same reading pool, which it does not own. */
  private IcebergScanPlanner(IcebergScanPlanner of, CatalogCredentials caller) {
    this.planner = of.planner.as(caller);
    this.fileIoProperties = of.fileIoProperties;
    this.vendedCredentials = of.vendedCredentials;
    this.splitSize = of.splitSize;
    this.scanReports = of.scanReports;
    this.clock = of.clock;
    this.reading = of.reading;
    this.ownedExecutor = null;
  }

  public static Builder builder(ScanPlanner planner) {
    return new Builder(planner);
  }

  /**
   * This planner as a caller ({@link ScanPlanner#as}): its loads, plans, reads, credential refreshes and reports run
   * as {@code caller}, and a table it loads is the caller's: plans and reads of it run as that caller, whichever
   * planner they are made through, and are refused (a {@code CallerMismatchException}) where another caller is
   * current. Shares this planner's reading pool; closing it does nothing.
   */
  public IcebergScanPlanner as(CatalogCredentials caller) {
    return new IcebergScanPlanner(this, caller);
  }

  /** The planner plans go through. */
  public ScanPlanner planner() {
    return this.planner;
  }

  /** How many tasks a read of rows reads at once. */
  public int readConcurrency() {
    return this.reading.concurrency();
  }

  /** What the rows a read holds, not taken yet, may weigh at most, in bytes, beyond the earliest task's own 1,024. */
  public long readBufferBytes() {
    return this.reading.bufferBytes();
  }

  /**
   * Loads the table's metadata with the catalog's {@code loadTable} call, through the planner's HTTP client (its
   * authentication, TLS, retries and observation), asking for vended credentials unless that is turned off. The
   * {@linkplain IcebergTable#readRestrictions() read restrictions} the answer carries are checked here, against the
   * table's current schema, and every read of the table enforces them.
   *
   * @throws io.icebergscan.planning.exceptions.InvalidReadRestrictionsException when the answer carries read
   *     restrictions this reader cannot enforce in full
   * @throws io.icebergscan.planning.exceptions.ScanPlanningException (a subtype) when the catalog fails or its
   *     answer is not table metadata
   */
  public IcebergTable loadTable(TableIdentifier identifier) {
    Objects.requireNonNull(identifier, "identifier");
    return loadTable(identifier, this.planner.caller());
  }

  /** The table loaded as {@code caller}, {@code null} for the planner's own identity (or its callers'). */
  private IcebergTable loadTable(TableIdentifier identifier, @Nullable CatalogCredentials caller) {
    LoadedTable loaded = plannerAs(caller).catalog().loadTable(IcebergTable.catalogIdentifier(identifier),
        this.vendedCredentials);
    TableMetadata metadata;
    try {
      metadata = TableMetadataParser.fromJson(loaded.metadataLocation(), loaded.metadataJson());
    }
    catch (RuntimeException notMetadata) {
      throw new MalformedResponseException("the metadata of " + identifier + " is not Iceberg table metadata: "
          + notMetadata.getMessage(), "metadata", null, notMetadata);
    }
    ReadRestrictions restrictions = ReadRestrictions.parse(identifier.toString(), loaded.readRestrictions(),
        metadata.schema());
    return new IcebergTable(identifier, metadata, loaded.config(), loaded.storageCredentials(), restrictions, caller);
  }

  /** The planner as {@code caller}, or as it is for {@code null}. */
  private ScanPlanner plannerAs(@Nullable CatalogCredentials caller) {
    return caller == null ? this.planner : this.planner.as(caller);
  }

  /**
   * The planner that plans and reads {@code table}: as the caller it was loaded as, which must be the caller of this
   * call if one is current (a table loaded as the planner's own identity is read by no caller).
   *
   * @throws CallerMismatchException when another caller is current
   */
  private ScanPlanner plannerOf(IcebergTable table, String call) {
    CatalogCredentials loadedAs = table.loadedAs();
    CatalogCredentials current = this.planner.caller();
    if (current != null && (loadedAs == null || !current.principal().equals(loadedAs.principal()))) {
      throw new CallerMismatchException(table.identifier().toString(), call);
    }
    return plannerAs(loadedAs);
  }

  /**
   * Plans a scan and converts every task. The scan is of the snapshot it names, or else of the one the table's
   * metadata holds as current, as Iceberg's own client plans a table it loaded; a time travel and a tag read with
   * their snapshot's schema, as Iceberg's do. The {@code ScanReport} is sent in the background.
   *
   * @throws IllegalArgumentException when the scan does not fit the table (a snapshot, ref or time it does not
   *     have, a filter or {@code select} its schema does not), before any request is made
   * @throws io.icebergscan.planning.exceptions.ScanPlanningException (a subtype) when the plan fails or a task
   *     does not fit the table
   */
  public IcebergScanPlan plan(IcebergTable table, IcebergScan scan) {
    ScanPlanner planner = plannerOf(table, "plan()");
    ResolvedScan resolved = ResolvedScan.of(table, scan);
    ScanPlan plan = planner.plan(table.catalogIdentifier(), resolved.request());
    TaskConverter converter = converter(table, resolved);
    List<FileScanTask> tasks = new ArrayList<>(plan.tasks().size());
    plan.tasks().forEach(task -> tasks.add(converter.convert(task)));
    if (this.scanReports) {
      ScanReports.sendInBackground(planner, table, resolved, plan, tasks);
    }
    FileIO io = files(planner, table).open(plan.storageCredentials().isEmpty() ? table.tableCredentials()
        : plan.storageCredentials(), plan.planId());
    return new IcebergScanPlan(table, plan, tasks, resolved, this.reading, splitSettings(table), io, io != table.io());
  }

  /**
   * Plans a scan and streams its tasks in walk order, as {@link ScanPlanner#planTasks} does.
   *
   * <p>Refused for a table whose reads are restricted (a {@code RestrictedReadException}, before any request): a
   * task's file, statistics, partition values and path describe the raw rows, and a reader other than this planner's
   * would not enforce the restrictions.
   */
  public Flux<FileScanTask> planTasks(IcebergTable table, IcebergScan scan) {
    ScanPlanner planner = plannerOf(table, "planTasks()");
    return Flux.defer(() -> {
      table.refuseIfRestricted("IcebergScanPlanner.planTasks()", IcebergScanPlan.TASKS_REFUSED);
      ResolvedScan resolved = ResolvedScan.of(table, scan);
      return planner.planTasks(table.catalogIdentifier(), resolved.request()).map(converter(table, resolved)::convert);
    });
  }

  /**
   * Plans a scan and reads its rows as the tasks arrive: each read of the rows ({@link ScanRows#iterator()}, a
   * subscription to {@link ScanRows#flux()}) is a plan of its own, whose first task is read as soon as the catalog
   * has answered with it, with the credentials the plan vended (the table's when it vended none) and refreshed for
   * that plan. Memory stays bounded whatever the plan's size: the planner streams tasks only as fast as they are
   * read. Closing a read before its end abandons its plan. No scan report is sent: that is {@link #plan}'s, which
   * knows the whole plan.
   *
   * @throws IllegalArgumentException when the scan does not fit the table, before any request is made
   */
  public ScanRows readRows(IcebergTable table, IcebergScan scan) {
    ScanPlanner planner = plannerOf(table, "readRows()");
    ResolvedScan resolved = ResolvedScan.of(table, scan);
    String what = "a streamed plan of " + table.identifier();
    return new ScanRows(what, this.reading, pipeline -> {
      // on the thread that starts the read, which may block: the catalog's configuration, once discovered
      PlanFiles files = files(planner, table);
      TaskConverter converter = converter(table, resolved);
      return TaskSources.streamed(pipeline, planner.planBatches(table.catalogIdentifier(), resolved.request()),
          converter::convert, batch -> {
            FileIO io = files.open(batch.storageCredentials().isEmpty() ? table.tableCredentials()
                : batch.storageCredentials(), batch.planId());
            TaskReader reader = TaskReader.forPlan(io, resolved,
                io instanceof PlanFileIO planIo ? planIo::checkOpen : () -> { });
            return new TaskSources.OwnedReader(reader, io != table.io() ? io : null);
          });
    }, () -> { }, resolved.projection().asStruct(), resolved.caseSensitive());
  }

  /**
   * The rows of {@link #readRows(IcebergTable, IcebergScan)}, each as an instance of {@code type}
   * ({@link ScanRows#as}).
   *
   * @throws RowMappingException when {@code type} does not fit the scan's columns, before any request is made
   * @throws IllegalArgumentException when the scan does not fit the table, before any request is made
   */
  public <T> MappedRows<T> readRows(IcebergTable table, IcebergScan scan, Class<T> type) {
    return readRows(table, scan).as(type);
  }

  /**
   * A table's rows as a {@code Flux}, for a reactive application: loads the table on the reading executor (that call
   * blocks, and so is refused on a non-blocking thread) and reads its rows as {@link #readRows} does, one streamed
   * plan per subscription. Safe to subscribe to on a non-blocking thread, such as a WebFlux request's; the
   * subscriber's demand reaches the file readers, and cancelling (or {@code take(n)}) ends the read and abandons the
   * plan. Failures arrive as the Flux's error: a table the catalog lacks as a {@code NoSuchTableException}, a scan
   * that does not fit it as an {@code IllegalArgumentException}.
   */
  public Flux<Record> streamRows(TableIdentifier identifier, IcebergScan scan) {
    return streamRows(identifier, scan, ScanRows::flux);
  }

  /**
   * The rows of {@link #streamRows(TableIdentifier, IcebergScan)}, each as an instance of {@code type}, mapped as
   * {@link ScanRows#as} maps them. Which columns the rows have is known once the table is loaded, so a type that does
   * not fit them fails the Flux with a {@link RowMappingException} after the load, before the plan request: no data
   * file is read.
   */
  public <T> Flux<T> streamRows(TableIdentifier identifier, IcebergScan scan, Class<T> type) {
    Objects.requireNonNull(type, "type");
    return streamRows(identifier, scan, rows -> rows.as(type).flux());
  }

  /** Loads the table as the caller on the reading executor, then reads {@code scan}'s rows with {@code read}. */
  private <T> Flux<T> streamRows(TableIdentifier identifier, IcebergScan scan, Function<ScanRows, Flux<T>> read) {
    Objects.requireNonNull(scan, "scan");
    return loadTableReactively(identifier).flatMapMany(table -> read.apply(readRows(table, scan)));
  }

  /**
   * The table {@link #loadTable(TableIdentifier)} loads, for a reactive application: loaded once per subscription on
   * the reading executor (the call blocks, and so is refused on a non-blocking thread), as the caller found on the
   * calling thread now, else in the subscriber's context, when the planner plans as its callers; a table it loads is
   * that caller's, as {@link #as} says. Safe to subscribe to on a non-blocking thread. The table arrives on the reading
   * executor, where what follows may block: a {@link #plan} of it, say. Failures arrive as the Mono's error.
   */
  public Mono<IcebergTable> loadTableReactively(TableIdentifier identifier) {
    Objects.requireNonNull(identifier, "identifier");
    // the caller is the calling thread's (a Spring MVC request's), else the subscriber's (a WebFlux request's, from
    // its context), found before the load leaves for the reading executor
    CatalogCredentials onThread = this.planner.caller();
    Mono<Optional<CatalogCredentials>> caller = onThread != null ? Mono.just(Optional.of(onThread))
        : Mono.deferContextual(context -> this.planner.caller(context).map(Optional::of)
            .defaultIfEmpty(Optional.empty()));
    return caller.flatMap(found -> Mono.fromCallable(() -> loadTable(identifier, found.orElse(null)))
        .subscribeOn(Schedulers.fromExecutor(this.reading.executor())));
  }

  /**
   * Refuses a table whose catalog restricts reads of it for this planner's identity: for {@link ScanPlanningCatalog},
   * whose engines read with readers of their own. Asks the catalog, since Iceberg's own client drops the member.
   *
   * @param schema the table's current schema, which the restrictions are checked against
   * @throws io.icebergscan.planning.exceptions.RestrictedReadException when it restricts them
   * @throws io.icebergscan.planning.exceptions.InvalidReadRestrictionsException when they are not valid either
   */
  void refuseRestricted(TableIdentifier identifier, org.apache.iceberg.Schema schema) {
    LoadedTable loaded = this.planner.catalog().loadTable(IcebergTable.catalogIdentifier(identifier), false);
    if (!ReadRestrictions.parse(identifier.toString(), loaded.readRestrictions(), schema).isEmpty()) {
      throw new io.icebergscan.planning.exceptions.RestrictedReadException(identifier.toString(),
          "an engine's read through ScanPlanningCatalog", "the engine reads the planned files with its own readers, "
              + "which would not enforce the restrictions; read the rows with IcebergScanPlanner.readRows");
    }
  }

  /** The split settings of a plan of {@code table}: its {@code read.split.*} properties, and the override if set. */
  public SplitSettings splitSettings(IcebergTable table) {
    SplitSettings settings = SplitSettings.of(table.properties());
    return this.splitSize == null ? settings : settings.withSplitSize(this.splitSize);
  }

  /** Shuts down the reading pool this planner made itself (not an executor it was given, nor the planner). */
  @Override
  public void close() {
    if (this.ownedExecutor != null) {
      this.ownedExecutor.shutdown();
    }
  }

  private static TaskConverter converter(IcebergTable table, ResolvedScan scan) {
    return new TaskConverter(table.tableMetadata(), scan.schema(), scan.caseSensitive(), scan.shape().restricted());
  }

  /** How a plan's files are opened: the table's own FileIO, or one per plan over the credentials it vended. */
  private interface PlanFiles {

    /** The plan's FileIO, made without blocking: nothing is loaded until a file is opened. */
    FileIO open(List<StorageCredential> credentials, @Nullable String planId);
  }

  /**
   * How the plans of {@code table} open their files: with the table's own FileIO, or one per plan over its
   * credentials, refreshed as {@code planner}'s caller through the catalog's {@code credentials} endpoint when it has one (for a table of
   * {@link ScanPlanningCatalog}, the plan's own when it vends any, else the table's). Blocks for the
   * catalog's configuration, which the planner has discovered by the time a plan is made.
   */
  private PlanFiles files(ScanPlanner planner, IcebergTable table) {
    FileIO own = table.io();
    if (own != null && !table.plansVendCredentials()) {
      return (credentials, planId) -> own;
    }
    // as Iceberg's client merges them: the catalog's, the application's over them, the table's over both
    Map<String, String> properties = new LinkedHashMap<>(planner.catalog().properties());
    properties.putAll(this.fileIoProperties);
    properties.putAll(table.tableConfig());
    boolean refreshes = planner.catalog().supports(Endpoint.LOAD_CREDENTIALS);
    return (credentials, planId) -> {
      if (own != null && credentials.isEmpty()) {
        return own;
      }
      Supplier<List<StorageCredential>> refresh = refreshes
          ? () -> planner.catalog().loadCredentials(table.catalogIdentifier(), planId) : null;
      String owner = (planId == null ? "a plan" : "plan " + planId) + " of " + table.identifier();
      return new PlanFileIO(owner, properties, credentials, refresh, this.clock);
    };
  }

  /** Threads made as a read needs them, up to {@code threads}, daemons that end when idle. */
  private static ExecutorService readingPool(int threads) {
    AtomicInteger made = new AtomicInteger();
    ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS,
        new LinkedBlockingQueue<>(), task -> {
          Thread thread = new Thread(task, "iceberg-scan-planning-read-" + made.incrementAndGet());
          thread.setDaemon(true);
          return thread;
        });
    pool.allowCoreThreadTimeOut(true);
    return pool;
  }

  /** Builds an {@link IcebergScanPlanner}. */
  public static final class Builder {

    /** Default of {@link #vendedCredentials}: table loads ask the catalog for vended credentials. */
    public static final boolean DEFAULT_VENDED_CREDENTIALS = true;
    /** Default of {@link #scanReports}: each plan reports its scan to a catalog that takes reports. */
    public static final boolean DEFAULT_SCAN_REPORTS = true;
    /**
     * Default of {@link #readConcurrency}: reading waits on storage far more than it computes, so tasks at once
     * pay well beyond the processors (docs/benchmarks.md measures it).
     */
    public static final int DEFAULT_READ_CONCURRENCY = 16;
    /**
     * Default of {@link #readBufferBytes}, 64 MiB: enough for a read in task order to decode ahead as fast as in
     * no order on the machines docs/benchmarks.md measures.
     */
    public static final long DEFAULT_READ_BUFFER_BYTES = 64L * 1024 * 1024;

    private final ScanPlanner planner;
    private final Map<String, String> fileIoProperties = new LinkedHashMap<>();
    private boolean vendedCredentials = DEFAULT_VENDED_CREDENTIALS;
    private @Nullable Long splitSize;
    private boolean scanReports = DEFAULT_SCAN_REPORTS;
    private Clock clock = Clock.systemUTC();
    private int readConcurrency = DEFAULT_READ_CONCURRENCY;
    private long readBufferBytes = DEFAULT_READ_BUFFER_BYTES;
    private @Nullable Executor readExecutor;

    private Builder(ScanPlanner planner) {
      this.planner = Objects.requireNonNull(planner, "planner");
    }

    /**
     * FileIO properties ({@code io-impl}, {@code s3.endpoint}, …) over the catalog's own configuration and beneath
     * the table's {@code config} and the vended credentials. Without {@code io-impl} from any of them, Iceberg's
     * {@code ResolvingFileIO}.
     */
    public Builder fileIoProperties(Map<String, String> properties) {
      this.fileIoProperties.putAll(properties);
      return this;
    }

    /** Whether table loads ask the catalog for vended credentials (default true). */
    public Builder vendedCredentials(boolean vendedCredentials) {
      this.vendedCredentials = vendedCredentials;
      return this;
    }

    /** A target split size for {@link #splitSettings}, in place of the table's {@code read.split.target-size}. */
    public Builder splitSize(long splitSize) {
      if (splitSize <= 0) {
        throw new IllegalArgumentException("splitSize must be positive: " + splitSize);
      }
      this.splitSize = splitSize;
      return this;
    }

    /**
     * Whether each {@link #plan} sends the catalog a {@code ScanReport} when it advertises the {@code metrics}
     * endpoint (default true). A report that fails never fails the plan.
     */
    public Builder scanReports(boolean scanReports) {
      this.scanReports = scanReports;
      return this;
    }

    /**
     * How many tasks a read of rows reads at once (default {@value #DEFAULT_READ_CONCURRENCY}): at most this many
     * files of a read are open, and twice as many tasks' rows are read ahead.
     */
    public Builder readConcurrency(int readConcurrency) {
      if (readConcurrency < 1) {
        throw new IllegalArgumentException("readConcurrency must be at least 1: " + readConcurrency);
      }
      this.readConcurrency = readConcurrency;
      return this;
    }

    /**
     * What the rows a read holds that the reader has not taken may weigh at most, in bytes, across all the tasks it
     * reads ahead (default {@value #DEFAULT_READ_BUFFER_BYTES}, 64 MiB). A row's weight is estimated from the rows
     * read: of each chunk a job reads, the first row and one in 128 are weighed (their values as Iceberg's generic
     * records hold them), the rest taken to weigh as much on average. Tasks after the one being handed over keep
     * reading while the rows held weigh less, so in task order the read concurrency decodes in parallel; the
     * earliest task may always hold 1,024 rows of its own besides, so a read never waits on the budget, however
     * small. In task order, a task read ahead is only handed over once every task before it was: to keep every
     * reading thread busy, the budget must hold about a task's rows for each thread the machine runs at once.
     */
    public Builder readBufferBytes(long readBufferBytes) {
      if (readBufferBytes < 1) {
        throw new IllegalArgumentException("readBufferBytes must be at least 1: " + readBufferBytes);
      }
      this.readBufferBytes = readBufferBytes;
      return this;
    }

    /**
     * The executor rows are read on, shared by every read of this planner; it is not shut down by
     * {@link IcebergScanPlanner#close()}. By default, a pool of {@link #readConcurrency} threads of the planner's
     * own. Reads never block its threads waiting for a consumer: a read whose rows are not taken gives its thread
     * back.
     */
    public Builder readExecutor(Executor readExecutor) {
      this.readExecutor = Objects.requireNonNull(readExecutor, "readExecutor");
      return this;
    }

    /** The clock credential expiry is read against (a fixed one in tests). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    public IcebergScanPlanner build() {
      return new IcebergScanPlanner(this);
    }
  }
}
