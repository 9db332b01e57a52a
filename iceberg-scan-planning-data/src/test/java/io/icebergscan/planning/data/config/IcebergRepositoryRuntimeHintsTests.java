package io.icebergscan.planning.data.config;

import io.icebergscan.planning.data.AtSnapshot;
import io.icebergscan.planning.data.IcebergScrollPosition;
import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.data.TableSnapshot;
import io.icebergscan.planning.data.config.hints.Trip;
import io.icebergscan.planning.data.config.hints.TripRepository;
import io.icebergscan.planning.iceberg.Column;
import org.junit.jupiter.api.Test;
import org.springframework.aop.SpringProxy;
import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.beans.factory.aot.AotServices;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.core.DecoratingProxy;
import org.springframework.data.projection.TargetAware;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hints an application's Iceberg repositories get when Spring AOT processes it: its entity, the records it nests
 * and its DTO projections mapped by reflection, its interface projections' methods and proxies, and the types and
 * annotations every repository reads.
 */
class IcebergRepositoryRuntimeHintsTests {

  @EnableIcebergRepositories(basePackageClasses = TripRepository.class)
  static class Repositories {
  }

  /** The hints Spring AOT collects for an application with {@link TripRepository}. */
  private static RuntimeHints processed() {
    try (AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext()) {
      context.register(Repositories.class);
      DefaultGenerationContext generation = new DefaultGenerationContext(
          new ClassNameGenerator(ClassName.get(Repositories.class)), new InMemoryGeneratedFiles());
      new ApplicationContextAotGenerator().processAheadOfTime(context, generation);
      return generation.getRuntimeHints();
    }
  }

  @Test
  void theEntityAndTheRecordsItNestsAreMappedByReflection() {
    RuntimeHints hints = processed();
    for (Class<?> mapped : new Class<?>[] { Trip.class, Trip.Place.class, TripRepository.Fare.class }) {
      assertThat(RuntimeHintsPredicates.reflection().onType(mapped).withMemberCategories(
          IcebergRepositoryRegistrationAotProcessor.MAPPED)).as(mapped.getName()).accepts(hints);
    }
  }

  @Test
  void anInterfaceProjectionsMethodsAreReadAndItIsProxied() {
    RuntimeHints hints = processed();
    assertThat(RuntimeHintsPredicates.reflection().onType(TripRepository.Cities.class)
        .withMemberCategories(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(hints);
    assertThat(RuntimeHintsPredicates.proxies().forInterfaces(TripRepository.Cities.class, TargetAware.class,
        SpringProxy.class, DecoratingProxy.class)).accepts(hints);
  }

  @Test
  void theRepositoryIsProxied() {
    assertThat(RuntimeHintsPredicates.reflection().onType(TripRepository.class)
        .withMemberCategories(MemberCategory.INVOKE_PUBLIC_METHODS)).accepts(processed());
  }

  @Test
  void theAnnotationsAndParameterTypesEveryRepositoryReadsAreRegistered() {
    RuntimeHints hints = new RuntimeHints();
    new IcebergRepositoryRuntimeHints().registerHints(hints, getClass().getClassLoader());
    for (Class<?> type : new Class<?>[] { IcebergTable.class, Column.class, AtSnapshot.class,
        IcebergScrollPosition.class, TableSnapshot.class }) {
      assertThat(RuntimeHintsPredicates.reflection().onType(TypeReference.of(type))).as(type.getName())
          .accepts(hints);
    }
  }

  @Test
  void springAotLoadsTheRegistrar() {
    assertThat(AotServices.factories().load(RuntimeHintsRegistrar.class))
        .anyMatch(IcebergRepositoryRuntimeHints.class::isInstance);
  }
}
