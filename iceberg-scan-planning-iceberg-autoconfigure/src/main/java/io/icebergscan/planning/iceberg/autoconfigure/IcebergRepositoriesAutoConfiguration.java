package io.icebergscan.planning.iceberg.autoconfigure;

import io.icebergscan.planning.data.IcebergConversionService;
import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.support.IcebergRepositoryFactoryBean;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.data.repository.Repository;

/**
 * Auto-configuration of Iceberg repositories: every interface in the application's packages that extends
 * {@link IcebergRepository} (or, beside other Spring Data modules, whose entity is an {@code @IcebergTable}) becomes a
 * bean reading through the {@link IcebergScanPlanner} bean. On when Spring Data Commons and the data module are on
 * the class path; off when the application enables Iceberg repositories itself
 * ({@code @EnableIcebergRepositories}).
 */
@AutoConfiguration(after = IcebergReadingAutoConfiguration.class)
@ConditionalOnClass({ IcebergRepository.class, IcebergScanPlanner.class, Repository.class })
@ConditionalOnBean(IcebergScanPlanner.class)
@ConditionalOnMissingBean(IcebergRepositoryFactoryBean.class)
@Import(IcebergRepositoriesRegistrar.class)
public final class IcebergRepositoriesAutoConfiguration {

  /**
   * What query methods' arguments are converted with on their way to Iceberg literals. An application extends it by
   * declaring its own {@code IcebergConversionService} bean with its converters added.
   */
  @Bean
  @ConditionalOnMissingBean
  IcebergConversionService icebergConversionService() {
    return new IcebergConversionService();
  }
}
