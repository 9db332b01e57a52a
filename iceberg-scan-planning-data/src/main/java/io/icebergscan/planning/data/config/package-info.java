/**
 * Turning Iceberg repositories on: {@link io.icebergscan.planning.data.config.EnableIcebergRepositories
 * &#64;EnableIcebergRepositories}, and the Spring Data module it registers.
 */
@NullMarked
package io.icebergscan.planning.data.config;

import org.jspecify.annotations.NullMarked;
