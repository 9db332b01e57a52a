package io.icebergscan.planning.data.support;

import java.lang.reflect.Method;

import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.springframework.core.convert.ConversionService;
import org.springframework.data.projection.ProjectionFactory;
import org.springframework.data.repository.core.NamedQueries;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.repository.query.QueryLookupStrategy;
import org.springframework.data.repository.query.RepositoryQuery;

/**
 * What the blocking and the reactive repository factories share: each repository's {@link TableReads} over the one
 * planner, and its query methods derived from their names, whose return type says whether they read blocking or as
 * {@code Flux} and {@code Mono}.
 */
final class IcebergRepositoryParts {

  private final IcebergScanPlanner planner;
  private final IcebergLiterals literals;

  IcebergRepositoryParts(IcebergScanPlanner planner, ConversionService conversions) {
    this.planner = planner;
    this.literals = new IcebergLiterals(conversions);
  }

  TableReads<?> reads(RepositoryMetadata metadata) {
    return new TableReads<>(this.planner, IcebergEntity.of(metadata.getDomainType()));
  }

  QueryLookupStrategy queries() {
    return new QueryLookupStrategy() {
      @Override
      public RepositoryQuery resolveQuery(Method method, RepositoryMetadata metadata, ProjectionFactory factory,
          NamedQueries namedQueries) {
        return new PartTreeIcebergQuery(new IcebergQueryMethod(method, metadata, factory), reads(metadata),
            IcebergRepositoryParts.this.literals);
      }
    };
  }
}
