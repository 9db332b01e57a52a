package io.icebergscan.planning.internal.http;

import java.net.ConnectException;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.concurrent.ThreadLocalRandom;

import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.TransportException;
import io.netty.handler.timeout.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpHeaders;
import reactor.core.publisher.Mono;

/**
 * Which failed requests are sent again, and when: 429 and 503 (after the catalog's
 * {@code Retry-After}, capped), 502 and 504, and requests that got no answer at all (refused or reset
 * connections), but not timeouts, which already waited long. Every POST carries an
 * {@code Idempotency-Key} that stays the same on each attempt; a request that creates something is
 * {@linkplain #resending(Mono, boolean) replayable} only if the catalog honours those keys, and is otherwise sent
 * again only after failures that say it was {@linkplain #notProcessed not acted on}. A retried request is
 * still one request to its caller: one plan-task fetch for the walk, holding its slot.
 */
public record RetryPolicy(int maxRetries, Duration initialDelay, Duration maxDelay) {

  /**
   * {@code attempt}, subscribed again after each failure this policy sends again, after its delay. Nothing is built
   * for retries until a failure asks for one: a request that succeeds at once, as nearly all do, carries one
   * operator (Reactor's {@code retryWhen} builds a sink and a processor for every subscription).
   *
   * @param replayable whether the request may be sent again after a failure that may have reached the catalog
   */
  public <T> Mono<T> resending(Mono<T> attempt, boolean replayable) {
    return resending(attempt, replayable, 0);
  }

  private <T> Mono<T> resending(Mono<T> attempt, boolean replayable, int retries) {
    return attempt.onErrorResume(failure -> {
      if (retries >= this.maxRetries || !(replayable ? retryable(failure) : notProcessed(failure))) {
        return Mono.error(failure);
      }
      return Mono.delay(delay(retries, failure)).then(Mono.defer(() -> resending(attempt, replayable, retries + 1)));
    });
  }

  public static boolean retryable(Throwable failure) {
    if (failure instanceof RestException rest) {
      int status = rest.statusCode();
      return status == 429 || status == 502 || status == 503 || status == 504;
    }
    return failure instanceof TransportException
        && !causedBy(failure, TimeoutException.class, java.util.concurrent.TimeoutException.class);
  }

  /** Failures that say the request was not acted on: 429, 503, or a connection that was never made. */
  public static boolean notProcessed(Throwable failure) {
    if (failure instanceof RestException rest) {
      return rest.statusCode() == 429 || rest.statusCode() == 503;
    }
    return failure instanceof TransportException && causedBy(failure, ConnectException.class);
  }

  private static boolean causedBy(Throwable failure, Class<?>... types) {
    for (Throwable cause = failure.getCause(); cause != null; cause = cause.getCause()) {
      for (Class<?> type : types) {
        if (type.isInstance(cause)) {
          return true;
        }
      }
    }
    return false;
  }

  /** Exponential with equal jitter, capped; the catalog's Retry-After when it asks for longer (also capped). */
  public Duration delay(long retry, Throwable failure) {
    Duration delay = backoff(this.initialDelay, this.maxDelay, retry);
    if (failure instanceof RestException rest && rest.retryAfter() != null && rest.retryAfter().compareTo(delay) > 0) {
      delay = rest.retryAfter().compareTo(this.maxDelay) > 0 ? this.maxDelay : rest.retryAfter();
    }
    return delay;
  }

  /** The catalog's {@code Retry-After}: seconds or an HTTP-date (RFC 9110); anything else is ignored. */
  public static @Nullable Duration retryAfter(HttpHeaders headers) {
    String value = headers.getFirst(HttpHeaders.RETRY_AFTER);
    if (value == null || value.isBlank()) {
      return null;
    }
    String trimmed = value.trim();
    try {
      long seconds = Long.parseLong(trimmed);
      return seconds < 0 ? null : Duration.ofSeconds(seconds);
    }
    catch (NumberFormatException notSeconds) {
      try {
        Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(trimmed,
            DateTimeFormatter.RFC_1123_DATE_TIME));
        return until.isNegative() ? Duration.ZERO : until;
      }
      catch (DateTimeParseException notADate) {
        return null;
      }
    }
  }

  /**
   * Wait number {@code attempt} (from 0) of a capped exponential backoff with "equal jitter" (uniform in
   * the upper half), so that many clients backing off together do not act in lock step.
   */
  public static Duration backoff(Duration initial, Duration cap, long attempt) {
    long capMillis = cap.toMillis();
    long initialMillis = initial.toMillis();
    int doublings = (int) Math.min(Math.max(attempt, 0), 62);
    // initial * 2^doublings, or the cap once that passes it: compared before shifting, so it cannot overflow
    long exponential = initialMillis > capMillis >> doublings ? capMillis : initialMillis << doublings;
    return Duration.ofMillis(exponential / 2 + ThreadLocalRandom.current().nextLong(exponential / 2 + 1));
  }
}
