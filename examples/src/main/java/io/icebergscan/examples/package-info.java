/** The example application: plans a table through the starter, and reads what it planned. */
@NullMarked
package io.icebergscan.examples;

import org.jspecify.annotations.NullMarked;
