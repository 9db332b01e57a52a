package io.icebergscan.planning.data.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import io.icebergscan.planning.data.support.IcebergRepositoryFactoryBean;
import org.springframework.context.annotation.ComponentScan.Filter;
import org.springframework.context.annotation.Import;
import org.springframework.data.repository.config.BootstrapMode;
import org.springframework.data.repository.config.DefaultRepositoryBaseClass;
import org.springframework.data.repository.query.QueryLookupStrategy;

/**
 * Makes a bean of every Iceberg repository interface in the annotated class's package (or the packages given): those
 * that extend {@link io.icebergscan.planning.data.IcebergRepository} or
 * {@link io.icebergscan.planning.data.ReactiveIcebergRepository}, or, beside other Spring Data modules, whose entity
 * is an {@link io.icebergscan.planning.data.IcebergTable @IcebergTable}, blocking and reactive alike. Spring Boot
 * applications need not: the auto-configuration does it.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Import(IcebergRepositoriesRegistrar.class)
public @interface EnableIcebergRepositories {

  /** Alias of {@link #basePackages()}. */
  String[] value() default {};

  /** The packages to find repositories in. */
  String[] basePackages() default {};

  /** Classes whose packages to find repositories in. */
  Class<?>[] basePackageClasses() default {};

  /** Which of the interfaces found are repositories. */
  Filter[] includeFilters() default {};

  /** Which of the interfaces found are not. */
  Filter[] excludeFilters() default {};

  /** The suffix of a repository's custom implementation. */
  String repositoryImplementationPostfix() default "Impl";

  /** Not used: query methods are derived from their names. */
  String namedQueriesLocation() default "";

  /** Query methods are derived from their names. */
  QueryLookupStrategy.Key queryLookupStrategy() default QueryLookupStrategy.Key.CREATE_IF_NOT_FOUND;

  /** The factory bean of each repository. */
  Class<?> repositoryFactoryBeanClass() default IcebergRepositoryFactoryBean.class;

  /** The repositories' base class; the factory's when not given. */
  Class<?> repositoryBaseClass() default DefaultRepositoryBaseClass.class;

  /** Whether nested interfaces are repositories too. */
  boolean considerNestedRepositories() default false;

  /** When the repositories are made. */
  BootstrapMode bootstrapMode() default BootstrapMode.DEFAULT;

  /** The {@code IcebergScanPlanner} bean the repositories read through; the one bean of that type when empty. */
  String icebergScanPlannerRef() default "";

  /**
   * The {@code ConversionService} bean that query methods' arguments are converted with; the one
   * {@code IcebergConversionService} bean when empty, else a new one.
   */
  String conversionServiceRef() default "";
}
