package io.icebergscan.planning.iceberg;

import java.lang.reflect.AnnotatedElement;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;
import java.util.stream.Collectors;

import org.apache.iceberg.StructLike;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Type.TypeID;
import org.apache.iceberg.types.Types;
import org.jspecify.annotations.Nullable;

/**
 * Rows as instances of an application's own types: a Java record's components (or a bean's setters) filled from the
 * columns of the same name, or else of that name in snake case ({@code orderId} from {@code order_id}), or else of the
 * name its {@link Column @Column} gives, matched case-insensitively when the scan is. The whole mapping is worked out
 * once, from
 * the rows' schema, before any file is read: a component without its column, or of a type that cannot hold the
 * column's values, fails then with a {@link RowMappingException} naming both.
 *
 * <p>A column's values convert to the Java types Apache Iceberg's generic rows hold them as ({@code Long} for
 * {@code long}, {@code LocalDate} for {@code date}, {@code OffsetDateTime} for {@code timestamptz}, {@code BigDecimal}
 * for {@code decimal}, …), widened where Iceberg widens a column's type ({@code int} into a {@code long} component,
 * {@code float} into a {@code double} one), and to a few of the obvious others: {@code Instant} for
 * {@code timestamptz}, {@code byte[]} or {@code ByteBuffer} for {@code binary} and {@code fixed}, {@code String} for
 * {@code string}. Structs map to nested records or beans, lists to {@code List}s (or any {@code Collection}), maps to
 * {@code Map}s, each element converted the same way; an {@code Object} component takes the value as Iceberg has it.
 * A primitive component needs a required column: an optional one could hold a null.
 */
public final class RowMapping {

  private RowMapping() {
  }

  /**
   * Each row as a {@code type}, every component or property filled from its column.
   *
   * @param type a record class, or a class with a no-argument constructor and setters
   * @param struct the rows' columns
   * @throws RowMappingException when the type does not fit the columns
   */
  public static <T> Function<Record, T> of(Class<T> type, Types.StructType struct, boolean caseSensitive) {
    Function<StructLike, T> mapping = structMapping(type, struct, caseSensitive, false, type.getSimpleName());
    return mapping::apply;
  }

  /**
   * Each row of a narrowed read as a {@code type}: the components whose columns are among {@code struct}'s are
   * filled as {@link #of} fills them, the others are left {@code null} (zero or {@code false} when primitive). For a
   * projection that reads some of an entity's columns and uses no others.
   *
   * @throws RowMappingException when a component with its column does not fit it
   */
  public static <T> Function<Record, T> ofSelected(Class<T> type, Types.StructType struct, boolean caseSensitive) {
    Function<StructLike, T> mapping = structMapping(type, struct, caseSensitive, true, type.getSimpleName());
    return mapping::apply;
  }

  /**
   * The column among {@code struct}'s that {@code type}'s component or property {@code property} holds, by the
   * rules {@link #of} maps with.
   *
   * @throws RowMappingException when there is none, naming the columns there are
   */
  public static Types.NestedField column(Class<?> type, String property, Types.StructType struct,
      boolean caseSensitive) {
    String where = type.getSimpleName() + "." + property;
    int position = position(struct, property, explicitName(type, property), caseSensitive, false, where);
    return struct.fields().get(position);
  }

