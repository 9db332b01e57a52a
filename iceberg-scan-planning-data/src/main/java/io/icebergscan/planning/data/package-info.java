/**
 * Read-only Spring Data repositories over Apache Iceberg tables: {@link io.icebergscan.planning.data.IcebergTable
 * &#64;IcebergTable} names an entity's table, {@link io.icebergscan.planning.data.IcebergRepository} reads it (or
 * {@link io.icebergscan.planning.data.ReactiveIcebergRepository}, as {@code Flux} and {@code Mono}), and query methods
 * derived from their names are planned on the catalog's server with their predicate pushed down.
 */
@NullMarked
package io.icebergscan.planning.data;

import org.jspecify.annotations.NullMarked;
