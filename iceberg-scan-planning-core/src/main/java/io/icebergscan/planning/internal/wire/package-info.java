/**
 * Internal, with no compatibility promise: the REST messages, one parser per response message over one
 * path-aware JSON reader, and the request bodies the planner sends.
 */
@NullMarked
package io.icebergscan.planning.internal.wire;

import org.jspecify.annotations.NullMarked;
