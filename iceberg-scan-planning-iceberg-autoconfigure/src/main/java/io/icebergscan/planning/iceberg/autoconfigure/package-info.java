/**
 * Spring Boot auto-configuration of the {@code IcebergScanPlanner}: plans read as Apache Iceberg's types over the
 * application's {@code ScanPlanner}.
 */
@NullMarked
package io.icebergscan.planning.iceberg.autoconfigure;

import org.jspecify.annotations.NullMarked;
