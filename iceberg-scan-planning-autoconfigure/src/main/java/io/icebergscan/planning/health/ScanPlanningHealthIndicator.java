package io.icebergscan.planning.health;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

import io.icebergscan.planning.CatalogCheck;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.internal.Redaction;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Whether the REST catalog behind a {@link ScanPlanner} can plan scans now: it asks the catalog for
 * its configuration afresh, waiting at most the timeout, and is UP only when the catalog answers and
 * advertises both submitting a plan and fetching its plan-tasks.
 *
 * <p>Details: the catalog's {@code uri} (without credentials), its {@code prefix} when it has one,
 * the planning {@code endpoints} and whether each is advertised, and {@code responseTimeMs}; when
 * DOWN, the {@code reason} or the {@code error}.
 */
public final class ScanPlanningHealthIndicator extends AbstractHealthIndicator {

  /** The default longest time a check waits for the catalog. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

  private final ScanPlanner planner;
  private final Duration timeout;

  /** A check of {@code planner}'s catalog that waits at most {@link #DEFAULT_TIMEOUT}. */
  public ScanPlanningHealthIndicator(ScanPlanner planner) {
    this(planner, DEFAULT_TIMEOUT);
  }

  /**
   * @param planner the planner whose catalog is checked
   * @param timeout the longest time a check waits for the catalog
   */
  public ScanPlanningHealthIndicator(ScanPlanner planner, Duration timeout) {
    super("Iceberg REST catalog health check failed");
    this.planner = Objects.requireNonNull(planner, "planner");
    Objects.requireNonNull(timeout, "timeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive: " + timeout);
    }
    this.timeout = timeout;
  }

  @Override
  protected void doHealthCheck(Health.Builder builder) {
    CatalogCheck check;
    try {
      check = this.planner.checkCatalog(this.timeout);
    }
    catch (ScanPlanningException unavailable) {
      // An unreachable or failing catalog is a state of an outside system, not a bug here: report it
      // without the stack trace that AbstractHealthIndicator would log at WARN on every check.
      builder.down().withDetail("error", unavailable.getClass().getName() + ": " + Redaction.maskUserInfo(
          String.valueOf(unavailable.getMessage())));
      return;
    }
    builder.withDetail("uri", check.uri());
    if (check.prefix() != null) {
      builder.withDetail("prefix", check.prefix());
    }
    Map<String, Boolean> endpoints = new TreeMap<>();
    check.planningEndpoints().forEach((endpoint, advertised) -> endpoints.put(endpoint.toString(), advertised));
    builder.withDetail("endpoints", endpoints)
        .withDetail("responseTimeMs", check.responseTime().toMillis());
    if (check.supportsPlanning()) {
      builder.up();
    }
    else {
      builder.down().withDetail("reason", "the catalog does not advertise server-side scan planning; not advertised: "
          + missing(endpoints));
    }
  }

  /** @param endpoints in their order as text */
  private static String missing(Map<String, Boolean> endpoints) {
    return String.join(", ", endpoints.entrySet().stream()
        .filter(endpoint -> !endpoint.getValue())
        .map(Map.Entry::getKey)
        .toList());
  }
}
