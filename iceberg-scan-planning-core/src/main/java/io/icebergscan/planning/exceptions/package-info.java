/**
 * The failures a planner reports, all {@link io.icebergscan.planning.exceptions.ScanPlanningException}s, each
 * naming the plan-task handle whose fetch failed when there is one.
 */
@NullMarked
package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.NullMarked;
