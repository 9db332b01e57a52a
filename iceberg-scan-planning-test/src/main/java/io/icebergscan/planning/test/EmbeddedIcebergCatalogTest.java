package io.icebergscan.planning.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs an {@link EmbeddedIcebergCatalog} for a JUnit test class.
 *
 * <p>In a plain JUnit test the catalog starts before the class's first test, is injected into every
 * non-final field and every parameter of type {@code EmbeddedIcebergCatalog} (static fields included),
 * and is closed after the class's last test. {@code @Nested} classes share their enclosing class's
 * catalog.
 *
 * <p>In a Spring test ({@code @SpringBootTest}, {@code @SpringJUnitConfig}, …) the catalog belongs to
 * the application context instead: it is started when the context is created, registered as a bean, an
 * {@code IcebergRestConnectionDetails} bean points the auto-configured planner at it (whatever
 * {@code iceberg.rest.*} says), and it is closed with the context. Test classes with
 * the same Spring configuration and the same attributes here share one cached context, hence one
 * catalog (and its tables), as they share any other bean. Injection works as above, or with
 * {@code @Autowired}.
 *
 * <p>The attributes set the catalog's knobs; see the methods of {@link EmbeddedIcebergCatalog} with the
 * same names.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(EmbeddedIcebergCatalogExtension.class)
public @interface EmbeddedIcebergCatalogTest {

  /** File scan tasks per plan-task in Iceberg's own planning (without a fan-out). */
  int tasksPerPlanTask() default ServerSettings.DEFAULT_TASKS_PER_PLAN_TASK;

  /** Whether plans are answered {@code submitted} and must be polled. */
  boolean planAsync() default false;

  /** With a fan-out and {@link #planAsync()}: polls of each plan that answer {@code submitted}. */
  int submittedPolls() default 0;

  /** Delay before each {@code /tasks} response, in milliseconds. */
  long tasksLatencyMillis() default 0;

  /**
   * Handles per node of a uniform fan-out ({@link FanOut#uniform}) down to {@link #depth()} levels;
   * 0 (the default) for no fan-out. Not together with {@link #fanOut()}.
   */
  int branching() default 0;

  /** Levels of plan-task handles of the uniform fan-out set by {@link #branching()}. */
  int depth() default 1;

  /**
   * Handles per node for each level ({@link FanOut#levels}), e.g. {@code {4, 1, 3}}; empty (the
   * default) for none. Not together with {@link #branching()}.
   */
  int[] fanOut() default {};

  /** Whether the catalog advertises and serves the planning endpoints. */
  boolean planningEndpoints() default true;

  /**
   * How the catalog authenticates its callers, which its connection details then carry: the auto-configured planner
   * authenticates as an application configured for such a catalog would.
   */
  Authentication authentication() default Authentication.NONE;

  /** How an embedded catalog authenticates its callers. */
  enum Authentication {

    /** Every request is served. */
    NONE,

    /**
     * Requests need an {@code Authorization: Bearer} header ({@link EmbeddedIcebergCatalog#requireBearerToken}); the
     * connection details give a fixed token.
     */
    BEARER_TOKEN,

    /**
     * Requests need a bearer token, which the connection details' OAuth2 client credentials get from the catalog's
     * own {@code POST /v1/oauth/tokens}. Needs {@code org.springframework.security:spring-security-oauth2-client} on
     * the test class path, as OAuth2 in an application does.
     */
    CLIENT_CREDENTIALS
  }
}
