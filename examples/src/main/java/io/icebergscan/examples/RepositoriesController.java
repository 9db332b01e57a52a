package io.icebergscan.examples;

import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

import io.icebergscan.planning.data.ExpiredScrollPositionException;
import io.icebergscan.planning.data.IcebergScrollPosition;
import org.jspecify.annotations.Nullable;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolder;
import org.springframework.security.core.context.SecurityContextHolderStrategy;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

/**
 * The example's Spring Data repositories over HTTP: {@code GET /events?day=2026-11-04&limit=10} serves a derived query
 * ({@link EventRepository#findByDay(String, Limit)}), {@code GET /events/window?day=2026-11-04&size=10} pages through
 * a day with a {@link Window}, whose {@code next} token ({@link IcebergScrollPosition#toToken()}) the client hands
 * back as {@code after} for the next page, and {@code GET /customers?country=DE} reads the governed
 * {@code demo.customers} ({@link CustomerRepository}).
 *
 * <p>The repositories block, so each call runs on Reactor's bounded elastic threads. With
 * {@code iceberg.rest.identity=caller} (the {@code callers} profile) the planner finds the caller of a blocking call in
 * {@link SecurityContextHolder}: the request's security context, which WebFlux keeps in the Reactor context, is set
 * there for the call, so that the repository reads as the caller, with the restrictions the catalog serves them.
 */
@RestController
class RepositoriesController {

  /** Rows one answer holds at most. */
  static final int MAX_LIMIT = 1_000;

  private final EventRepository events;
  private final CustomerRepository customers;

  RepositoriesController(EventRepository events, CustomerRepository customers) {
    this.events = events;
    this.customers = customers;
  }

  @GetMapping("/events")
  Mono<List<Event>> events(@RequestParam String day, @RequestParam(defaultValue = "100") int limit) {
    Limit rows = limit(limit);
    return asCaller(() -> this.events.findByDay(day, rows));
  }

  /**
   * One page of a day's events.
   *
   * @param events the page's events
   * @param next the token of the next page, {@code null} after the last
   */
  record EventsPage(List<Event> events, @Nullable String next) {
  }

  @GetMapping("/events/window")
  Mono<EventsPage> eventsWindow(@RequestParam String day, @RequestParam(defaultValue = "100") int size,
      @RequestParam(required = false) @Nullable String after) {
    Limit rows = limit(size);
    IcebergScrollPosition position = after == null ? IcebergScrollPosition.initial()
        : IcebergScrollPosition.fromToken(after);
    return asCaller(() -> {
      Window<Event> window = this.events.findByDay(day, position, rows);
      String next = window.hasNext() && !window.isEmpty()
          ? ((IcebergScrollPosition) window.positionAt(window.size() - 1)).toToken() : null;
      return new EventsPage(window.getContent(), next);
    });
  }

  /** How many events a day has. */
  record EventCount(String day, long events) {
  }

  @GetMapping("/events/count")
  Mono<EventCount> eventCount(@RequestParam String day) {
    return asCaller(() -> new EventCount(day, this.events.countByDay(day)));
  }

  @GetMapping("/customers")
  Mono<List<Customer>> customers(@RequestParam String country, @RequestParam(defaultValue = "100") int limit) {
    Limit rows = limit(limit);
    return asCaller(() -> this.customers.findByCountry(country, rows));
  }

  private static Limit limit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be between 1 and " + MAX_LIMIT + ", but was " + limit);
    }
    return Limit.of(limit);
  }

  /**
   * {@code call}, made on a thread that may block, with the request's security context in
   * {@link SecurityContextHolder}, where the planner looks for the caller of a blocking call.
   */
  private static <T> Mono<T> asCaller(Supplier<T> call) {
    return ReactiveSecurityContextHolder.getContext().map(Optional::of).defaultIfEmpty(Optional.empty())
        .publishOn(Schedulers.boundedElastic())
        .map(security -> {
          SecurityContextHolderStrategy holder = SecurityContextHolder.getContextHolderStrategy();
          security.ifPresent(holder::setContext);
          try {
            return call.get();
          }
          finally {
            holder.clearContext();
          }
        });
  }

  /** A limit out of range, a token that is no scroll position, a value the column cannot hold: to fix by the client. */
  @ExceptionHandler(IllegalArgumentException.class)
  ProblemDetail badRequest(IllegalArgumentException refused) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, String.valueOf(refused.getMessage()));
  }

  /** A page token whose snapshot the table no longer has: the client starts again from the first page. */
  @ExceptionHandler(ExpiredScrollPositionException.class)
  ProblemDetail expired(ExpiredScrollPositionException expired) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.GONE, String.valueOf(expired.getMessage()));
  }
}
