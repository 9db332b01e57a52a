package io.icebergscan.planning.iceberg;

import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

import io.icebergscan.planning.LoadedTable;
import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.TableIdentifier;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.model.StorageCredential;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Schema;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableMetadataParser;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.exceptions.ValidationException;
import org.apache.iceberg.expressions.Binder;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;

/**
 * Plans with a {@link ScanPlanner} and hands the plan over as Apache Iceberg's own types, ready for Iceberg's
 * readers and for engines: table metadata loaded through the planner's HTTP client, {@link FileScanTask}s,
 * split {@code CombinedScanTask}s, and rows with deletes applied.
 *
 * <pre>{@code
 * IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).build();
 * IcebergTable table = iceberg.loadTable(TableIdentifier.of("db", "events"));
 * try (IcebergScanPlan plan = iceberg.plan(table, ScanRequest.builder().filter(RowFilter.greaterThan("id", 5)).build());
 *     CloseableIterable<Record> rows = plan.rows()) {
 *   rows.forEach(System.out::println);
 * }
 * }</pre>
 *
 * <p>Thread-safe; it owns nothing but what each plan opens, so there is nothing to close.
 */
public final class IcebergScanPlanner {

  /** Apache Iceberg's catalog property naming the FileIO implementation. */
  static final String FILE_IO_IMPL = "io-impl";

  private final ScanPlanner planner;
  private final Map<String, String> fileIoProperties;
  private final boolean vendedCredentials;
  private final @Nullable Long splitSize;
  private final boolean scanReports;
  private final Clock clock;

  private IcebergScanPlanner(Builder builder) {
    this.planner = builder.planner;
    this.fileIoProperties = Map.copyOf(builder.fileIoProperties);
    this.vendedCredentials = builder.vendedCredentials;
    this.splitSize = builder.splitSize;
    this.scanReports = builder.scanReports;
    this.clock = builder.clock;
  }

  public static Builder builder(ScanPlanner planner) {
    return new Builder(planner);
  }

  /** The planner plans go through. */
  public ScanPlanner planner() {
    return this.planner;
  }

  /**
   * Loads the table's metadata with the catalog's {@code loadTable} call, through the planner's HTTP client (its
   * authentication, TLS, retries and observation), asking for vended credentials unless that is turned off.
   *
   * @throws io.icebergscan.planning.exceptions.ScanPlanningException (a subtype) when the catalog fails or its
   *     answer is not table metadata
   */
  public IcebergTable loadTable(TableIdentifier identifier) {
    LoadedTable loaded = this.planner.loadTable(identifier, this.vendedCredentials);
    TableMetadata metadata;
    try {
      metadata = TableMetadataParser.fromJson(loaded.metadataLocation(), loaded.metadataJson());
    }
    catch (RuntimeException notMetadata) {
      throw new MalformedResponseException("the metadata of " + identifier + " is not Iceberg table metadata: "
          + notMetadata.getMessage(), "metadata", null, notMetadata);
    }
    return new IcebergTable(identifier, metadata, loaded.config(), loaded.storageCredentials(), null);
  }

  /**
   * Plans a scan and converts every task.
   *
   * @throws IllegalArgumentException when the request's filter or {@code select} does not fit the table's schema,
   *     before any request is made
   * @throws io.icebergscan.planning.exceptions.ScanPlanningException (a subtype) when the plan fails or a task
   *     does not fit the table
   */
  public IcebergScanPlan plan(IcebergTable table, ScanRequest request) {
    Scan scan = scan(table, request);
    ScanPlan plan = this.planner.plan(table.identifier(), request);
    List<FileScanTask> tasks = new ArrayList<>(plan.tasks().size());
    plan.tasks().forEach(task -> tasks.add(scan.converter().convert(task)));
    if (this.scanReports) {
      ScanReports.send(this.planner, table, request, scan.projection(), plan, tasks);
    }
    FileIO io = io(table, plan.storageCredentials(), plan.planId());
    return new IcebergScanPlan(table, plan, tasks, new TaskReader(io, scan.schema(), scan.projection(),
        scan.caseSensitive()), splitSettings(table), io, table.io() == null);
  }

  /** Plans a scan and streams its tasks in walk order, as {@link ScanPlanner#planTasks} does. */
  public Flux<FileScanTask> planTasks(IcebergTable table, ScanRequest request) {
    return Flux.defer(() -> {
      Scan scan = scan(table, request);
      return this.planner.planTasks(table.identifier(), request).map(scan.converter()::convert);
    });
  }

