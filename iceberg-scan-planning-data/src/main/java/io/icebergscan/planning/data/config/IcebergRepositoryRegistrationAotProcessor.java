package io.icebergscan.planning.data.config;

import java.lang.reflect.Method;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.Set;

import org.springframework.aot.generate.GenerationContext;
import org.springframework.aot.hint.MemberCategory;
import org.springframework.aot.hint.ReflectionHints;
import org.springframework.core.ResolvableType;
import org.springframework.data.repository.config.AotRepositoryContext;
import org.springframework.data.repository.config.RepositoryRegistrationAotProcessor;
import org.springframework.data.repository.core.RepositoryInformation;

/**
 * The runtime hints an Iceberg repository needs in a native image, beyond those Spring Data registers for every
 * repository (its proxy, its base class, its entity for data binding, its interface projections' proxies): rows
 * become entities by reflection ({@code RowMapping}: a record's components and canonical constructor, a bean's
 * constructor, setters and fields with their {@code @Column}), and so do their nested records and beans; a DTO
 * projection is made from the entity's fields ({@code DirectFieldAccessor}) through its constructor; an interface
 * projection's methods are read reflectively. Dynamic projections ({@code Class<P>} parameters) are known only at run
 * time: an application registers those it passes ({@code @RegisterReflectionForBinding}).
 */
public class IcebergRepositoryRegistrationAotProcessor extends RepositoryRegistrationAotProcessor {

  /** What reading rows into a type, or a projection out of it, touches. */
  static final MemberCategory[] MAPPED = { MemberCategory.INVOKE_DECLARED_CONSTRUCTORS,
      MemberCategory.INVOKE_DECLARED_METHODS, MemberCategory.INVOKE_PUBLIC_METHODS,
      MemberCategory.ACCESS_DECLARED_FIELDS };

  @Override
  protected void registerRepositoryCompositionHints(AotRepositoryContext repositoryContext,
      GenerationContext generationContext) {
    super.registerRepositoryCompositionHints(repositoryContext, generationContext);
    RepositoryInformation repository = repositoryContext.getRepositoryInformation();
    ReflectionHints reflection = generationContext.getRuntimeHints().reflection();
    Class<?> entity = repository.getDomainType();
    for (Class<?> mapped : mappedTypes(entity)) {
      reflection.registerType(mapped, MAPPED);
    }
    for (Method method : repository.getQueryMethods()) {
      Class<?> returned = repository.getReturnedDomainClass(method);
      if (returned.equals(entity) || !isApplicationType(returned)) {
        continue;
      }
      if (returned.isInterface()) {
        reflection.registerType(returned, MemberCategory.INVOKE_PUBLIC_METHODS);
      }
      else {
        for (Class<?> mapped : mappedTypes(returned)) {
          reflection.registerType(mapped, MAPPED);
        }
      }
    }
  }

  /** {@code type} and the records and beans its properties hold, however deep, in collections and maps too. */
  static Set<Class<?>> mappedTypes(Class<?> type) {
    Set<Class<?>> types = new LinkedHashSet<>();
    collect(type, types);
    return types;
  }

  private static void collect(Type type, Set<Class<?>> types) {
    if (type instanceof ParameterizedType parameterized) {
      for (Type argument : parameterized.getActualTypeArguments()) {
        collect(argument, types);
      }
      return;
    }
    Class<?> raw = ResolvableType.forType(type).resolve();
    if (raw == null) {
      return;
    }
    if (raw.isArray()) {
      collect(raw.getComponentType(), types);
      return;
    }
    if (!isApplicationType(raw) || raw.isEnum() || raw.isInterface() || !types.add(raw)) {
      return;
    }
    if (raw.isRecord()) {
      for (RecordComponent component : raw.getRecordComponents()) {
        collect(component.getGenericType(), types);
      }
      return;
    }
    for (Method method : raw.getMethods()) {
      if (method.getName().startsWith("set") && method.getParameterCount() == 1) {
        collect(method.getGenericParameterTypes()[0], types);
      }
    }
  }

  /** Not a JDK type, which rows hold as values, nor a primitive. */
  private static boolean isApplicationType(Class<?> type) {
    return !type.isPrimitive() && !type.getName().startsWith("java.") && !type.getName().startsWith("javax.");
  }
}
