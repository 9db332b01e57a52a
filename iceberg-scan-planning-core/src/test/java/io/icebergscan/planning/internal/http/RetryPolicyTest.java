package io.icebergscan.planning.internal.http;

import java.time.Duration;

import io.icebergscan.planning.ScanPlanner;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

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

  @Test
  void waitsDoubleUpToTheCapWithEqualJitter() {
    Duration initial = Duration.ofMillis(100);
    Duration cap = Duration.ofSeconds(10);
    assertThat(RetryPolicy.backoff(initial, cap, 0)).isBetween(Duration.ofMillis(50), Duration.ofMillis(100));
    assertThat(RetryPolicy.backoff(initial, cap, 3)).isBetween(Duration.ofMillis(400), Duration.ofMillis(800));
    assertThat(RetryPolicy.backoff(initial, cap, 30)).isBetween(Duration.ofSeconds(5), cap);
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
