/** A health indicator for the REST catalog that plans scans, usable without auto-configuration. */
@NullMarked
package io.icebergscan.planning.health;

import org.jspecify.annotations.NullMarked;
