/**
 * Plans as Apache Iceberg's own types: table metadata loaded through the planner, {@code FileScanTask}s and split
 * {@code CombinedScanTask}s, a plan-scoped {@code FileIO} with the credentials the catalog vended, and rows read
 * with deletes applied.
 */
@NullMarked
package io.icebergscan.planning.iceberg;

import org.jspecify.annotations.NullMarked;
