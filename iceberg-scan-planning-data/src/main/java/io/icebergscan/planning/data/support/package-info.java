/**
 * How the repositories work: the factory Spring Data's infrastructure builds them with, the query methods derived
 * from their names, and the one place that reads an entity's table ({@code TableReads}).
 */
@NullMarked
package io.icebergscan.planning.data.support;

import org.jspecify.annotations.NullMarked;
