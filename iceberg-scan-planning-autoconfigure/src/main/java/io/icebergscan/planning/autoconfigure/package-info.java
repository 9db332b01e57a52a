/** Spring Boot auto-configuration of server-side Iceberg scan planning. */
@NullMarked
package io.icebergscan.planning.autoconfigure;

import org.jspecify.annotations.NullMarked;
