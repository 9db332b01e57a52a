/** The file scan tasks a plan returns, with their data and delete files, as the REST spec defines them. */
@NullMarked
package io.icebergscan.planning.model;

import org.jspecify.annotations.NullMarked;
