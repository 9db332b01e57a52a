/**
 * Test support: Apache Iceberg's REST catalog server embedded in the JVM
 * ({@link io.icebergscan.planning.test.EmbeddedIcebergCatalog}), with knobs for plan-task fan-out,
 * asynchronous planning, {@code /tasks} latency and the read restrictions of governed tables
 * ({@link io.icebergscan.planning.test.RestrictionPolicy}), and
 * {@link io.icebergscan.planning.test.EmbeddedIcebergCatalogTest} to run one for a JUnit or Spring test; and an S3
 * API server in the JVM ({@link io.icebergscan.planning.test.EmbeddedS3}) for a catalog whose warehouse is in
 * object storage.
 */
@NullMarked
package io.icebergscan.planning.test;

import org.jspecify.annotations.NullMarked;
