package io.icebergscan.planning.internal.http;

import java.io.IOException;
import java.net.ConnectException;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.RestException;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.exceptions.TransportException;
import io.netty.handler.timeout.ReadTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The backoff's arithmetic, and the rules between its settings. */
class RetryPolicyTest {

  @ParameterizedTest(name = "attempt {0}")
  @ValueSource(longs = { 0, 1, 20, 30, 40, 62, 63, 64, 1000, Long.MAX_VALUE })
  void aLargeInitialDelayNeverOverflowsPastTheCap(long attempt) {
    Duration cap = Duration.ofHours(1);
    for (Duration initial : new Duration[] { Duration.ofDays(365 * 1000L), Duration.ofMinutes(59), Duration.ofMillis(1) }) {
      Duration wait = RetryPolicy.backoff(initial, cap, attempt);
      assertThat(wait).as("initial %s", initial).isBetween(Duration.ZERO, cap);
    }
  }

  /** Doubling is exact until it would pass the cap: 3 ms doubled twice is 12, not the cap of 15. */
  @Test
  void aDoublingJustBelowTheCapIsNotRoundedUpToIt() {
    for (int sample = 0; sample < 500; sample++) {
      assertThat(RetryPolicy.backoff(Duration.ofMillis(3), Duration.ofMillis(15), 2))
          .isBetween(Duration.ofMillis(6), Duration.ofMillis(12));
    }
  }

  @Test
  void waitsDoubleUpToTheCapWithEqualJitter() {
    Duration initial = Duration.ofMillis(100);
    Duration cap = Duration.ofSeconds(10);
    assertThat(RetryPolicy.backoff(initial, cap, 0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    assertThat(RetryPolicy.backoff(initial, cap, 3)).isBetween(Duration.ofMillis(400), Duration.ofMillis(800));
    assertThat(RetryPolicy.backoff(initial, cap, 30)).isBetween(Duration.ofSeconds(5), cap);
  }

  @Test
  void transientAnswersAndLostConnectionsAreRetriedButNotTimeoutsOrOtherStatuses() {
    for (int status : new int[] { 429, 502, 503, 504 }) {
      assertThat(RetryPolicy.retryable(rest(status, null))).as("%d", status).isTrue();
    }
    for (int status : new int[] { 400, 404, 500, 501 }) {
      assertThat(RetryPolicy.retryable(rest(status, null))).as("%d", status).isFalse();
    }
    assertThat(RetryPolicy.retryable(transport(new IOException("reset")))).isTrue();
    assertThat(RetryPolicy.retryable(transport(new ConnectException("refused")))).isTrue();
    assertThat(RetryPolicy.retryable(transport(new IOException("wrapped", new TimeoutException())))).isFalse();
    assertThat(RetryPolicy.retryable(transport(ReadTimeoutException.INSTANCE))).isFalse();
    assertThat(RetryPolicy.retryable(new ScanPlanningException("a bug"))).isFalse();
  }

  /** What a submission without honoured keys may be sent again after: only what says it was not acted on. */
  @Test
  void onlyFailuresThatSayTheRequestWasNotActedOnCountAsNotProcessed() {
    assertThat(RetryPolicy.notProcessed(rest(429, null))).isTrue();
    assertThat(RetryPolicy.notProcessed(rest(503, null))).isTrue();
    assertThat(RetryPolicy.notProcessed(rest(502, null))).isFalse();
    assertThat(RetryPolicy.notProcessed(rest(504, null))).isFalse();
    assertThat(RetryPolicy.notProcessed(transport(new ConnectException("refused")))).isTrue();
    assertThat(RetryPolicy.notProcessed(transport(new IOException("reset after sending")))).isFalse();
    assertThat(RetryPolicy.notProcessed(new ScanPlanningException("a bug"))).isFalse();
  }

  /** The catalog's Retry-After wins over a shorter backoff, and is capped at the maximum. */
  @Test
  void aLongerRetryAfterIsWaitedForUpToTheCap() {
    RetryPolicy policy = new RetryPolicy(3, Duration.ofMillis(10), Duration.ofSeconds(5));
    assertThat(policy.delay(0, rest(503, Duration.ofSeconds(2)))).isEqualTo(Duration.ofSeconds(2));
    assertThat(policy.delay(0, rest(503, Duration.ofMinutes(2)))).isEqualTo(Duration.ofSeconds(5));
    assertThat(policy.delay(0, rest(503, Duration.ZERO))).isBetween(Duration.ofMillis(5), Duration.ofMillis(10));
    assertThat(policy.delay(0, transport(new IOException()))).isBetween(Duration.ofMillis(5), Duration.ofMillis(10));
  }

  private static RestException rest(int status, Duration retryAfter) {
    return new RestException(status, null, "scripted", null, retryAfter);
  }

  private static TransportException transport(Throwable cause) {
    return new TransportException("scripted", null, cause);
  }

  @Test
  void aRetryInitialDelayAboveTheMaximumIsRefusedAsForPolls() {
    assertThatThrownBy(() -> ScanPlanner.builder().uri("http://localhost").retryInitialDelay(Duration.ofSeconds(20))
        .retryMaxDelay(Duration.ofSeconds(10)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryMaxDelay")
        .hasMessageContaining("retryInitialDelay");
    assertThatThrownBy(() -> ScanPlanner.builder().uri("http://localhost").pollInitialDelay(Duration.ofSeconds(20))
        .pollMaxDelay(Duration.ofSeconds(10)).build())
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("pollMaxDelay");
  }
}
