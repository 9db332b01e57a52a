package io.icebergscan.planning.auth;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.util.context.ContextView;

/**
 * Where a planner that plans as its callers ({@code ScanPlanner.Builder#callers}) finds the caller of each call: the
 * user a service serves, from the calling thread for a blocking call and from the subscriber's Reactor context for a
 * reactive one. The Spring Boot starter's comes from Spring Security's {@code Authentication}.
 */
public interface Callers {

  /** The caller of a call made on this thread now, {@code null} when there is none. */
  @Nullable CatalogCredentials current();

  /**
   * The caller of a reactive call, from its subscriber's context; empty when there is none. By default the calling
   * thread's, as {@link #current()} finds it when the call is subscribed.
   */
  default Mono<CatalogCredentials> current(ContextView context) {
    return Mono.fromSupplier(this::current);
  }
}
