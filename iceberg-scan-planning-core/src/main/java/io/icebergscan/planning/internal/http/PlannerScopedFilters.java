package io.icebergscan.planning.internal.http;

import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;
import org.springframework.web.reactive.function.client.ExchangeFilterFunction;
import org.springframework.web.reactive.function.client.WebClient;

/**
 * Filters that talk to an endpoint of their own (the OAuth2 filter's token endpoint), which a planner replaces with
 * a copy bound to its own HTTP client, so that those requests get the catalog's timeouts, TLS settings and
 * connection customizations, and the copy's state (a token) is the planner's own.
 *
 * <p>Such a filter's class registers how it is copied when it is first initialized, which is before any planner
 * can be given one. The planner asks here rather than checking for the filter's class, whose Spring Security
 * classes must not be loaded without it, and the filter keeps its copying out of its public API.
 */
public final class PlannerScopedFilters {

  private static volatile BiFunction<ExchangeFilterFunction, WebClient, @Nullable ExchangeFilterFunction> copier =
      (filter, client) -> null;

  private PlannerScopedFilters() {
  }

  /** @param copy the copy of a filter for a planner's client, or {@code null} for a filter it does not copy */
  public static synchronized void register(
      BiFunction<ExchangeFilterFunction, WebClient, @Nullable ExchangeFilterFunction> copy) {
    BiFunction<ExchangeFilterFunction, WebClient, @Nullable ExchangeFilterFunction> before = copier;
    copier = (filter, client) -> {
      ExchangeFilterFunction copied = copy.apply(filter, client);
      return copied != null ? copied : before.apply(filter, client);
    };
  }

  /** The filter a planner uses in place of the given one; called once per filter, when the planner is built. */
  public static ExchangeFilterFunction forPlanner(ExchangeFilterFunction filter, WebClient plannersClient) {
    ExchangeFilterFunction copied = copier.apply(filter, plannersClient);
    return copied != null ? copied : filter;
  }
}
