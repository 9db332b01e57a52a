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
import org.junit.jupiter.api.Test;

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

  /** The core's own classes, read from where {@link ScanPlanner} was loaded: its jar or its classes directory. */
  private static final JavaClasses CORE = new ClassFileImporter().importLocations(Set.of(
      Location.of(ScanPlanner.class.getProtectionDomain().getCodeSource().getLocation())));

  @Test
  void theCoreImportsNothingFromSpringBoot() {
    assertThat(CORE.contain(RestScanPlanner.class)).as("the core's classes were imported").isTrue();
    noClasses().should().dependOnClassesThat().resideInAPackage("org.springframework.boot..")
        .because("the core is plain Java: Spring Boot's wiring lives in iceberg-scan-planning-autoconfigure")
        .check(CORE);
  }

  @Test
  void noPackageDependsOnItselfThroughAnother() {
    slices().matching("io.icebergscan.(**)").should().beFreeOfCycles().check(CORE);
  }

  @Test
  void everyPackageIsNullMarkedAndDocumented() {
    List<String> packages = CORE.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
    assertThat(packages).containsExactly("io.icebergscan.planning", "io.icebergscan.planning.exceptions",
        "io.icebergscan.planning.internal.http", "io.icebergscan.planning.internal.walk",
        "io.icebergscan.planning.internal.wire", "io.icebergscan.planning.model");
    for (String name : packages) {
      assertThat(CORE.getPackage(name).tryGetPackageInfo()).as(name + " has a package-info").isPresent()
          .get().satisfies(info -> assertThat(info.isAnnotatedWith("org.jspecify.annotations.NullMarked"))
              .as(name + " is @NullMarked").isTrue());
    }
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
