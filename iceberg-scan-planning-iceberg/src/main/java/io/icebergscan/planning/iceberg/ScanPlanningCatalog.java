package io.icebergscan.planning.iceberg;

import java.io.Closeable;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.auth.OAuth2ClientCredentials;
import org.apache.iceberg.BaseMetadataTable;
import org.apache.iceberg.BaseTable;
import org.apache.iceberg.BaseTransaction;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SortOrder;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.Transaction;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.NamespaceNotEmptyException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.hadoop.Configurable;
import org.apache.iceberg.rest.RESTCatalog;
import org.jspecify.annotations.Nullable;

/**
 * An Apache Iceberg {@link Catalog} whose tables plan their scans on the REST catalog's server side with this
 * project's planner, for engines that take a catalog class by name (Spark's and Flink's {@code catalog-impl}):
 *
 * <pre>{@code
 * spark.sql.catalog.lake = org.apache.iceberg.spark.SparkCatalog
 * spark.sql.catalog.lake.catalog-impl = io.icebergscan.planning.iceberg.ScanPlanningCatalog
 * spark.sql.catalog.lake.uri = https://catalog.example.com/api/catalog
 * spark.sql.catalog.lake.scan-planning.max-concurrency = 16
 * }</pre>
 *
 * <p>Everything but scans is Iceberg's {@link RESTCatalog}, initialized with the same properties: namespaces, table
 * metadata, commits, the table's FileIO and its metrics reporter. A table's {@code newScan()} and
 * {@code newBatchScan()} plan through an {@link IcebergScanPlanner} ({@link ScanPlanningScan} says how each scan
 * option is honoured); {@code planFiles()} then hands back the planner's tasks, in the order of the serial
 * breadth-first walk, and {@code planTasks()} Iceberg's own split planning of them. A plan vends its credentials to
 * the scan's FileIO, which engines ship to their executors; each plan sends its {@code ScanReport}.
 *
 * <p>A table whose load answer carries read restrictions (row filters and column masks the catalog requires its
 * readers to enforce) is refused when it is loaded, registered, created or replaced (a replacement keeps its
 * snapshots), before any of its files is read, with a {@code RestrictedReadException} (an
 * {@code InvalidReadRestrictionsException} when they are not even valid): an engine reads the planned files with its
 * own readers, which would not enforce them. Iceberg's {@code RESTCatalog}
 * ignores the member, so each such call asks the catalog again, through this planner, whether the table is
 * restricted for this identity. Read a restricted table's rows with {@link IcebergScanPlanner#readRows}.
 *
 * <p>The planner is configured from the catalog properties Iceberg's {@code RESTCatalog} takes:
 * <ul>
 *   <li>{@code uri} (required), {@code warehouse} and {@code prefix};</li>
 *   <li>{@code token}: sent as a bearer token; or {@code credential} ({@code client-id:client-secret}; a secret
 *       without a client id is refused), exchanged for tokens at {@code oauth2-server-uri} (by default {@code {uri}/v1/oauth/tokens})
 *       with {@code scope} (by default {@code catalog}): this needs {@code spring-security-oauth2-client} on the class
 *       path;</li>
 *   <li>{@code header.<name>}: a header sent with every request;</li>
 *   <li>{@value #MAX_CONCURRENCY}: the plan-task fetches in flight per plan (by default the available
 *       processors).</li>
 * </ul>
 * Or an application hands it the {@link IcebergScanPlanner} its tables plan with ({@link
 * #ScanPlanningCatalog(IcebergScanPlanner)}), with the observation, authentication and FileIO settings it built, and
 * closes that planner itself.
 */
public class ScanPlanningCatalog implements Catalog, SupportsNamespaces, Configurable<Object>, Closeable {

  /** The catalog property of the plan-task fetches in flight per plan. */
  public static final String MAX_CONCURRENCY = "scan-planning.max-concurrency";

  private static final String HEADER_PREFIX = "header.";
  private static final String DEFAULT_SCOPE = "catalog";

  private final @Nullable IcebergScanPlanner given;
  private final RESTCatalog delegate = new RESTCatalog();
  private @Nullable IcebergScanPlanner planner;
  private @Nullable ScanPlanner ownPlanner;
  private String name = "scan_planning";

  /** The catalog engines make by name: its planner is configured by {@link #initialize}'s properties. */
  public ScanPlanningCatalog() {
    this.given = null;
  }

  /** A catalog whose tables plan with {@code planner}, which {@link #close()} leaves open. */
  public ScanPlanningCatalog(IcebergScanPlanner planner) {
    this.given = Objects.requireNonNull(planner, "planner");
  }

