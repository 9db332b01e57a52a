/**
 * What the planner reports through Micrometer's Observation API: the {@code iceberg.scan.plan} and
 * {@code iceberg.scan.plan-task.fetch} observations ({@link ScanPlanningObservationDocumentation}), their contexts,
 * and the conventions that name them and choose their tags. Register a convention of your own on the planner's
 * builder to change either.
 */
@NullMarked
package io.icebergscan.planning.observation;

import org.jspecify.annotations.NullMarked;
