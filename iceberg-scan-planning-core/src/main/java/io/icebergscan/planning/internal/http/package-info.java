/**
 * Internal, with no compatibility promise: the catalog's HTTP surface. {@code CatalogClient} sends each call as a
 * {@code CatalogRequest} through one exchange; {@code CatalogDiscovery} reads what a config means,
 * {@code TablePaths} builds and encodes paths, {@code CatalogErrors} is the one place failures become typed
 * exceptions, {@code RetryPolicy} decides what is sent again, and {@code PlanRequests} counts a plan's requests.
 */
@NullMarked
package io.icebergscan.planning.internal.http;

import org.jspecify.annotations.NullMarked;
