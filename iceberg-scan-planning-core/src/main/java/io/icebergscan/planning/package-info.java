/**
 * Server-side Apache Iceberg scan planning through a REST catalog: {@link io.icebergscan.planning.ScanPlanner}
 * and its requests, results and exceptions.
 */
@NullMarked
package io.icebergscan.planning;

import org.jspecify.annotations.NullMarked;
