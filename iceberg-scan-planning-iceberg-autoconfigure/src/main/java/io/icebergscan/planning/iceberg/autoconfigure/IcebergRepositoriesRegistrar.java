package io.icebergscan.planning.iceberg.autoconfigure;

import java.lang.annotation.Annotation;

import io.icebergscan.planning.data.config.EnableIcebergRepositories;
import io.icebergscan.planning.data.config.IcebergRepositoryConfigurationExtension;
import org.springframework.boot.autoconfigure.data.AbstractRepositoryConfigurationSourceSupport;
import org.springframework.data.repository.config.RepositoryConfigurationExtension;

/** Registers Iceberg repositories in the application's auto-configuration packages, as Spring Boot's data modules do. */
class IcebergRepositoriesRegistrar extends AbstractRepositoryConfigurationSourceSupport {

  @Override
  protected Class<? extends Annotation> getAnnotation() {
    return EnableIcebergRepositories.class;
  }

  @Override
  protected Class<?> getConfiguration() {
    return EnableIcebergRepositoriesConfiguration.class;
  }

  @Override
  protected RepositoryConfigurationExtension getRepositoryConfigurationExtension() {
    return new IcebergRepositoryConfigurationExtension();
  }

  @EnableIcebergRepositories
  private static final class EnableIcebergRepositoriesConfiguration {
  }
}
