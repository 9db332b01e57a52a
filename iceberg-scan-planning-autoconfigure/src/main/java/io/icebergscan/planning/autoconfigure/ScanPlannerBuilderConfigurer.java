package io.icebergscan.planning.autoconfigure;

import java.util.function.Consumer;

import io.icebergscan.planning.ScanPlanner;
import org.springframework.boot.context.properties.PropertyMapper;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.util.unit.DataSize;

/**
 * Passes what {@code iceberg.rest.*} sets to a {@link ScanPlanner.Builder}, and nothing else: what is unset keeps
 * the builder's default. The builder checks each value; a value it refuses fails start-up naming the property.
 */
final class ScanPlannerBuilderConfigurer {

  private final IcebergRestProperties properties;

  ScanPlannerBuilderConfigurer(IcebergRestProperties properties) {
    this.properties = properties;
  }

  void configure(ScanPlanner.Builder builder, IcebergRestConnectionDetails connection) {
    PropertyMapper map = PropertyMapper.get();
    IcebergRestProperties properties = this.properties;
    IcebergRestProperties.ScanPlanning planning = properties.scanPlanning();
    IcebergRestProperties.Retry retry = properties.retry();
    builder.uri(connection.getUri()).warehouse(connection.getWarehouse()).prefix(connection.getPrefix());
    map.from(planning.maxConcurrency()).to(set("iceberg.rest.scan-planning.max-concurrency", builder::maxConcurrency));
    map.from(properties.connectTimeout()).to(set("iceberg.rest.connect-timeout", builder::connectTimeout));
    map.from(properties.responseTimeout()).to(set("iceberg.rest.response-timeout", builder::responseTimeout));
    map.from(properties.requestTimeout()).to(set("iceberg.rest.request-timeout", builder::requestTimeout));
    map.from(planning.pollInitialDelay())
        .to(set("iceberg.rest.scan-planning.poll-initial-delay", builder::pollInitialDelay));
    map.from(planning.pollMaxDelay()).to(set("iceberg.rest.scan-planning.poll-max-delay", builder::pollMaxDelay));
    map.from(planning.planTimeout()).to(set("iceberg.rest.scan-planning.plan-timeout", builder::planTimeout));
    map.from(planning.cancelTimeout()).to(set("iceberg.rest.scan-planning.cancel-timeout", builder::cancelTimeout));
    map.from(planning.streamBufferSize())
        .to(set("iceberg.rest.scan-planning.stream-buffer-size", builder::streamBufferSize));
    map.from(planning.maxResponseSize()).to(set("iceberg.rest.scan-planning.max-response-size",
        (DataSize size) -> builder.maxResponseBytes(bytes(size))));
    map.from(planning.replans()).to(set("iceberg.rest.scan-planning.replans", builder::replans));
    map.from(retry.maxRetries()).to(set("iceberg.rest.retry.max-retries", builder::maxRetries));
    map.from(retry.initialDelay()).to(set("iceberg.rest.retry.initial-delay", builder::retryInitialDelay));
    map.from(retry.maxDelay()).to(set("iceberg.rest.retry.max-delay", builder::retryMaxDelay));
    properties.headers().forEach((name, value) -> {
      UnresolvedPlaceholderException.throwIfUnresolved("iceberg.rest.headers." + name, value);
      builder.header(name, value);
    });
  }

  /** The largest planner executor the properties ask for: the planner's limit. */
  int maxConcurrency() {
    Integer configured = this.properties.scanPlanning().maxConcurrency();
    if (configured == null) {
      return ScanPlanner.Builder.defaultMaxConcurrency();
    }
    // the builder's rule, so that the executor is never sized from a value the planner refuses
    set("iceberg.rest.scan-planning.max-concurrency", ScanPlanner.builder()::maxConcurrency).accept(configured);
    return configured;
  }

  private static int bytes(DataSize size) {
    if (size.toBytes() > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("at most 2GB can be accepted, but was " + size);
    }
    return (int) size.toBytes();
  }

  /** A setter whose refusal names the property and its value (never a secret: only settings are mapped here). */
  static <T> Consumer<T> set(String property, Consumer<T> setter) {
    return value -> {
      try {
        setter.accept(value);
      }
      catch (IllegalArgumentException refused) {
        throw new InvalidConfigurationPropertyValueException(property, value, refused.getMessage());
      }
    };
  }
}