  /**
   * Initializes Iceberg's {@code RESTCatalog} with these properties and, unless one was given, this catalog's
   * planner.
   *
   * @throws IllegalArgumentException when {@code uri} is missing or a planner property is not valid, naming it
   */
  @Override
  public void initialize(String name, Map<String, String> properties) {
    Objects.requireNonNull(properties, "properties");
    this.name = Objects.requireNonNull(name, "name");
    IcebergScanPlanner planning = this.given;
    if (planning == null) {
      this.ownPlanner = planner(properties);
      planning = IcebergScanPlanner.builder(this.ownPlanner).build();
    }
    this.planner = planning;
    this.delegate.initialize(name, properties);
  }

  /** The planner the catalog properties describe. */
  static ScanPlanner planner(Map<String, String> properties) {
    String uri = properties.get("uri");
    if (uri == null || uri.isBlank()) {
      throw new IllegalArgumentException("the catalog property 'uri' is required: the REST catalog's base URI");
    }
    ScanPlanner.Builder builder = ScanPlanner.builder().uri(uri)
        .warehouse(properties.get("warehouse"))
        .prefix(properties.get("prefix"));
    String concurrency = properties.get(MAX_CONCURRENCY);
    if (concurrency != null) {
      try {
        builder.maxConcurrency(Integer.parseInt(concurrency.strip()));
      }
      catch (NumberFormatException notANumber) {
        throw new IllegalArgumentException("the catalog property '" + MAX_CONCURRENCY + "' must be a whole number: '"
            + concurrency + "'");
      }
    }
    properties.forEach((key, value) -> {
      if (key.startsWith(HEADER_PREFIX) && key.length() > HEADER_PREFIX.length()) {
        builder.header(key.substring(HEADER_PREFIX.length()), value);
      }
    });
    String token = properties.get("token");
    String credential = properties.get("credential");
    if (token != null) {
      builder.header("Authorization", "Bearer " + token);
    }
    else if (credential != null) {
      builder.filter(clientCredentials(uri, credential, properties));
    }
    return builder.build();
  }

  private static OAuth2ClientCredentials clientCredentials(String uri, String credential,
      Map<String, String> properties) {
    try {
      Class.forName("org.springframework.security.oauth2.client.OAuth2AuthorizedClient", false,
          ScanPlanningCatalog.class.getClassLoader());
    }
    catch (ClassNotFoundException missing) {
      throw new IllegalArgumentException("the catalog property 'credential' needs "
          + "org.springframework.security:spring-security-oauth2-client on the class path, to exchange it for tokens");
    }
    int colon = credential.indexOf(':');
    if (colon <= 0) {
      // Iceberg's client sends a secret alone without a client id; this planner's OAuth2 client needs one
      throw new IllegalArgumentException("the catalog property 'credential' must be client-id:client-secret for "
          + "this planner, which sends a client id with the secret");
    }
    String tokenUri = properties.getOrDefault("oauth2-server-uri",
        uri.replaceAll("/+$", "") + "/v1/oauth/tokens");
    return OAuth2ClientCredentials.builder().tokenUri(tokenUri).clientId(credential.substring(0, colon))
        .clientSecret(credential.substring(colon + 1)).scope(properties.getOrDefault("scope", DEFAULT_SCOPE))
        .build();
  }

  @Override
  public String name() {
    return this.name;
  }

  /**
   * The table as Iceberg's {@code RESTCatalog} loads it, whose scans plan with this catalog's planner; a metadata
   * table ({@code db.events.files}, say) as that catalog gives it.
   */
  @Override
  public Table loadTable(TableIdentifier identifier) {
    IcebergScanPlanner planning = planning();
    return planned(planning, identifier, this.delegate.loadTable(identifier));
  }

  /**
   * The table, whose scans plan with this catalog's planner, once its catalog has said it does not restrict reads
   * of it; a metadata table ({@code db.events.files}) once it has said so of the table it describes.
   *
   * @throws io.icebergscan.planning.exceptions.RestrictedReadException when it does restrict them
   */
  private static Table planned(IcebergScanPlanner planning, TableIdentifier identifier, Table loaded) {
    if (loaded instanceof BaseTable base) {
      planning.refuseRestricted(identifier, base.schema());
      return new ScanPlanningTable(base, identifier, planning);
    }
    if (loaded instanceof BaseMetadataTable metadataTable && identifier.namespace().levels().length > 0) {
      // the statistics, partitions and files of a metadata table describe the raw rows of its table
      String[] levels = identifier.namespace().levels();
      TableIdentifier described = TableIdentifier.of(Namespace.of(java.util.Arrays.copyOf(levels,
          levels.length - 1)), levels[levels.length - 1]);
      planning.refuseRestricted(described, metadataTable.table().schema());
    }
    return loaded;
  }

  private IcebergScanPlanner planning() {
    IcebergScanPlanner planning = this.planner;
    if (planning == null) {
      throw new IllegalStateException("catalog " + this.name + " is not initialized: call initialize(name, "
          + "properties) first");
    }
    return planning;
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    return this.delegate.listTables(namespace);
  }

  @Override
  public boolean tableExists(TableIdentifier identifier) {
    return this.delegate.tableExists(identifier);
  }

