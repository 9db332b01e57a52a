package io.icebergscan.planning.data.support;

import java.util.Optional;

import io.icebergscan.planning.data.IcebergConversionService;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.jspecify.annotations.Nullable;
import org.springframework.core.convert.ConversionService;
import org.springframework.data.repository.core.EntityInformation;
import org.springframework.data.repository.core.RepositoryInformation;
import org.springframework.data.repository.core.RepositoryMetadata;
import org.springframework.data.repository.core.support.RepositoryFactorySupport;
import org.springframework.data.repository.query.QueryLookupStrategy;
import org.springframework.data.repository.query.ValueExpressionDelegate;

/**
 * Makes Iceberg repositories: {@link SimpleIcebergRepository} for the methods every one has, and a
 * {@link PartTreeIcebergQuery} for each query method, derived from its name when the repository is made. Reactive
 * repositories are {@link ReactiveIcebergRepositoryFactory}'s.
 */
public class IcebergRepositoryFactory extends RepositoryFactorySupport {

  private final IcebergRepositoryParts parts;

  public IcebergRepositoryFactory(IcebergScanPlanner planner) {
    this(planner, new IcebergConversionService());
  }

  /**
   * @param conversions what a query method's arguments are converted with, on their way to Iceberg literals
   */
  public IcebergRepositoryFactory(IcebergScanPlanner planner, ConversionService conversions) {
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
    return SimpleIcebergRepository.class;
  }

  @Override
  protected Optional<QueryLookupStrategy> getQueryLookupStrategy(QueryLookupStrategy.@Nullable Key key,
      ValueExpressionDelegate valueExpressionDelegate) {
    return Optional.of(this.parts.queries());
  }
}
