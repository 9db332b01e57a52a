package io.icebergscan.planning.autoconfigure;

import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * The meters of the callers' token exchange ({@link CallerTokenExchange#statistics()}), read when scraped:
 * <ul>
 * <li>{@code iceberg.rest.caller.token.lookups}, tagged {@code cache=hit|miss}: catalog tokens asked for by callers'
 * requests; a miss sent an exchange of its own;</li>
 * <li>{@code iceberg.rest.caller.token.exchanges}, tagged {@code outcome=success|refused|failure}: exchanges at the
 * token endpoint;</li>
 * <li>{@code iceberg.rest.caller.token.refusals}: catalog tokens the catalog refused, dropped and exchanged anew;</li>
 * <li>{@code iceberg.rest.caller.token.cached}: callers whose catalog tokens are kept.</li>
 * </ul>
 * Tags have bounded values only: no caller is named.
 */
final class CallerTokenExchangeMeters {

  private static final String PREFIX = "iceberg.rest.caller.token.";

  private CallerTokenExchangeMeters() {
  }

  static MeterBinder binder(Supplier<CallerTokenExchange.Statistics> statistics) {
    return registry -> {
      counter(registry, "lookups", "cache", "hit", statistics, CallerTokenExchange.Statistics::hits,
          "Catalog tokens asked for by callers' requests");
      counter(registry, "lookups", "cache", "miss", statistics, CallerTokenExchange.Statistics::exchanges,
          "Catalog tokens asked for by callers' requests");
      counter(registry, "exchanges", "outcome", "success", statistics, CallerTokenExchange.Statistics::exchanged,
          "Token exchanges of callers' tokens for catalog tokens");
      counter(registry, "exchanges", "outcome", "refused", statistics,
          CallerTokenExchange.Statistics::exchangesRefused, "Token exchanges of callers' tokens for catalog tokens");
      counter(registry, "exchanges", "outcome", "failure", statistics, CallerTokenExchange.Statistics::exchangesFailed,
          "Token exchanges of callers' tokens for catalog tokens");
      FunctionCounter.builder(PREFIX + "refusals", statistics,
              current -> current.get().catalogRefusals())
          .description("Callers' catalog tokens the catalog refused, exchanged anew")
          .register(registry);
      Gauge.builder(PREFIX + "cached", statistics, current -> current.get().cached())
          .description("Callers whose catalog tokens are kept")
          .register(registry);
    };
  }

  private static void counter(MeterRegistry registry, String name, String tag,
      String value, Supplier<CallerTokenExchange.Statistics> statistics,
      ToDoubleFunction<CallerTokenExchange.Statistics> count, String description) {
    FunctionCounter.builder(PREFIX + name, statistics, current -> count.applyAsDouble(current.get()))
        .tag(tag, value)
        .description(description)
        .register(registry);
  }
}
