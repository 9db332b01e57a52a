package io.icebergscan.planning.iceberg.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.internal.Redaction;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules between the published modules, checked here because this module's tests see every one of them: the
 * libraries (the core and the iceberg module) know nothing of Spring Boot, each has its auto-configuration in an
 * autoconfigure module of its own (docs/architecture.md says why), and the core's internal packages are the core's
 * (the core's auto-configuration uses its {@code Redaction} to mask credentials the one way). The core's own rules
 * are its {@code ArchitectureTest}.
 */
class ModuleArchitectureTests {

  private static final String IMPORTS =
      "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";

  private static final Location CORE = location(ScanPlanner.class);
  private static final Location AUTOCONFIGURE = location(ScanPlanningAutoConfiguration.class);
  private static final Location TEST_SUPPORT = location(EmbeddedIcebergCatalog.class);
  private static final Location ICEBERG = location(IcebergScanPlanner.class);
  private static final Location ICEBERG_AUTOCONFIGURE = location(IcebergReadingAutoConfiguration.class);

  /** Each autoconfigure module and the one package its auto-configurations live in. */
  private static final Map<Location, String> AUTOCONFIGURE_PACKAGES = Map.of(
      AUTOCONFIGURE, "io.icebergscan.planning.autoconfigure",
      ICEBERG_AUTOCONFIGURE, "io.icebergscan.planning.iceberg.autoconfigure");

  private static Location location(Class<?> type) {
    return Location.of(type.getProtectionDomain().getCodeSource().getLocation());
  }

  private static JavaClasses classesOf(Location... modules) {
    return new ClassFileImporter().importLocations(Set.of(modules));
  }

  @Test
  void everyPublishedModulesClassesAreImported() {
    JavaClasses all = classesOf(CORE, AUTOCONFIGURE, TEST_SUPPORT, ICEBERG, ICEBERG_AUTOCONFIGURE);
    assertThat(List.of(ScanPlanner.class, ScanPlanningAutoConfiguration.class, EmbeddedIcebergCatalog.class,
        IcebergScanPlanner.class, IcebergReadingAutoConfiguration.class)).allSatisfy(type ->
            assertThat(all.contain(type)).as(type.getName()).isTrue());
  }

  @Test
  void theCoresInternalsAreUsedByNoOtherModule() {
    noClasses().should().dependOnClassesThat(resideInAPackage("io.icebergscan.planning.internal..")
            .and(not(type(Redaction.class))))
        .because("internal packages carry no compatibility promise: other modules use the core's API")
        .check(classesOf(AUTOCONFIGURE, TEST_SUPPORT, ICEBERG, ICEBERG_AUTOCONFIGURE));
    // the one exception, released with the core at the same version: credentials in URIs are masked one way
    noClasses().should().dependOnClassesThat().belongToAnyOf(Redaction.class)
        .because("only the core's auto-configuration shows what users configured")
        .check(classesOf(TEST_SUPPORT, ICEBERG, ICEBERG_AUTOCONFIGURE));
  }

  @Test
  void theLibrariesKnowNoSpringBoot() {
    noClasses().should().dependOnClassesThat().resideInAnyPackage("org.springframework.boot..",
            "io.icebergscan.planning.autoconfigure..", "io.icebergscan.planning.health..",
            "io.icebergscan.planning.iceberg.autoconfigure..")
        .because("the core plans and the iceberg module reads without Spring Boot (in plain Java, in an engine's "
            + "executors): their wiring is their autoconfigure modules'")
        .check(classesOf(CORE, ICEBERG));
  }

  @Test
  void autoConfigurationLivesInTheAutoconfigureModulesOnlyEachInItsPackageAndRegistered() throws Exception {
    noClasses().should().beAnnotatedWith(AutoConfiguration.class)
        .orShould().dependOnClassesThat().resideInAPackage("org.springframework.boot.autoconfigure.condition..")
        .check(classesOf(CORE, TEST_SUPPORT, ICEBERG));

    List<String> registeredAnywhere = new ArrayList<>();
    for (URL registration : Collections.list(getClass().getClassLoader().getResources(IMPORTS))) {
      lines(registration).stream().filter(line -> line.startsWith("io.icebergscan.")).forEach(line -> {
        assertThat(AUTOCONFIGURE_PACKAGES.keySet()).as(line + " registered in " + registration)
            .anySatisfy(module -> assertThat(registration.toString()).startsWith(resourcePrefix(module)));
        registeredAnywhere.add(line);
      });
    }

    List<String> annotatedAnywhere = new ArrayList<>();
    for (Map.Entry<Location, String> module : AUTOCONFIGURE_PACKAGES.entrySet()) {
      JavaClasses classes = classesOf(module.getKey());
      classes().that().areAnnotatedWith(AutoConfiguration.class).should().resideInAPackage(module.getValue())
          .andShould().bePublic().andShould().haveModifier(JavaModifier.FINAL).check(classes);
      List<String> annotated = classes.stream().filter(type -> type.isAnnotatedWith(AutoConfiguration.class))
          .map(JavaClass::getName).toList();
      assertThat(registered(module.getKey()))
          .as("the AutoConfiguration.imports of %s: its auto-configurations, each once", module.getKey())
          .isNotEmpty().doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(annotated);
      annotatedAnywhere.addAll(annotated);
    }
    assertThat(registeredAnywhere).containsExactlyInAnyOrderElementsOf(annotatedAnywhere);
  }

  @Test
  void everyPackageOfEveryPublishedModuleIsNullMarked() {
    JavaClasses all = classesOf(CORE, AUTOCONFIGURE, TEST_SUPPORT, ICEBERG, ICEBERG_AUTOCONFIGURE);
    List<String> packages = all.stream().map(JavaClass::getPackageName).distinct().sorted().toList();
    assertThat(packages).contains("io.icebergscan.planning", "io.icebergscan.planning.autoconfigure",
        "io.icebergscan.planning.test", "io.icebergscan.planning.iceberg", "io.icebergscan.planning.iceberg.autoconfigure");
    for (String name : packages) {
      assertThat(all.getPackage(name).tryGetPackageInfo()).as(name + " has a package-info").isPresent()
          .get().satisfies(info -> assertThat(info.isAnnotatedWith("org.jspecify.annotations.NullMarked"))
              .as(name + " is @NullMarked").isTrue());
    }
  }

  private static List<String> registered(Location module) throws IOException {
    List<String> registered = new ArrayList<>();
    for (URL registration : Collections.list(ModuleArchitectureTests.class.getClassLoader().getResources(IMPORTS))) {
      if (registration.toString().startsWith(resourcePrefix(module))) {
        registered.addAll(lines(registration));
      }
    }
    return registered;
  }

  private static List<String> lines(URL resource) throws IOException {
    try (InputStream in = resource.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }
  }

  /** The URL prefix of resources in a module: {@code jar:file:…!/} for a jar, {@code file:…/} for classes. */
  private static String resourcePrefix(Location module) {
    String uri = module.asURI().toString();
    return uri.endsWith(".jar") ? "jar:" + uri + "!/" : uri;
  }
}
