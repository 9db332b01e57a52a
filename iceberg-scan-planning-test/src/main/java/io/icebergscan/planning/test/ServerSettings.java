package io.icebergscan.planning.test;

import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import org.apache.iceberg.io.StorageCredential;
import org.jspecify.annotations.Nullable;

/**
 * The knobs of a running catalog. Each is read once per request, so a change applies to the requests
 * that start after it; a plan keeps the shape it was planned with.
 */
final class ServerSettings {

  /** Iceberg's own default ({@code PlanningBehavior.numberFileScanTasksPerPlanTask()}). */
  static final int DEFAULT_TASKS_PER_PLAN_TASK = 100;

  volatile int tasksPerPlanTask = DEFAULT_TASKS_PER_PLAN_TASK;
  volatile boolean planAsync;
  volatile int submittedPolls;
  volatile Duration tasksLatency = Duration.ZERO;
  volatile Duration metricsLatency = Duration.ZERO;
  volatile @Nullable FanOut fanOut;
  volatile boolean planningEndpoints = true;
  volatile boolean requireBearerToken;
  /** What credentials each answer that carries some vends; {@code null}: none, and no credentials endpoint. */
  volatile @Nullable Function<EmbeddedIcebergCatalog.CredentialsRequest, List<StorageCredential>> vendedCredentials;
  volatile boolean credentialsEndpoint = true;
  /** The {@code read-restrictions} of table loads, per table and per table and bearer token. */
  final RestrictionPolicies readRestrictions = new RestrictionPolicies();
  /** The principals, their tokens and grants; while there are none, requests are not told apart. */
  final Principals principals = new Principals();
}
