package io.icebergscan.planning.data.support;

import java.util.Optional;

import io.icebergscan.planning.data.IcebergConversionService;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.ConversionService;
import org.springframework.data.repository.core.EntityInformation;
import org.springframework.data.repository.core.RepositoryInformation;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.repository.core.support.ReactiveRepositoryFactorySupport;
import org.springframework.data.repository.query.QueryLookupStrategy;
import org.springframework.data.repository.query.ValueExpressionDelegate;

/**
 * Makes reactive Iceberg repositories ({@link io.icebergscan.planning.data.ReactiveIcebergRepository}):
 * {@link SimpleReactiveIcebergRepository} for the methods every one has, and a {@link PartTreeIcebergQuery} for each
 * query method, derived and checked as {@link IcebergRepositoryFactory}'s are, returning {@code Flux} or {@code Mono}.
 */
public class ReactiveIcebergRepositoryFactory extends ReactiveRepositoryFactorySupport {

  private final IcebergRepositoryParts parts;

  public ReactiveIcebergRepositoryFactory(IcebergScanPlanner planner) {
    this(planner, new IcebergConversionService());
  }

  /**
   * @param conversions what a query method's arguments are converted with, on their way to Iceberg literals
   */
  public ReactiveIcebergRepositoryFactory(IcebergScanPlanner planner, ConversionService conversions) {
    this.parts = new IcebergRepositoryParts(planner, conversions);
  }

  @Override
  public EntityInformation<?, ?> getEntityInformation(RepositoryMetadata metadata) {
    return IcebergEntity.of(metadata.getDomainType());
  }

  @Override
  protected Object getTargetRepository(RepositoryInformation metadata) {
    return getTargetRepositoryViaReflection(metadata, this.parts.reads(metadata));
  }

  @Override
  protected Class<?> getRepositoryBaseClass(RepositoryMetadata metadata) {
    return SimpleReactiveIcebergRepository.class;
  }

  @Override
  protected Optional<QueryLookupStrategy> getQueryLookupStrategy(QueryLookupStrategy.@Nullable Key key,
      ValueExpressionDelegate valueExpressionDelegate) {
    return Optional.of(this.parts.queries());
  }
}
