package io.icebergscan.planning;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationConvention;
import io.micrometer.observation.docs.ObservationDocumentation;
import org.junit.jupiter.api.Test;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.equivalentTo;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The core's structure: a library of its own, packages without cycles, and internals that stay inside. The rules
 * across modules (who may use the internals, where auto-configuration lives) are the test module's
 * {@code ModuleArchitectureTests}.
 */
class ArchitectureTest {

  private static final String INTERNAL = "io.icebergscan.planning.internal..";
  private static final String PLANNER = "io.icebergscan.planning.internal.planner";

  /** The core's own classes, read from where {@link ScanPlanner} was loaded: its jar or its classes directory. */
  private static final JavaClasses CORE = new ClassFileImporter().importLocations(Set.of(
      Location.of(ScanPlanner.class.getProtectionDomain().getCodeSource().getLocation())));

  @Test
  void theCoreImportsNothingFromSpringBoot() {
    assertThat(CORE.contain(ScanPlanner.class)).as("the core's classes were imported").isTrue();
    noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework.boot..")
        .because("the core is plain Java: Spring Boot's wiring lives in iceberg-scan-planning-autoconfigure")
        .check(CORE);
  }

  @Test
  void noPackageDependsOnItselfThroughAnother() {
    // but for ScanPlanner.builder(), the API's one door to the implementation it builds
    slices().matching("io.icebergscan.(**)").should().beFreeOfCycles()
        .ignoreDependency(equivalentTo(ScanPlanner.Builder.class), resideInAPackage(PLANNER)).check(CORE);
  }

  @Test
  void everyPackageIsNullMarkedAndDocumented() {
    List<String> packages = CORE.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
    assertThat(packages).containsExactly("io.icebergscan.planning", "io.icebergscan.planning.auth",
        "io.icebergscan.planning.exceptions", "io.icebergscan.planning.internal",
        "io.icebergscan.planning.internal.http", "io.icebergscan.planning.internal.planner",
        "io.icebergscan.planning.internal.walk", "io.icebergscan.planning.internal.wire",
        "io.icebergscan.planning.model", "io.icebergscan.planning.observation");
    for (String name : packages) {
      assertThat(CORE.getPackage(name).tryGetPackageInfo()).as(name + " has a package-info").isPresent()
          .get().satisfies(info -> assertThat(info.isAnnotatedWith("org.jspecify.annotations.NullMarked"))
              .as(name + " is @NullMarked").isTrue());
    }
  }

  @Test
  void theObservationTypesLiveInTheObservationPackage() {
    classes().that().areAssignableTo(Observation.Context.class).or().areAssignableTo(ObservationConvention.class)
        .or().areAssignableTo(ObservationDocumentation.class).or().haveSimpleName("Outcome")
        .should().resideInAPackage("io.icebergscan.planning.observation")
        .because("as Spring Framework keeps its own: the API root holds what a caller plans with").check(CORE);
  }

  @Test
  void authenticationLivesInTheAuthPackage() {
    classes().that().arePublic().and().implement(ExchangeFilterFunction.class)
        .should().resideInAPackage("io.icebergscan.planning.auth").check(CORE);
    // the filters, and the interfaces that say whose call it is (a caller's credentials, where callers are found)
    classes().that().resideInAPackage("io.icebergscan.planning.auth").and().arePublic()
        .should().implement(ExchangeFilterFunction.class).orShould().beNestedClasses().orShould().beInterfaces()
        .check(CORE);
  }

  @Test
  void thePlannersImplementationIsInternal() {
    classes().that().implement(ScanPlanner.class).should().resideInAPackage(PLANNER)
        .because("callers get a planner from ScanPlanner.builder(), never by its class").check(CORE);
  }

  /** Redaction is the planner's own way of writing messages: only exceptions are public there. */
  @Test
  void theExceptionsPackageHoldsOnlyExceptions() {
    classes().that().resideInAPackage("io.icebergscan.planning.exceptions..").and().areTopLevelClasses()
        .and().doNotHaveSimpleName("package-info").should().beAssignableTo(RuntimeException.class).check(CORE);
  }

  @Test
  void theApiShowsNoInternalTypeInWhatItExposes() {
    classes().that().resideOutsideOfPackage(INTERNAL).and().arePublic().should(exposeNoInternalType()).check(CORE);
  }

  @Test
  void theModelAndTheExceptionsDependOnNoOtherPartOfThePlanner() {
    noClasses().that().resideInAnyPackage("io.icebergscan.planning.model..", "io.icebergscan.planning.exceptions..")
        .should().dependOnClassesThat().resideInAnyPackage("io.icebergscan.planning", INTERNAL)
        .check(CORE);
  }

  /** A failure is a value: what it says cannot change after it was thrown (RestException's Retry-After could). */
  @Test
  void exceptionsAreImmutable() {
    fields().that().areDeclaredInClassesThat().resideInAPackage("io.icebergscan.planning.exceptions..")
        .and().areNotStatic().should().beFinal().check(CORE);
  }

  @Test
  void theWalkKnowsNothingOfHttp() {
    noClasses().that().resideInAPackage("io.icebergscan.planning.internal.walk..")
        .should().dependOnClassesThat().resideInAnyPackage("io.icebergscan.planning.internal.http..",
            "org.springframework..", "reactor.netty..")
        .because("the walk decides what is fetched when; how a fetch travels is the http package's")
        .check(CORE);
  }

  /** Public and protected members, supertypes and type parameters of a class name no internal type. */
  private static ArchCondition<JavaClass> exposeNoInternalType() {
    return new ArchCondition<>("expose no internal type") {
      @Override
      public void check(JavaClass type, ConditionEvents events) {
        List<String> exposed = new ArrayList<>();
        Stream.concat(type.getRawSuperclass().stream(), type.getRawInterfaces().stream())
            .filter(ArchitectureTest::internal)
            .forEach(supertype -> exposed.add("extends " + supertype.getName()));
        for (JavaCodeUnit member : type.getCodeUnits()) {
          if (visible(member.getModifiers())) {
            Stream.concat(Stream.of(member.getRawReturnType()), member.getRawParameterTypes().stream())
                .filter(ArchitectureTest::internal)
                .forEach(internal -> exposed.add(member.getFullName() + " uses " + internal.getName()));
          }
        }
        for (JavaField field : type.getFields()) {
          if (visible(field.getModifiers()) && internal(field.getRawType())) {
            exposed.add(field.getFullName());
          }
        }
        exposed.forEach(what -> events.add(SimpleConditionEvent.violated(type, what)));
      }
    };
  }

  private static boolean visible(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }

  private static boolean internal(JavaType type) {
    return type.toErasure().getPackageName().startsWith("io.icebergscan.planning.internal");
  }
}
