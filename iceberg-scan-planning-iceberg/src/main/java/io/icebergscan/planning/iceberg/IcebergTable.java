package io.icebergscan.planning.iceberg;

import java.util.List;
import java.util.Map;
import java.util.Objects;

import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.model.StorageCredential;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;

/**
 * A table as this module plans and reads it: its Apache Iceberg metadata, and what the catalog said along with it
 * when it was loaded (the table-level {@code config}, {@code storage-credentials} and {@code read-restrictions}), or
 * the {@link FileIO} of an Iceberg {@link Table} the application already has.
 *
 * <p>A table whose {@linkplain #readRestrictions() read restrictions} are not empty hands out nothing that describes
 * or opens its raw data: {@link #metadata()}, {@link #config()} and {@link #storageCredentials()} throw a
 * {@link RestrictedReadException}, and {@link #schema()} leaves out the defaults of masked fields. Its rows are read
 * with the restrictions enforced ({@link IcebergScanPlanner#readRows}, {@link IcebergScanPlan#rows()}).
 */
public final class IcebergTable {

  private final TableIdentifier identifier;
  private final TableMetadata metadata;
  private final Map<String, String> config;
  private final List<StorageCredential> storageCredentials;
  private final @Nullable FileIO fileIo;
  /** Whether a plan that vends credentials reads with them rather than with {@link #fileIo}. */
  private final boolean plansVendCredentials;
  private final ReadRestrictions readRestrictions;
  /** The caller the table was loaded as, {@code null} for the planner's own identity: its plans and reads run so. */
  private final @Nullable CatalogCredentials loadedAs;

  IcebergTable(TableIdentifier identifier, TableMetadata metadata, Map<String, String> config,
      List<StorageCredential> storageCredentials, @Nullable FileIO io, ReadRestrictions readRestrictions) {
    this(identifier, metadata, config, storageCredentials, io, io == null, readRestrictions, null);
  }

  /** A table loaded from the catalog as {@code loadedAs}, {@code null} for the planner's own identity. */
  IcebergTable(TableIdentifier identifier, TableMetadata metadata, Map<String, String> config,
      List<StorageCredential> storageCredentials, ReadRestrictions readRestrictions,
      @Nullable CatalogCredentials loadedAs) {
    this(identifier, metadata, config, storageCredentials, null, true, readRestrictions, loadedAs);
  }

  private IcebergTable(TableIdentifier identifier, TableMetadata metadata, Map<String, String> config,
      List<StorageCredential> storageCredentials, @Nullable FileIO io, boolean plansVendCredentials,
      ReadRestrictions readRestrictions, @Nullable CatalogCredentials loadedAs) {
    this.identifier = Objects.requireNonNull(identifier, "identifier");
    this.metadata = Objects.requireNonNull(metadata, "metadata");
    this.config = Map.copyOf(config);
    this.storageCredentials = List.copyOf(storageCredentials);
    this.fileIo = io;
    this.plansVendCredentials = plansVendCredentials;
    this.readRestrictions = Objects.requireNonNull(readRestrictions, "readRestrictions");
    this.loadedAs = loadedAs;
  }

  /**
   * A table Iceberg's {@code RESTCatalog} loaded for {@link ScanPlanningCatalog}, as Iceberg's {@code RESTTableScan}
   * reads it: a plan that vends credentials reads with them, over the properties of the table's FileIO (the catalog's
   * and the table's configuration, as that catalog merged them); a plan that vends none, with the table's FileIO.
   */
  static IcebergTable ofCatalogTable(TableIdentifier identifier, TableMetadata metadata, FileIO io) {
    return new IcebergTable(identifier, metadata, io.properties(), List.of(), io, true, ReadRestrictions.NONE, null);
  }

  /**
   * A table from an Iceberg {@link Table} the application loaded itself (any catalog): plans use its metadata as
   * it is now, and reads use its {@link Table#io() FileIO}. It has no read restrictions, since no load answer of this
   * planner's brought it: a table a catalog governs is loaded with {@link IcebergScanPlanner#loadTable}, which enforces
   * them.
   *
   * @param identifier the table's name in the catalog the planner plans on
   * @throws IllegalArgumentException when the table has no metadata of its own (a metadata table, say)
   */
  public static IcebergTable of(TableIdentifier identifier, Table table) {
    if (!(table instanceof HasTableOperations operations)) {
      throw new IllegalArgumentException(table.name() + " is not a table with metadata of its own ("
          + table.getClass().getName() + ")");
    }
    return new IcebergTable(identifier, operations.operations().current(), Map.of(), List.of(), table.io(),
        ReadRestrictions.NONE);
  }

  /** The table's name in the catalog the planner plans on. */
  public TableIdentifier identifier() {
    return this.identifier;
  }

  /** The same name as the core's catalog calls take it. */
  io.icebergscan.planning.model.TableIdentifier catalogIdentifier() {
    return catalogIdentifier(this.identifier);
  }

  /** An Iceberg table name as the core's catalog calls take it. */
  static io.icebergscan.planning.model.TableIdentifier catalogIdentifier(TableIdentifier identifier) {
    return io.icebergscan.planning.model.TableIdentifier.of(List.of(identifier.namespace().levels()),
        identifier.name());
  }

