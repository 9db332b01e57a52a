package io.icebergscan.planning.data.config;

import java.lang.annotation.Annotation;
import java.util.Collection;
import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.data.ReactiveIcebergRepository;
import io.icebergscan.planning.data.support.IcebergRepositoryFactoryBean;
import org.springframework.beans.factory.aot.BeanRegistrationAotProcessor;
import org.springframework.beans.factory.support.BeanDefinitionBuilder;
import org.springframework.data.repository.config.RepositoryConfigurationExtensionSupport;
import org.springframework.data.repository.config.RepositoryConfigurationSource;
import org.springframework.data.repository.core.RepositoryMetadata;

/**
 * The Iceberg module of Spring Data: its repositories are the interfaces that extend {@link IcebergRepository} or
 * {@link ReactiveIcebergRepository}, or whose entity is an {@link IcebergTable @IcebergTable}, so that they live beside
 * JPA, JDBC or MongoDB repositories in one application. Blocking and reactive repositories are made alike, each by the
 * factory its interface needs ({@link IcebergRepositoryFactoryBean}).
 */
public class IcebergRepositoryConfigurationExtension extends RepositoryConfigurationExtensionSupport {

  @Override
  public String getModuleName() {
    return "Iceberg";
  }

  @Override
  protected String getModulePrefix() {
    return "iceberg";
  }

  @Override
  public String getRepositoryFactoryBeanClassName() {
    return IcebergRepositoryFactoryBean.class.getName();
  }

  @Override
  protected Collection<Class<? extends Annotation>> getIdentifyingAnnotations() {
    return List.of(IcebergTable.class);
  }

  @Override
  protected Collection<Class<?>> getIdentifyingTypes() {
    return List.of(IcebergRepository.class, ReactiveIcebergRepository.class);
  }

  /** Reactive repositories too, which Spring Data refuses unless a module says it makes them. */
  @Override
  protected boolean useRepositoryConfiguration(RepositoryMetadata metadata) {
    return true;
  }

  /** Spring Data's hints for every repository, and those rows mapped to entities and projections need. */
  @Override
  public Class<? extends BeanRegistrationAotProcessor> getRepositoryAotProcessor() {
    return IcebergRepositoryRegistrationAotProcessor.class;
  }

  @Override
  public void postProcess(BeanDefinitionBuilder builder, RepositoryConfigurationSource source) {
    source.getAttribute("icebergScanPlannerRef").filter(name -> !name.isEmpty())
        .ifPresent(name -> builder.addPropertyReference("planner", name));
    source.getAttribute("conversionServiceRef").filter(name -> !name.isEmpty())
        .ifPresent(name -> builder.addPropertyReference("conversionService", name));
  }
}