  /**
   * Plans a scan and reads its rows as the tasks arrive, holding only the tasks the planner streams ahead:
   * memory stays bounded whatever the plan's size. Closing the rows before the end abandons the plan. Files open
   * with the credentials vended with the table (a stream does not carry the plan's), and no scan report is
   * sent: that is {@link #plan}'s, which knows the whole plan.
   */
  public CloseableIterable<Record> readRows(IcebergTable table, ScanRequest request) {
    Scan scan = scan(table, request);
    FileIO io = io(table, table.storageCredentials(), null);
    TaskReader reader = new TaskReader(io, scan.schema(), scan.projection(), scan.caseSensitive());
    return new StreamedRows(this.planner.planTasks(table.identifier(), request).map(scan.converter()::convert),
        reader, table.io() == null ? io : null);
  }

  /** The split settings of a plan of {@code table}: its {@code read.split.*} properties, and the override if set. */
  public SplitSettings splitSettings(IcebergTable table) {
    SplitSettings settings = SplitSettings.of(table.properties());
    return this.splitSize == null ? settings : settings.withSplitSize(this.splitSize);
  }

  private record Scan(Schema schema, Schema projection, boolean caseSensitive, TaskConverter converter) {
  }

  /** What the request reads, checked against the table before anything is sent. */
  private static Scan scan(IcebergTable table, ScanRequest request) {
    boolean caseSensitive = !Boolean.FALSE.equals(request.caseSensitive());
    Schema schema = request.snapshotId() != null && Boolean.TRUE.equals(request.useSnapshotSchema())
        ? table.schemaOf(request.snapshotId()) : table.schema();
    if (request.filter() != null) {
      Expression filter;
      try {
        filter = ExpressionParser.fromJson(request.filter());
      }
      catch (RuntimeException invalid) {
        throw new IllegalArgumentException("the filter is not an Iceberg expression: " + invalid.getMessage(),
            invalid);
      }
      try {
        Binder.bind(schema.asStruct(), filter, caseSensitive);
      }
      catch (RuntimeException invalid) {
        // a ValidationException names an unknown column; a literal of the wrong type fails in its parser, which
        // names only the literal: say which column it was compared with
        throw new IllegalArgumentException("the filter does not fit the schema of " + table.identifier() + ": "
            + (invalid instanceof ValidationException ? "" : "a value for column '"
                + FilterTerms.failing(filter, schema, caseSensitive) + "' has the wrong type: ")
            + invalid.getMessage(), invalid);
      }
    }
    Schema projection = schema;
    if (request.select() != null) {
      try {
        projection = caseSensitive ? schema.select(request.select()) : schema.caseInsensitiveSelect(request.select());
      }
      catch (IllegalArgumentException | ValidationException invalid) {
        throw new IllegalArgumentException("select " + request.select() + " does not fit the schema of "
            + table.identifier() + ": " + invalid.getMessage(), invalid);
      }
      List<String> missing = request.select().stream().filter(name -> caseSensitive
          ? schema.findField(name) == null : schema.caseInsensitiveFindField(name) == null).toList();
      if (!missing.isEmpty()) {
        throw new IllegalArgumentException("select names no column of " + table.identifier() + ": " + missing);
      }
    }
    return new Scan(schema, projection, caseSensitive, new TaskConverter(table.metadata(), caseSensitive));
  }

  /**
   * The plan's FileIO: the given table's, or one over the plan's credentials (the table's when the plan vended
   * none), refreshed through the catalog's {@code credentials} endpoint when it has one.
   */
  private FileIO io(IcebergTable table, List<StorageCredential> credentials, @Nullable String planId) {
    if (table.io() != null) {
      return table.io();
    }
    // as Iceberg's client merges them: the catalog's, the application's over them, the table's over both
    Map<String, String> properties = new LinkedHashMap<>(this.planner.catalogProperties());
    properties.putAll(this.fileIoProperties);
    properties.putAll(table.config());
    Supplier<List<StorageCredential>> refresh = this.planner.supportsEndpoint(ScanPlanner.LOAD_CREDENTIALS_ENDPOINT)
        ? () -> this.planner.loadCredentials(table.identifier(), planId) : null;
    return new PlanFileIO(properties, credentials.isEmpty() ? table.storageCredentials() : credentials, refresh,
        this.clock);
  }

  /** Builds an {@link IcebergScanPlanner}. */
  public static final class Builder {

    /** Default of {@link #vendedCredentials}: table loads ask the catalog for vended credentials. */
    public static final boolean DEFAULT_VENDED_CREDENTIALS = true;
    /** Default of {@link #scanReports}: each plan reports its scan to a catalog that takes reports. */
    public static final boolean DEFAULT_SCAN_REPORTS = true;

    private final ScanPlanner planner;
    private final Map<String, String> fileIoProperties = new LinkedHashMap<>();
    private boolean vendedCredentials = DEFAULT_VENDED_CREDENTIALS;
    private @Nullable Long splitSize;
    private boolean scanReports = DEFAULT_SCAN_REPORTS;
    private Clock clock = Clock.systemUTC();

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
