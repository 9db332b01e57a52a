package io.icebergscan.planning.data.config;

import java.lang.annotation.Annotation;

import org.springframework.data.repository.config.RepositoryBeanDefinitionRegistrarSupport;
import org.springframework.data.repository.config.RepositoryConfigurationExtension;

/** Registers the repositories {@link EnableIcebergRepositories @EnableIcebergRepositories} asks for. */
class IcebergRepositoriesRegistrar extends RepositoryBeanDefinitionRegistrarSupport {

  @Override
  protected Class<? extends Annotation> getAnnotation() {
    return EnableIcebergRepositories.class;
  }

  @Override
  protected RepositoryConfigurationExtension getExtension() {
    return new IcebergRepositoryConfigurationExtension();
  }
}
