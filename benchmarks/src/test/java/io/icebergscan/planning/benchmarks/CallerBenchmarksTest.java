package io.icebergscan.planning.benchmarks;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The caller benchmarks plan what they say, and the token-exchange one counts what its cache did. */
class CallerBenchmarksTest {

  /** The latency catalog checks no identity: which one each client plans as is CallerIdentityTest's to pin. */
  @Test
  void callerPlanPlansTheWholeFlatPlanWithEachOfItsClients() throws Exception {
    CallerPlan benchmark = new CallerPlan();
    benchmark.handles = 8;
    benchmark.limit = 4;
    benchmark.latencyMillis = 0;
    benchmark.start();
    try {
      assertThat(benchmark.service(new ClientCost())).isEqualTo(8);
      assertThat(benchmark.caller(new ClientCost())).isEqualTo(8);
      assertThat(benchmark.callers(new ClientCost())).isEqualTo(8);
    }
    finally {
      benchmark.stop();
    }
  }

  @Test
  void aRoundOfNewCallersExchangesOnceEachAndCallersWhoComeBackNotAtAll() throws Exception {
    CallerTokenExchanges benchmark = new CallerTokenExchanges();
    benchmark.callers = 4;
    benchmark.plansPerCaller = 2;
    benchmark.handles = 3;
    benchmark.fresh = true;
    benchmark.start();
    try {
      CallerTokenExchanges.Cache fresh = new CallerTokenExchanges.Cache();
      assertThat(benchmark.round(fresh)).isEqualTo(4 * 2 * 3);
      assertThat(benchmark.round(fresh)).isEqualTo(4 * 2 * 3);
      // a new user's requests share one exchange; every other lookup of the user's token is a hit
      assertThat(fresh.exchanges).isEqualTo(8);
      assertThat(fresh.callerRounds).isEqualTo(8);
      assertThat(fresh.lookups - fresh.hits).isEqualTo(8);

      // the users of the first round, back
      benchmark.fresh = false;
      CallerTokenExchanges.Cache back = new CallerTokenExchanges.Cache();
      benchmark.round(back);
      benchmark.round(back);
      assertThat(back.exchanges).isZero();
      assertThat(back.lookups).isPositive().isEqualTo(back.hits);
    }
    finally {
      benchmark.stop();
    }
  }
}
