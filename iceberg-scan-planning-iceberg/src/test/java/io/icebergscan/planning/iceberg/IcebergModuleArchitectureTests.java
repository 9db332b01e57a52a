package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import io.icebergscan.planning.iceberg.autoconfigure.IcebergReadingAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * This module's share of the test module's {@code ModuleArchitectureTests}, which cannot see it (this module
 * depends on that one): the core's internals stay the core's, and Spring Boot's wiring lives in this module's
 * {@code …iceberg.autoconfigure} package only, so the rest works without Spring Boot.
 */
class IcebergModuleArchitectureTests {

  private static final String IMPORTS =
      "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";
  private static final String AUTOCONFIGURE = "io.icebergscan.planning.iceberg.autoconfigure";

  private static final URL MODULE_LOCATION = IcebergScanPlanner.class.getProtectionDomain().getCodeSource()
      .getLocation();

  /** This module's own classes, read from where {@link IcebergScanPlanner} was loaded. */
  private static final JavaClasses MODULE = new ClassFileImporter().importLocations(Set.of(
      Location.of(MODULE_LOCATION)));

  @Test
  void theCoresInternalsAreNotUsed() {
    assertThat(MODULE.contain(IcebergScanPlanner.class) && MODULE.contain(IcebergReadingAutoConfiguration.class))
        .as("the module's classes were imported").isTrue();
    noClasses().should().dependOnClassesThat().resideInAPackage("io.icebergscan.planning.internal..")
        .because("internal packages carry no compatibility promise: other modules use the core's API")
        .check(MODULE);
  }

  @Test
  void onlyTheAutoconfigurePackageKnowsSpringBoot() {
    noClasses().that().resideOutsideOfPackage(AUTOCONFIGURE + "..")
        .should().dependOnClassesThat().resideInAnyPackage("org.springframework.boot..",
            "io.icebergscan.planning.autoconfigure..", "io.icebergscan.planning.health..")
        .because("plans read as Iceberg's types without Spring Boot: only the auto-configuration wires them")
        .check(MODULE);
  }

  @Test
  void autoConfigurationLivesInTheAutoconfigurePackageOnlyAndIsRegistered() throws IOException {
    classes().that().areAnnotatedWith(AutoConfiguration.class)
        .should().resideInAPackage(AUTOCONFIGURE).andShould().bePublic().andShould().haveModifier(JavaModifier.FINAL)
        .check(MODULE);

    List<String> registered = new ArrayList<>();
    String module = MODULE_LOCATION.toString();
    for (URL registration : Collections.list(getClass().getClassLoader().getResources(IMPORTS))) {
      String url = registration.toString();
      if (url.startsWith(module) || url.startsWith("jar:" + module + "!/")) {
        registered.addAll(lines(registration));
      }
    }
    List<String> annotated = MODULE.stream().filter(type -> type.isAnnotatedWith(AutoConfiguration.class))
        .map(JavaClass::getName).toList();
    assertThat(registered).as("the module's AutoConfiguration.imports: its auto-configurations, each once")
        .isNotEmpty().doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(annotated);
  }

  @Test
  void everyPackageIsNullMarked() {
    List<String> packages = MODULE.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
    assertThat(packages).contains("io.icebergscan.planning.iceberg", AUTOCONFIGURE);
    for (String name : packages) {
      assertThat(MODULE.getPackage(name).tryGetPackageInfo()).as(name + " has a package-info").isPresent()
          .get().satisfies(info -> assertThat(info.isAnnotatedWith("org.jspecify.annotations.NullMarked"))
              .as(name + " is @NullMarked").isTrue());
    }
  }

  private static List<String> lines(URL resource) throws IOException {
    try (InputStream in = resource.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }
  }
}
