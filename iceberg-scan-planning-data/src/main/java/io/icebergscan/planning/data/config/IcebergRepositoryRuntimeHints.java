package io.icebergscan.planning.data.config;

import io.icebergscan.planning.data.AtSnapshot;
import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.data.TableSnapshot;
import io.icebergscan.planning.iceberg.Column;
import org.jspecify.annotations.Nullable;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * What every Iceberg repository reads reflectively in a native image, whatever its entity: the annotations it reads
 * off entities and query methods ({@link IcebergTable @IcebergTable}, {@link Column @Column},
 * {@link AtSnapshot @AtSnapshot}), and the parameter types Spring Data tells apart by reflection in query methods'
 * signatures ({@link IcebergScrollPosition}, {@link TableSnapshot}). The hints of each repository's own types are
 * {@link IcebergRepositoryRegistrationAotProcessor}'s. Registered in {@code META-INF/spring/aot.factories}.
 */
class IcebergRepositoryRuntimeHints implements RuntimeHintsRegistrar {

  @Override
  public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
    hints.reflection().registerType(IcebergTable.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(Column.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(AtSnapshot.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(IcebergScrollPosition.class, MemberCategory.INVOKE_PUBLIC_METHODS)
        .registerType(TableSnapshot.class, MemberCategory.INVOKE_PUBLIC_METHODS);
  }
}