  /** The components of a record, or the properties of a bean's setters: what rows fill, in that order. */
  public static List<String> properties(Class<?> type) {
    List<String> properties = new ArrayList<>();
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        properties.add(component.getName());
      }
      return properties;
    }
    for (Method method : type.getMethods()) {
      if (isSetter(method)) {
        properties.add(propertyOf(method));
      }
    }
    return properties;
  }

  /** The name a component's or property's {@code @Column} gives, if it has one. */
  private static @Nullable String explicitName(Class<?> type, String property) {
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        if (component.getName().equals(property)) {
          return explicitName(component);
        }
      }
      return null;
    }
    for (Method method : type.getMethods()) {
      if (isSetter(method) && propertyOf(method).equals(property) && method.isAnnotationPresent(Column.class)) {
        return explicitName(method);
      }
    }
    for (Class<?> owner = type; owner != null && owner != Object.class; owner = owner.getSuperclass()) {
      for (Field field : owner.getDeclaredFields()) {
        if (field.getName().equals(property)) {
          return explicitName(field);
        }
      }
    }
    return null;
  }

  private static @Nullable String explicitName(AnnotatedElement element) {
    Column column = element.getAnnotation(Column.class);
    return column == null ? null : column.value();
  }

  private static boolean isSetter(Method method) {
    return method.getName().length() > 3 && method.getName().startsWith("set") && method.getParameterCount() == 1
        && !Modifier.isStatic(method.getModifiers());
  }

  private static String propertyOf(Method setter) {
    return Character.toLowerCase(setter.getName().charAt(3)) + setter.getName().substring(4);
  }

  private static <T> Function<StructLike, T> structMapping(Class<T> type, Types.StructType struct,
      boolean caseSensitive, boolean partial, String path) {
    if (type.isRecord()) {
      return recordMapping(type, struct, caseSensitive, partial, path);
    }
    if (type.isInterface() || Modifier.isAbstract(type.getModifiers()) || type.isPrimitive() || type.isArray()
        || type.getName().startsWith("java.")) {
      throw new RowMappingException(path + ": a " + type.getName() + " cannot hold a row; map rows to a record, or to "
          + "a class with a no-argument constructor and setters");
    }
    return beanMapping(type, struct, caseSensitive, partial, path);
  }

  private static <T> Function<StructLike, T> recordMapping(Class<T> type, Types.StructType struct,
      boolean caseSensitive, boolean partial, String path) {
    RecordComponent[] components = type.getRecordComponents();
    int[] positions = new int[components.length];
    List<Function<Object, Object>> converters = new ArrayList<>();
    Class<?>[] parameterTypes = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent component = components[i];
      String where = path + "." + component.getName();
      parameterTypes[i] = component.getType();
      positions[i] = position(struct, component.getName(), explicitName(component), caseSensitive, partial, where);
      if (positions[i] < 0) {
        Object absent = absent(component.getType());
        converters.add(value -> absent);
        continue;
      }
      Types.NestedField column = struct.fields().get(positions[i]);
      converters.add(converter(column, component.getGenericType(), caseSensitive, partial, where));
    }
    Constructor<T> constructor = accessible(() -> type.getDeclaredConstructor(parameterTypes), path);
    return row -> {
      Object[] arguments = new Object[positions.length];
      for (int i = 0; i < positions.length; i++) {
        arguments[i] = converters.get(i).apply(positions[i] < 0 ? null : row.get(positions[i], Object.class));
      }
      return construct(constructor, arguments, path);
    };
  }

  private static <T> Function<StructLike, T> beanMapping(Class<T> type, Types.StructType struct, boolean caseSensitive,
      boolean partial, String path) {
    Constructor<T> constructor = accessible(type::getDeclaredConstructor, path + " (its no-argument constructor)");
    List<Method> setters = new ArrayList<>();
    List<Integer> positions = new ArrayList<>();
    List<Function<Object, Object>> converters = new ArrayList<>();
    boolean any = false;
    for (Method method : type.getMethods()) {
      if (isSetter(method)) {
        any = true;
        String property = propertyOf(method);
        String where = path + "." + property;
        int position = position(struct, property, explicitName(type, property), caseSensitive, partial, where);
        if (position < 0) {
          continue;
        }
        setters.add(method);
        positions.add(position);
        converters.add(converter(struct.fields().get(position), method.getGenericParameterTypes()[0], caseSensitive,
            partial, where));
      }
    }
    if (!any) {
      throw new RowMappingException(path + ": a " + type.getName() + " has no setters to put columns in");
    }
    return row -> {
      T bean = construct(constructor, new Object[0], path);
      for (int i = 0; i < setters.size(); i++) {
        try {
          setters.get(i).invoke(bean, converters.get(i).apply(row.get(positions.get(i), Object.class)));
        }
        catch (IllegalAccessException | InvocationTargetException failure) {
          throw new RowMappingException(path + ": " + setters.get(i).getName() + " failed: " + failure, failure);
        }
      }
      return bean;
    };
  }

  /**
   * The position of the column a component or property holds: the one its {@code @Column} names, or else the one of
   * its name, or else of its name in snake case ({@code orderId}: {@code order_id}). In a partial mapping, -1 when
   * there is none.
   */
  private static int position(Types.StructType struct, String name, @Nullable String explicit, boolean caseSensitive,
      boolean partial, String where) {
    List<String> candidates = explicit != null ? List.of(explicit)
        : List.copyOf(new LinkedHashSet<>(List.of(name, snakeCase(name))));
    List<Types.NestedField> fields = struct.fields();
    for (String candidate : candidates) {
      for (int i = 0; i < fields.size(); i++) {
        String column = fields.get(i).name();
        if (caseSensitive ? column.equals(candidate) : column.equalsIgnoreCase(candidate)) {
          return i;
        }
      }
    }
    if (partial) {
      return -1;
    }
    throw new RowMappingException(where + " has no column "
        + candidates.stream().map(candidate -> "'" + candidate + "'").collect(Collectors.joining(" or "))
        + (explicit != null ? " (its @Column)" : "") + " among the rows' columns "
        + fields.stream().map(Types.NestedField::name).collect(Collectors.joining(", ", "[", "]"))
        + (caseSensitive ? " (matched case-sensitively, as the scan is)" : ""));
  }

  private static String snakeCase(String name) {
    StringBuilder snake = new StringBuilder();
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (Character.isUpperCase(c) && !snake.isEmpty()) {
        snake.append('_');
      }
      snake.append(Character.toLowerCase(c));
    }
    return snake.toString();
  }

  private static Function<Object, Object> converter(Types.NestedField column, Type target, boolean caseSensitive,
      boolean partial, String where) {
    if (column.isOptional() && target instanceof Class<?> primitive && primitive.isPrimitive()) {
      throw new RowMappingException(where + " is a " + primitive.getName() + ", but column '" + column.name()
          + "' is optional and may be null: declare it as " + box(primitive).getSimpleName());
    }
    return nullSafe(converter(column.type(), target, caseSensitive, partial, where, column.name()));
  }

  private static Function<Object, Object> converter(org.apache.iceberg.types.Type column, Type target,
      boolean caseSensitive, boolean partial, String where, String columnName) {
    Class<?> raw = box(rawType(target, where));
    TypeID id = column.typeId();
    if (raw == Object.class) {
      return value -> value;
    }
    switch (id) {
      case BOOLEAN, STRING, DATE, TIME, TIMESTAMP, TIMESTAMP_NANO, UUID, DECIMAL, DOUBLE, LONG, INTEGER, FLOAT -> {
        if (id == TypeID.STRING && raw == String.class) {
          return Object::toString;
        }
        if (raw.isAssignableFrom(heldAs(column))) {
          return value -> value;
        }
        if (raw == Long.class && id == TypeID.INTEGER) {
          return value -> ((Integer) value).longValue();
        }
        if (raw == Double.class && id == TypeID.FLOAT) {
          return value -> ((Float) value).doubleValue();
        }
        if (raw == Instant.class && id == TypeID.TIMESTAMP && ((Types.TimestampType) column).shouldAdjustToUTC()) {
          return value -> ((OffsetDateTime) value).toInstant();
        }
        if (raw == Instant.class && id == TypeID.TIMESTAMP_NANO
            && ((Types.TimestampNanoType) column).shouldAdjustToUTC()) {
          return value -> ((OffsetDateTime) value).toInstant();
        }
      }
      case BINARY, FIXED -> {
        if (raw == byte[].class) {
          return value -> value instanceof ByteBuffer buffer ? bytes(buffer) : value;
        }
        if (raw == ByteBuffer.class) {
          return value -> value instanceof byte[] bytes ? ByteBuffer.wrap(bytes) : ((ByteBuffer) value).duplicate();
        }
      }
      case STRUCT -> {
        if (!raw.getName().startsWith("java.")) {
          Function<StructLike, ?> nested = structMapping(raw, column.asStructType(), caseSensitive, partial, where);
          return value -> nested.apply((StructLike) value);
        }
      }
      case LIST -> {
        if (Collection.class.isAssignableFrom(raw) && raw.isAssignableFrom(ArrayList.class)) {
          Types.NestedField element = column.asListType().fields().get(0);
          Function<Object, Object> elements = converter(element, typeArgument(target, 0), caseSensitive, partial,
              where + "[]");
          return value -> {
            List<Object> converted = new ArrayList<>();
            for (Object item : (Collection<?>) value) {
              converted.add(elements.apply(item));
            }
            return converted;
          };
        }
      }
      case MAP -> {
        if (raw.isAssignableFrom(LinkedHashMap.class)) {
          Types.MapType map = column.asMapType();
          Function<Object, Object> keys = converter(map.fields().get(0), typeArgument(target, 0), caseSensitive,
              partial, where + "{key}");
          Function<Object, Object> values = converter(map.fields().get(1), typeArgument(target, 1), caseSensitive,
              partial, where + "{value}");
          return value -> {
            Map<Object, Object> converted = new LinkedHashMap<>();
            ((Map<?, ?>) value).forEach((key, item) -> converted.put(keys.apply(key), values.apply(item)));
            return converted;
          };
        }
      }
      default -> {
        // VARIANT, GEOMETRY, …: only as Iceberg has them, in an Object component
      }
    }
    throw new RowMappingException(where + " is a " + target.getTypeName() + ", which cannot hold column '" + columnName
        + "' of type " + column);
  }

  /**
   * The Java type Iceberg's generic rows hold a primitive column's values as ({@code CharSequence} for a string,
   * {@code Object} for binary and the types that are not primitive).
   */
  public static Class<?> heldAs(org.apache.iceberg.types.Type column) {
    return switch (column.typeId()) {
      case BOOLEAN -> Boolean.class;
      case INTEGER -> Integer.class;
      case LONG -> Long.class;
      case FLOAT -> Float.class;
      case DOUBLE -> Double.class;
      case DECIMAL -> BigDecimal.class;
      case STRING -> CharSequence.class;
      case DATE -> LocalDate.class;
      case TIME -> LocalTime.class;
      case TIMESTAMP -> ((Types.TimestampType) column).shouldAdjustToUTC() ? OffsetDateTime.class
          : LocalDateTime.class;
      case TIMESTAMP_NANO -> ((Types.TimestampNanoType) column).shouldAdjustToUTC() ? OffsetDateTime.class
          : LocalDateTime.class;
      case UUID -> UUID.class;
      default -> Object.class;
    };
  }

  private static Function<Object, Object> nullSafe(Function<Object, Object> converter) {
    return value -> value == null ? null : converter.apply(value);
  }

  private static Class<?> rawType(Type target, String where) {
    if (target instanceof Class<?> type) {
      return type;
    }
    if (target instanceof ParameterizedType parameterized) {
      return (Class<?>) parameterized.getRawType();
    }
    if (target instanceof WildcardType wildcard && wildcard.getUpperBounds().length == 1) {
      return rawType(wildcard.getUpperBounds()[0], where);
    }
    throw new RowMappingException(where + " is a " + target.getTypeName() + ": give it a concrete type");
  }

  /** The type argument of a {@code List<E>} or {@code Map<K, V>}; {@code Object} when raw. */
  private static Type typeArgument(Type target, int index) {
    return target instanceof ParameterizedType parameterized ? parameterized.getActualTypeArguments()[index]
        : Object.class;
  }

  /** What a component without its column in a partial mapping holds: its type's default. */
  private static @Nullable Object absent(Class<?> type) {
    if (!type.isPrimitive()) {
      return null;
    }
    return switch (type.getName()) {
      case "boolean" -> false;
      case "char" -> '\0';
      case "byte" -> (byte) 0;
      case "short" -> (short) 0;
      case "int" -> 0;
      case "long" -> 0L;
      case "float" -> 0f;
      default -> 0d;
    };
  }

  private static Class<?> box(Class<?> type) {
    if (!type.isPrimitive()) {
      return type;
    }
    return switch (type.getName()) {
      case "boolean" -> Boolean.class;
      case "int" -> Integer.class;
      case "long" -> Long.class;
      case "float" -> Float.class;
      case "double" -> Double.class;
      case "short" -> Short.class;
      case "byte" -> Byte.class;
      case "char" -> Character.class;
      default -> Void.class;
    };
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] bytes = new byte[copy.remaining()];
    copy.get(bytes);
    return bytes;
  }

  private interface Lookup<T> {
    Constructor<T> find() throws NoSuchMethodException;
  }

  private static <T> Constructor<T> accessible(Lookup<T> lookup, String what) {
    try {
      Constructor<T> constructor = lookup.find();
      constructor.setAccessible(true);
      return constructor;
    }
    catch (NoSuchMethodException | RuntimeException failure) {
      throw new RowMappingException(what + " cannot be made: " + failure, failure);
    }
  }

  private static <T> T construct(Constructor<T> constructor, @Nullable Object[] arguments, String path) {
    try {
      return constructor.newInstance(arguments);
    }
    catch (InvocationTargetException failure) {
      throw new RowMappingException(path + " refused a row: " + failure.getCause(), failure.getCause());
    }
    catch (ReflectiveOperationException failure) {
      throw new RowMappingException(path + " cannot be made: " + failure, failure);
    }
  }
}
