package io.icebergscan.planning.data.support;

import io.icebergscan.planning.data.IcebergConversionService;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.convert.ConversionService;
import org.springframework.data.core.ReactiveWrappers;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.core.support.RepositoryFactoryBeanSupport;
import org.springframework.data.repository.core.support.RepositoryFactorySupport;
import org.springframework.util.Assert;

/**
 * The bean that makes an Iceberg repository, with the {@link IcebergScanPlanner} it reads through and the conversions
 * its query methods' arguments go through: a reactive one (an interface that uses {@code Flux} or {@code Mono}, as
 * {@link io.icebergscan.planning.data.ReactiveIcebergRepository} does) with {@link ReactiveIcebergRepositoryFactory},
 * any other with {@link IcebergRepositoryFactory}, so that one {@code @EnableIcebergRepositories} makes both.
 *
 * @param <R> the repository
 * @param <T> the entity
 */
public class IcebergRepositoryFactoryBean<R extends Repository<T, Void>, T>
    extends RepositoryFactoryBeanSupport<R, T, Void> {

  private @Nullable IcebergScanPlanner planner;
  private @Nullable ConversionService conversionService;
  private @Nullable BeanFactory beanFactory;

  public IcebergRepositoryFactoryBean(Class<? extends R> repositoryInterface) {
    super(repositoryInterface);
  }

  public void setPlanner(IcebergScanPlanner planner) {
    this.planner = planner;
  }

  public void setConversionService(ConversionService conversionService) {
    this.conversionService = conversionService;
  }

  /** Without a planner or conversions named, the application's one bean of each type (conversions are optional). */
  @Override
  public void setBeanFactory(BeanFactory beanFactory) {
    super.setBeanFactory(beanFactory);
    this.beanFactory = beanFactory;
  }

  @Override
  public void afterPropertiesSet() {
    if (this.beanFactory != null) {
      if (this.planner == null) {
        this.planner = this.beanFactory.getBean(IcebergScanPlanner.class);
      }
      if (this.conversionService == null) {
        this.conversionService = this.beanFactory.getBeanProvider(IcebergConversionService.class).getIfUnique();
      }
    }
    Assert.state(this.planner != null, "an Iceberg repository needs an IcebergScanPlanner");
    super.afterPropertiesSet();
  }

  @Override
  protected RepositoryFactorySupport createRepositoryFactory() {
    Assert.state(this.planner != null, "an Iceberg repository needs an IcebergScanPlanner");
    ConversionService conversions = this.conversionService != null ? this.conversionService
        : new IcebergConversionService();
    // as Spring Data tells a reactive repository (RepositoryMetadata.isReactiveRepository())
    return ReactiveWrappers.usesReactiveType(getObjectType())
        ? new ReactiveIcebergRepositoryFactory(this.planner, conversions)
        : new IcebergRepositoryFactory(this.planner, conversions);
  }
}
