package io.icebergscan.planning.data.config;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.data.ReactiveIcebergRepository;
import io.icebergscan.planning.data.support.SimpleIcebergRepository;
import io.icebergscan.planning.data.support.SimpleReactiveIcebergRepository;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.junit.jupiter.api.Test;
import org.springframework.aop.framework.Advised;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.FilterType;
import org.springframework.data.repository.Repository;
import org.springframework.data.repository.core.support.AbstractRepositoryMetadata;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link EnableIcebergRepositories @EnableIcebergRepositories} makes blocking and reactive repositories alike, each by
 * the factory it needs, and the Iceberg module claims both kinds beside other Spring Data modules. Nothing is sent to
 * a catalog (the planner points at none): repositories load their table per call.
 */
class IcebergRepositoriesConfigurationTests {

  @IcebergTable("configured.things")
  record Thing(long id, String kind) {
  }

  interface BlockingThings extends IcebergRepository<Thing> {
    java.util.List<Thing> findByKind(String kind);
  }

  interface ReactiveThings extends ReactiveIcebergRepository<Thing> {
    Flux<Thing> findByKind(String kind);

    Mono<Long> countByKind(String kind);
  }

  /** Not annotated: only the repository's type says it is Iceberg's. */
  record Unannotated(long id) {
  }

  interface ReactiveOfUnannotated extends ReactiveIcebergRepository<Unannotated> {
  }

  interface OtherModules extends Repository<Unannotated, Long> {
    Flux<Unannotated> findById(long id);
  }

  @Configuration(proxyBeanMethods = false)
  @EnableIcebergRepositories(considerNestedRepositories = true, includeFilters = @ComponentScan.Filter(
      type = FilterType.ASSIGNABLE_TYPE, classes = { BlockingThings.class, ReactiveThings.class }))
  static class Repositories {

    @Bean(destroyMethod = "close")
    ScanPlanner scanPlanner() {
      return ScanPlanner.builder().uri("http://127.0.0.1:9/catalog").build();
    }

    @Bean(destroyMethod = "close")
    IcebergScanPlanner icebergScanPlanner(ScanPlanner planner) {
      return IcebergScanPlanner.builder(planner).build();
    }
  }

  @Test
  void oneAnnotationMakesBlockingAndReactiveRepositoriesEachWithItsFactory() throws Exception {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext(Repositories.class)) {
      BlockingThings blocking = context.getBean(BlockingThings.class);
      ReactiveThings reactive = context.getBean(ReactiveThings.class);

      assertThat(((Advised) blocking).getTargetSource().getTarget()).isInstanceOf(SimpleIcebergRepository.class);
      assertThat(((Advised) reactive).getTargetSource().getTarget())
          .isInstanceOf(SimpleReactiveIcebergRepository.class);
      // assembled without a request: the table is loaded when they are subscribed to
      assertThat(reactive.findByKind("a")).isInstanceOf(Flux.class);
      assertThat(reactive.count()).isInstanceOf(Mono.class);
    }
  }

  @Test
  void theModuleClaimsReactiveRepositoriesByTheirTypeBesideOtherModules() {
    Strictness extension = new Strictness();
    assertThat(extension.claims(ReactiveOfUnannotated.class)).isTrue();
    assertThat(extension.claims(OtherModules.class)).isFalse();
  }

  /** The extension's answer in a multi-store application, where modules claim repositories strictly. */
  private static final class Strictness extends IcebergRepositoryConfigurationExtension {

    boolean claims(Class<?> repository) {
      return isStrictRepositoryCandidate(AbstractRepositoryMetadata.getMetadata(repository));
    }
  }
}
