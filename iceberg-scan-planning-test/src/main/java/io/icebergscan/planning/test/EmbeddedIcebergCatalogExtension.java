package io.icebergscan.planning.test;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.commons.support.HierarchyTraversalMode;
import org.junit.platform.commons.support.ModifierSupport;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The JUnit extension behind {@link EmbeddedIcebergCatalogTest}: provides the class's catalog to its
 * fields and parameters, starting it for plain tests or taking the application context's bean in Spring
 * tests.
 */
public final class EmbeddedIcebergCatalogExtension implements BeforeAllCallback, TestInstancePostProcessor,
    ParameterResolver {

  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(EmbeddedIcebergCatalogExtension.class);

  private static final String SPRING_EXTENSION = "org.springframework.test.context.junit.jupiter.SpringExtension";

  @Override
  public void beforeAll(ExtensionContext context) {
    injectFields(context.getRequiredTestClass(), null, catalog(context), ModifierSupport::isStatic);
  }

  @Override
  public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
    injectFields(testInstance.getClass(), testInstance, catalog(context), ModifierSupport::isNotStatic);
  }

  @Override
  public boolean supportsParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return parameterContext.getParameter().getType() == EmbeddedIcebergCatalog.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameterContext, ExtensionContext extensionContext) {
    return catalog(extensionContext);
  }

  /** The catalog for the test: the application context's in a Spring test, else the class's own. */
  private static EmbeddedIcebergCatalog catalog(ExtensionContext context) {
    Class<?> testClass = context.getRequiredTestClass();
    EmbeddedIcebergCatalogTest settings = settings(testClass);
    if (isSpringTest(testClass)) {
      return SpringTestSupport.catalog(context);
    }
    // Stored in the class's context, so JUnit closes it (it is AutoCloseable) after the class;
    // nested classes find their enclosing class's catalog through the parent stores.
    ExtensionContext classContext = context;
    while (classContext.getTestMethod().isPresent() && classContext.getParent().isPresent()) {
      classContext = classContext.getParent().get();
    }
    return classContext.getStore(NAMESPACE).computeIfAbsent(EmbeddedIcebergCatalog.class,
        key -> start(settings), EmbeddedIcebergCatalog.class);
  }

  /** Starts a catalog with the annotation's knobs. */
  static EmbeddedIcebergCatalog start(EmbeddedIcebergCatalogTest settings) {
    EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create().tasksPerPlanTask(settings.tasksPerPlanTask())
        .planAsync(settings.planAsync()).submittedPolls(settings.submittedPolls())
        .tasksLatency(Duration.ofMillis(settings.tasksLatencyMillis())).fanOut(fanOut(settings))
        .planningEndpoints(settings.planningEndpoints())
        .requireBearerToken(settings.authentication() != EmbeddedIcebergCatalogTest.Authentication.NONE);
    return catalog.start();
  }

  private static @Nullable FanOut fanOut(EmbeddedIcebergCatalogTest settings) {
    if (settings.branching() > 0 && settings.fanOut().length > 0) {
      throw new ExtensionConfigurationException(
          "@EmbeddedIcebergCatalogTest: set either branching/depth or fanOut, not both");
    }
    if (settings.branching() > 0) {
      return FanOut.uniform(settings.branching(), settings.depth());
    }
    return settings.fanOut().length > 0 ? FanOut.levels(settings.fanOut()) : null;
  }

  /** The annotation on the class or, for a {@code @Nested} class, on the nearest enclosing class. */
  static EmbeddedIcebergCatalogTest settings(Class<?> testClass) {
    for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
      Optional<EmbeddedIcebergCatalogTest> found = AnnotationSupport.findAnnotation(type,
          EmbeddedIcebergCatalogTest.class);
      if (found.isPresent()) {
        return found.get();
      }
    }
    throw new ExtensionConfigurationException(testClass.getName() + " is not annotated with @"
        + EmbeddedIcebergCatalogTest.class.getSimpleName());
  }

  /** Whether Spring's extension runs the class (or an enclosing class), so the context owns the catalog. */
  private static boolean isSpringTest(Class<?> testClass) {
    for (Class<?> type = testClass; type != null; type = type.getEnclosingClass()) {
      List<ExtendWith> extensions = AnnotationSupport.findRepeatableAnnotations(type, ExtendWith.class);
      for (ExtendWith extendWith : extensions) {
        for (Class<?> extension : extendWith.value()) {
          if (SPRING_EXTENSION.equals(extension.getName())) {
            return true;
          }
        }
      }
    }
    return false;
  }

  private static void injectFields(Class<?> testClass, @Nullable Object testInstance, EmbeddedIcebergCatalog catalog,
      Predicate<Field> scope) {
    List<Field> fields = ReflectionSupport.findFields(testClass, field -> scope.test(field)
        && field.getType() == EmbeddedIcebergCatalog.class, HierarchyTraversalMode.TOP_DOWN);
    for (Field field : fields) {
      if (Modifier.isFinal(field.getModifiers())) {
        throw new ExtensionConfigurationException("cannot inject the catalog into final field " + field);
      }
      try {
        field.setAccessible(true);
        field.set(testInstance, catalog);
      }
      catch (IllegalAccessException | RuntimeException failure) {
        throw new ExtensionConfigurationException("cannot inject the catalog into " + field, failure);
      }
    }
  }
}