  /**
   * The table's metadata as the catalog sent it.
   *
   * @throws RestrictedReadException for a table whose reads are restricted: its snapshot summaries, statistics
   *     files, manifests and column defaults describe the raw rows
   */
  public TableMetadata metadata() {
    refuseIfRestricted("IcebergTable.metadata()", "its snapshot summaries, statistics files, manifests and column "
        + "defaults describe the raw rows");
    return this.metadata;
  }

  /** The metadata, for this module's planning, whatever the restrictions. */
  TableMetadata tableMetadata() {
    return this.metadata;
  }

  /**
   * The table's current schema; for a table whose reads are restricted, without the defaults of masked fields (an
   * initial default is the raw value of the rows written before its field was added).
   */
  public Schema schema() {
    return this.readRestrictions.isEmpty() ? this.metadata.schema()
        : this.readRestrictions.withoutMaskedDefaults(this.metadata.schema());
  }

  /** The current schema as it is, for this module's planning. */
  Schema currentSchema() {
    return this.metadata.schema();
  }

  /**
   * The read restrictions the catalog sent with the table, for this planner's identity: empty when it sent none.
   * Every read of the table's rows enforces them.
   */
  public ReadRestrictions readRestrictions() {
    return this.readRestrictions;
  }

  /**
   * The snapshot {@code scan} reads, as {@link IcebergScanPlanner#plan} resolves its snapshot, ref or time:
   * {@code null} for an incremental scan or a table without snapshots. Allowed whatever the read restrictions: a
   * snapshot's id describes no rows.
   *
   * @throws IllegalArgumentException when the scan does not fit the table
   */
  public @Nullable Long snapshotIdOf(IcebergScan scan) {
    return ResolvedScan.of(this, scan).snapshotId();
  }

  /**
   * The schema {@code scan} reads with (a time travel's snapshot's, else the current one), as {@link #schema()} gives
   * it for a table whose reads are restricted.
   *
   * @throws IllegalArgumentException when the scan does not fit the table
   */
  public Schema schemaOf(IcebergScan scan) {
    Schema schema = ResolvedScan.of(this, scan).schema();
    return this.readRestrictions.isEmpty() ? schema : this.readRestrictions.withoutMaskedDefaults(schema);
  }

  /** Whether the table, as it was loaded, has the snapshot {@code snapshotId} (one expired since it was committed not). */
  public boolean hasSnapshot(long snapshotId) {
    return this.metadata.snapshot(snapshotId) != null;
  }

  /** The schema a scan of {@code snapshotId} reads with: that snapshot's schema, or the current one if unknown. */
  Schema schemaOf(long snapshotId) {
    Snapshot snapshot = this.metadata.snapshot(snapshotId);
    if (snapshot == null || snapshot.schemaId() == null) {
      return this.metadata.schema();
    }
    Schema schema = this.metadata.schemasById().get(snapshot.schemaId());
    return schema != null ? schema : this.metadata.schema();
  }

  /** The table's properties, {@code read.split.*} among them. */
  public Map<String, String> properties() {
    return this.metadata.properties();
  }

  /**
   * The table-level {@code config} of the catalog's load answer (FileIO settings, say); empty otherwise.
   *
   * @throws RestrictedReadException for a table whose reads are restricted: it may hold what opens the raw files
   */
  public Map<String, String> config() {
    refuseIfRestricted("IcebergTable.config()", "it may hold what opens the raw files");
    return this.config;
  }

  /** The config, for this module's reads. */
  Map<String, String> tableConfig() {
    return this.config;
  }

  /**
   * The credentials the catalog vended with the table, when it was loaded with vended credentials.
   *
   * @throws RestrictedReadException for a table whose reads are restricted: they open the raw files
   */
  public List<StorageCredential> storageCredentials() {
    refuseIfRestricted("IcebergTable.storageCredentials()", "they open the raw files");
    return this.storageCredentials;
  }

  /** The vended credentials, for this module's reads. */
  List<StorageCredential> tableCredentials() {
    return this.storageCredentials;
  }

  /** @throws RestrictedReadException naming {@code door} when the table's reads are restricted */
  void refuseIfRestricted(String door, String why) {
    if (!this.readRestrictions.isEmpty()) {
      throw new RestrictedReadException(this.identifier.toString(), door, why);
    }
  }

  /** The FileIO of the Iceberg table this was made from, or {@code null} for a table loaded from the catalog. */
  @Nullable FileIO io() {
    return this.fileIo;
  }

  /** The caller the table was loaded as, whose plans and reads of it run as that caller; {@code null} for the planner. */
  @Nullable CatalogCredentials loadedAs() {
    return this.loadedAs;
  }

  /** Whether a plan that vends credentials reads with them; otherwise its files open with {@link #io()}. */
  boolean plansVendCredentials() {
    return this.plansVendCredentials;
  }

  @Override
  public String toString() {
    return "IcebergTable[" + this.identifier + ", format-version " + this.metadata.formatVersion()
        + (this.readRestrictions.isEmpty() ? "" : ", restricted") + "]";
  }
}
