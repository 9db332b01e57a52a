package io.icebergscan.planning.data.support;

import java.lang.reflect.Constructor;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.BeanUtils;
import org.springframework.beans.DirectFieldAccessor;
import org.springframework.core.convert.ConversionService;
import org.springframework.core.convert.support.DefaultConversionService;

/**
 * A DTO projection made from an entity: its constructor's parameters are entity properties, by name, as Spring Data
 * DTO projections' are. The entity was read with only those properties' columns.
 */
final class Dtos {

  private Dtos() {
  }

  static <D> Function<Object, D> of(Class<D> dto) {
    Constructor<D> constructor = BeanUtils.getResolvableConstructor(dto);
    String[] names = BeanUtils.getParameterNames(constructor);
    Class<?>[] types = constructor.getParameterTypes();
    ConversionService conversions = DefaultConversionService.getSharedInstance();
    return source -> {
      DirectFieldAccessor properties = new DirectFieldAccessor(source);
      @Nullable Object[] arguments = new Object[names.length];
      for (int i = 0; i < names.length; i++) {
        Object value = properties.getPropertyValue(names[i]);
        arguments[i] = value == null || types[i].isInstance(value) ? value : conversions.convert(value, types[i]);
      }
      return BeanUtils.instantiateClass(constructor, arguments);
    };
  }
}
