package io.icebergscan.snippets;

import io.icebergscan.planning.data.config.EnableIcebergRepositories;

/**
 * Iceberg repositories without Spring Boot: register this class with your context, which has an
 * IcebergScanPlanner bean (see docs/plain-java.md for building one).
 */
@EnableIcebergRepositories(basePackageClasses = OrderRepository.class)
class PlainSpringRepositories {
}
