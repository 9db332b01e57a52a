/**
 * The file scan tasks a plan returns, with their data and delete files and credentials, and the catalog endpoints
 * they come through, as the REST spec defines them.
 */
@NullMarked
package io.icebergscan.planning.model;

import org.jspecify.annotations.NullMarked;
