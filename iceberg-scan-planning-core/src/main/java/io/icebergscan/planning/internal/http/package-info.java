/**
 * Internal, with no compatibility promise: the catalog's HTTP surface (discovery, submit, poll, cancel, fetch),
 * the one place HTTP failures become typed exceptions ({@code CatalogErrors}), and the retry policy.
 */
@NullMarked
package io.icebergscan.planning.internal.http;

import org.jspecify.annotations.NullMarked;
