/**
 * Internal, with no compatibility promise: the concurrent plan-task walk, the one place that decides which
 * handle is fetched when, what is emitted in which order and what is cancelled, and the planner-wide limiter.
 */
@NullMarked
package io.icebergscan.planning.internal.walk;

import org.jspecify.annotations.NullMarked;
