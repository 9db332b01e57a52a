package io.icebergscan.planning.data;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Pins the snapshot a query method reads: exactly one of a snapshot {@link #id()}, a branch or tag {@link #ref()}, or
 * a time {@link #asOf()} (an ISO-8601 instant, {@code "2026-01-01T00:00:00Z"}). A {@link TableSnapshot} parameter of
 * the method, when not {@code null}, overrides it. Checked at start-up.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface AtSnapshot {

  /** A snapshot id; unset when negative. */
  long id() default -1;

  /** A branch or tag; unset when empty. */
  String ref() default "";

  /** An ISO-8601 instant; unset when empty. */
  String asOf() default "";
}
