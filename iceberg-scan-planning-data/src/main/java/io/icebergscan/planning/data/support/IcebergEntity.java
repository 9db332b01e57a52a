package io.icebergscan.planning.data.support;

import java.util.List;

import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.iceberg.RowMapping;
import org.apache.iceberg.catalog.TableIdentifier;
import org.jspecify.annotations.Nullable;
import org.springframework.data.repository.core.support.AbstractEntityInformation;

/**
 * An {@link IcebergTable @IcebergTable} entity: its table and its properties, in the order its rows map them. Rows
 * have no identity a repository could look them up by, so the entity has none.
 *
 * @param <T> the entity
 */
public final class IcebergEntity<T> extends AbstractEntityInformation<T, Void> {

  private final TableIdentifier table;
  private final List<String> properties;

  private IcebergEntity(Class<T> type, TableIdentifier table, List<String> properties) {
    super(type);
    this.table = table;
    this.properties = properties;
  }

  /**
   * @throws IllegalArgumentException when {@code type} has no {@code @IcebergTable}, or names no table with it
   */
  public static <T> IcebergEntity<T> of(Class<T> type) {
    IcebergTable annotation = type.getAnnotation(IcebergTable.class);
    if (annotation == null) {
      throw new IllegalArgumentException(type.getName() + " is not an Iceberg entity: annotate it with "
          + "@IcebergTable(\"namespace.table\")");
    }
    String name = annotation.value().trim();
    if (!name.contains(".") || name.startsWith(".") || name.endsWith(".")) {
      throw new IllegalArgumentException("@IcebergTable(\"" + annotation.value() + "\") on " + type.getName()
          + " names no table: give it as namespace.table");
    }
    return new IcebergEntity<>(type, TableIdentifier.parse(name), RowMapping.properties(type));
  }

  /** The table the entity's rows are read from. */
  public TableIdentifier table() {
    return this.table;
  }

  /** The entity's top-level properties, each of which maps a column. */
  public List<String> properties() {
    return this.properties;
  }

  @Override
  public boolean isNew(T entity) {
    return false;
  }

  @Override
  public @Nullable Void getId(T entity) {
    return null;
  }

  @Override
  public Class<Void> getIdType() {
    return Void.class;
  }
}
