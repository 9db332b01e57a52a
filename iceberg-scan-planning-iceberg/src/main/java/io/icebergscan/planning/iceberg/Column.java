package io.icebergscan.planning.iceberg;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The column a record component or a bean property holds, when its name is not the column's nor the column's in
 * snake case: {@code @Column("evt_ts") Instant at}. On a bean, put it on the field or on the setter. With it, only the
 * column it names is looked for (case-insensitively when the scan is).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target({ ElementType.RECORD_COMPONENT, ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER })
public @interface Column {

  /** The column's name, in the struct that holds it: {@code city}, not {@code address.city}. */
  String value();
}
