/**
 * Test support: Apache Iceberg's REST catalog server embedded in the JVM
 * ({@link io.icebergscan.planning.test.EmbeddedIcebergCatalog}), with knobs for plan-task fan-out,
 * asynchronous planning and {@code /tasks} latency, and
 * {@link io.icebergscan.planning.test.EmbeddedIcebergCatalogTest} to run one for a JUnit or Spring test.
 */
@NullMarked
package io.icebergscan.planning.test;

import org.jspecify.annotations.NullMarked;