  @Override
  public TableBuilder buildTable(TableIdentifier identifier, Schema schema) {
    return new PlannedTableBuilder(identifier, this.delegate.buildTable(identifier, schema));
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    return this.delegate.dropTable(identifier, purge);
  }

  @Override
  public void renameTable(TableIdentifier from, TableIdentifier to) {
    this.delegate.renameTable(from, to);
  }

  @Override
  public Table registerTable(TableIdentifier identifier, String metadataFileLocation) {
    IcebergScanPlanner planning = planning();
    return planned(planning, identifier, this.delegate.registerTable(identifier, metadataFileLocation));
  }

  @Override
  public void invalidateTable(TableIdentifier identifier) {
    this.delegate.invalidateTable(identifier);
  }

  @Override
  public void createNamespace(Namespace namespace, Map<String, String> metadata) {
    this.delegate.createNamespace(namespace, metadata);
  }

  @Override
  public List<Namespace> listNamespaces(Namespace namespace) throws NoSuchNamespaceException {
    return this.delegate.listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(Namespace namespace) throws NoSuchNamespaceException {
    return this.delegate.loadNamespaceMetadata(namespace);
  }

  @Override
  public boolean dropNamespace(Namespace namespace) throws NamespaceNotEmptyException {
    return this.delegate.dropNamespace(namespace);
  }

  @Override
  public boolean setProperties(Namespace namespace, Map<String, String> properties) throws NoSuchNamespaceException {
    return this.delegate.setProperties(namespace, properties);
  }

  @Override
  public boolean removeProperties(Namespace namespace, Set<String> properties) throws NoSuchNamespaceException {
    return this.delegate.removeProperties(namespace, properties);
  }

  @Override
  public boolean namespaceExists(Namespace namespace) {
    return this.delegate.namespaceExists(namespace);
  }

  /** Hadoop's configuration, for Iceberg's {@code RESTCatalog} and the FileIOs it loads. */
  @Override
  public void setConf(Object conf) {
    this.delegate.setConf(conf);
  }

  /** Closes Iceberg's {@code RESTCatalog} and the planner this catalog made (not one it was given). */
  @Override
  public void close() throws IOException {
    List<AutoCloseable> closing = new ArrayList<>();
    closing.add(this.delegate);
    if (this.ownPlanner != null) {
      closing.add(Objects.requireNonNull(this.planner));
      closing.add(this.ownPlanner);
    }
    IOException failure = null;
    for (AutoCloseable resource : closing) {
      try {
        resource.close();
      }
      catch (Exception closeFailed) {
        if (failure == null) {
          failure = new IOException("closing catalog " + this.name + " failed", closeFailed);
        }
        else {
          failure.addSuppressed(closeFailed);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public String toString() {
    return "ScanPlanningCatalog[" + this.name + "]";
  }

  /** Iceberg's table builder, whose created table plans with this catalog's planner. */
  private final class PlannedTableBuilder implements TableBuilder {

    private final TableIdentifier identifier;
    private final TableBuilder builder;

    PlannedTableBuilder(TableIdentifier identifier, TableBuilder builder) {
      this.identifier = identifier;
      this.builder = builder;
    }

    @Override
    public TableBuilder withPartitionSpec(PartitionSpec spec) {
      this.builder.withPartitionSpec(spec);
      return this;
    }

    @Override
    public TableBuilder withSortOrder(SortOrder sortOrder) {
      this.builder.withSortOrder(sortOrder);
      return this;
    }

    @Override
    public TableBuilder withLocation(String location) {
      this.builder.withLocation(location);
      return this;
    }

    @Override
    public TableBuilder withProperties(Map<String, String> properties) {
      this.builder.withProperties(properties);
      return this;
    }

    @Override
    public TableBuilder withProperty(String key, String value) {
      this.builder.withProperty(key, value);
      return this;
    }

    @Override
    public Table create() {
      return planned(planning(), this.identifier, this.builder.create());
    }

    @Override
    public Transaction createTransaction() {
      return this.builder.createTransaction();
    }

    @Override
    public Transaction replaceTransaction() {
      return replacing(this.builder.replaceTransaction());
    }

    @Override
    public Transaction createOrReplaceTransaction() {
      return replacing(this.builder.createOrReplaceTransaction());
    }

    /**
     * The transaction, once the catalog has said it does not restrict reads of the table it replaces: the
     * replacement's table keeps that table's snapshots, and its FileIO opens their files.
     *
     * @throws io.icebergscan.planning.exceptions.RestrictedReadException when it does restrict them
     */
    private Transaction replacing(Transaction transaction) {
      if (!(transaction instanceof BaseTransaction base)) {
        throw new IllegalStateException("Iceberg's RESTCatalog made a " + transaction.getClass().getName()
            + ", whose replaced table this catalog cannot check for read restrictions");
      }
      TableMetadata replaced = base.underlyingOps().current();
      if (replaced != null) {
        planning().refuseRestricted(this.identifier, replaced.schema());
      }
      return transaction;
    }
  }
}
