/**
 * Internal, with no compatibility promise: the planner behind {@code ScanPlanner.builder()}.
 * {@code RestScanPlanner} owns the HTTP client, the executor and the catalog calls; each plan is a {@code PlanRun},
 * which walks the plan-tasks ({@code internal.walk}) over the catalog client ({@code internal.http});
 * {@code Instrumentation} starts and stops its observations, and {@code PlannerSettings} holds its limits.
 */
@NullMarked
package io.icebergscan.planning.internal.planner;

import org.jspecify.annotations.NullMarked;
