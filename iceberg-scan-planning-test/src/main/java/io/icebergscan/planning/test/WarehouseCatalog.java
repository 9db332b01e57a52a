package io.icebergscan.planning.test;

import java.io.IOException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import org.apache.iceberg.BaseMetastoreTableOperations;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.TableMetadata;
import org.apache.iceberg.TableOperations;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.CommitFailedException;
import org.apache.iceberg.exceptions.NoSuchNamespaceException;
import org.apache.iceberg.exceptions.NoSuchTableException;
import org.apache.iceberg.inmemory.InMemoryCatalog;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.jspecify.annotations.Nullable;

/**
 * Apache Iceberg's {@link InMemoryCatalog} whose tables live in the FileIO its {@code io-impl} property names
 * (Iceberg's {@code InMemoryFileIO} without one): their metadata files, and through the tables' {@code io()} their
 * manifests, data and delete files. Iceberg's class always takes its {@code InMemoryFileIO} and keeps its table
 * pointers in a private map its private table operations write, so this class keeps its own pointers (table to
 * current metadata file) and overrides every method that reads them; its commits are Iceberg's, compare-and-swap on
 * the pointer. Namespaces and views stay the in-memory catalog's, view metadata in its {@code InMemoryFileIO}.
 */
final class WarehouseCatalog extends InMemoryCatalog {

  private final ConcurrentMap<TableIdentifier, String> tables = new ConcurrentHashMap<>();
  private @Nullable FileIO io;

  @Override
  public void initialize(String name, Map<String, String> properties) {
    super.initialize(name, properties);
    this.io = CatalogUtil.loadFileIO(properties.getOrDefault(CatalogProperties.FILE_IO_IMPL,
        InMemoryFileIO.class.getName()), properties, null);
  }

  /** The FileIO the tables' files are written and read with. */
  FileIO io() {
    return Objects.requireNonNull(this.io, "the catalog is not initialized");
  }

  @Override
  protected TableOperations newTableOps(TableIdentifier identifier) {
    return new WarehouseTableOperations(identifier);
  }

  @Override
  public List<TableIdentifier> listTables(Namespace namespace) {
    if (!namespace.isEmpty() && !namespaceExists(namespace)) {
      throw new NoSuchNamespaceException("Cannot list tables for namespace. Namespace does not exist: %s", namespace);
    }
    return this.tables.keySet().stream().filter(table -> table.namespace().equals(namespace))
        .sorted(Comparator.comparing(TableIdentifier::toString)).toList();
  }

  @Override
  public boolean dropTable(TableIdentifier identifier, boolean purge) {
    TableOperations ops = newTableOps(identifier);
    TableMetadata last = purge ? ops.current() : null;
    if (this.tables.remove(identifier) == null) {
      return false;
    }
    if (last != null) {
      CatalogUtil.dropTableData(ops.io(), last);
    }
    return true;
  }

  @Override
  public synchronized void renameTable(TableIdentifier from, TableIdentifier to) {
    if (from.equals(to)) {
      return;
    }
    if (!namespaceExists(to.namespace())) {
      throw new NoSuchNamespaceException("Cannot rename %s to %s. Namespace does not exist: %s", from, to,
          to.namespace());
    }
    String location = this.tables.get(from);
    if (location == null) {
      throw new NoSuchTableException("Cannot rename %s to %s. Table does not exist", from, to);
    }
    if (this.tables.containsKey(to) || viewExists(to)) {
      throw new AlreadyExistsException("Cannot rename %s to %s. Table or view already exists", from, to);
    }
    this.tables.put(to, location);
    this.tables.remove(from);
  }

  @Override
  public void close() throws IOException {
    try {
      super.close();
    }
    finally {
      this.tables.clear();
      if (this.io != null) {
        this.io.close();
      }
    }
  }

  /** As Iceberg's in-memory table operations, over this catalog's pointers and FileIO. */
  private final class WarehouseTableOperations extends BaseMetastoreTableOperations {

    private final TableIdentifier identifier;

    WarehouseTableOperations(TableIdentifier identifier) {
      this.identifier = identifier;
    }

    @Override
    protected void doRefresh() {
      String location = WarehouseCatalog.this.tables.get(this.identifier);
      if (location == null) {
        disableRefresh();
      }
      else {
        refreshFromMetadataLocation(location);
      }
    }

    @Override
    protected void doCommit(@Nullable TableMetadata base, TableMetadata metadata) {
      String newLocation = writeNewMetadataIfRequired(base == null, metadata);
      String oldLocation = base == null ? null : base.metadataFileLocation();
      synchronized (WarehouseCatalog.this) {
        if (base == null && !namespaceExists(this.identifier.namespace())) {
          throw new NoSuchNamespaceException("Cannot create table %s. Namespace does not exist: %s", this.identifier,
              this.identifier.namespace());
        }
        if (viewExists(this.identifier)) {
          throw new AlreadyExistsException("View with same name already exists: %s", this.identifier);
        }
        WarehouseCatalog.this.tables.compute(this.identifier, (key, existing) -> {
          if (!Objects.equals(existing, oldLocation)) {
            if (base == null) {
              throw new AlreadyExistsException("Table already exists: %s", tableName());
            }
            if (existing == null) {
              throw new NoSuchTableException("Table does not exist: %s", tableName());
            }
            throw new CommitFailedException("Cannot commit to table %s metadata location from %s to %s because it "
                + "has been concurrently modified to %s", this.identifier, oldLocation, newLocation, existing);
          }
          return newLocation;
        });
      }
    }

    @Override
    public FileIO io() {
      return WarehouseCatalog.this.io();
    }

    @Override
    protected String tableName() {
      return fullTableName(WarehouseCatalog.this.name(), this.identifier);
    }
  }
}
