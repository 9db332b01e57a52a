package io.icebergscan.planning.test;

import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.Location;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.autoconfigure.ScanPlanningAutoConfiguration;
import io.icebergscan.planning.internal.Redaction;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfiguration;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The rules between the published modules: the core's internal packages are the core's (its tests and the
 * benchmarks may use them too; the auto-configuration uses its {@code Redaction} to mask credentials the one way), and auto-configuration lives in the autoconfigure module's
 * {@code io.icebergscan.planning.autoconfigure} package and in the iceberg module's
 * {@code io.icebergscan.planning.iceberg.autoconfigure} package only. The iceberg module depends on this one, so it
 * is not on this class path: its share of these rules is its own {@code IcebergModuleArchitectureTests}. The core's
 * own rules are its {@code ArchitectureTest}.
 */
class ModuleArchitectureTests {

  private static final String IMPORTS =
      "META-INF/spring/org.springframework.boot.autoconfigure.AutoConfiguration.imports";
  private static final String AUTOCONFIGURE_PACKAGE = "io.icebergscan.planning.autoconfigure";

  private static final Location CORE = location(ScanPlanner.class);
  private static final Location AUTOCONFIGURE = location(ScanPlanningAutoConfiguration.class);
  private static final Location TEST_SUPPORT = location(EmbeddedIcebergCatalog.class);

  private static Location location(Class<?> type) {
    return Location.of(type.getProtectionDomain().getCodeSource().getLocation());
  }

  private static JavaClasses classesOf(Location... modules) {
    return new ClassFileImporter().importLocations(Set.of(modules));
  }

  @Test
  void theCoresInternalsAreUsedByNoOtherModule() {
    JavaClasses others = classesOf(AUTOCONFIGURE, TEST_SUPPORT);
    assertThat(others.contain(ScanPlanningAutoConfiguration.class) && others.contain(EmbeddedIcebergCatalog.class))
        .as("both modules' classes were imported").isTrue();
    noClasses().should().dependOnClassesThat(resideInAPackage("io.icebergscan.planning.internal..")
            .and(not(type(Redaction.class))))
        .because("internal packages carry no compatibility promise: other modules use the core's API")
        .check(others);
    // the one exception, released with the core at the same version: credentials in URIs are masked one way
    noClasses().should().dependOnClassesThat().belongToAnyOf(Redaction.class)
        .because("only the auto-configuration shows what users configured").check(classesOf(TEST_SUPPORT));
  }

  /** Of the modules on this class path (the iceberg module's auto-configuration is its own test's to check). */
  @Test
  void autoConfigurationLivesInTheAutoconfigurePackageOfTheAutoconfigureModuleOnly() throws Exception {
    noClasses().should().beAnnotatedWith(AutoConfiguration.class)
        .orShould().dependOnClassesThat().resideInAPackage("org.springframework.boot.autoconfigure.condition..")
        .check(classesOf(CORE, TEST_SUPPORT));
    JavaClasses autoconfigure = classesOf(AUTOCONFIGURE);
    classes().that().areAnnotatedWith(AutoConfiguration.class).should().resideInAPackage(AUTOCONFIGURE_PACKAGE)
        .check(autoconfigure);

    List<URL> registrations = Collections.list(getClass().getClassLoader().getResources(IMPORTS));
    List<String> ours = new ArrayList<>();
    for (URL registration : registrations) {
      for (String line : lines(registration)) {
        if (line.startsWith("io.icebergscan.")) {
          assertThat(registration.toString()).as(line).startsWith(jarOrDirectory(AUTOCONFIGURE));
          ours.add(line);
        }
      }
    }
    assertThat(ours).isNotEmpty().allSatisfy(name -> assertThat(autoconfigure.get(name)
        .isAnnotatedWith(AutoConfiguration.class)).as(name).isTrue());
  }

  private static List<String> lines(URL resource) throws IOException {
    try (InputStream in = resource.openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
    }
  }

  /** The URL prefix of resources in a module: {@code jar:file:…!/} for a jar, {@code file:…/} for classes. */
  private static String jarOrDirectory(Location module) throws URISyntaxException {
    String uri = module.asURI().toString();
    return uri.endsWith(".jar") ? "jar:" + uri + "!/" : uri;
  }
}
