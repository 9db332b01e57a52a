/** Micrometer meters for scan planning, usable without auto-configuration. */
@NullMarked
package io.icebergscan.planning.metrics;

import org.jspecify.annotations.NullMarked;
