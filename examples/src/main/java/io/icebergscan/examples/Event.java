package io.icebergscan.examples;

import io.icebergscan.planning.data.IcebergTable;
import org.jspecify.annotations.Nullable;

/**
 * A row of the demo table {@code demo.events} ({@code DemoTable}), as {@link EventRepository} reads it: each component
 * maps the column of its name.
 *
 * @param id the event's id, unique in the table
 * @param day its day, {@code 2026-11-01} to {@code 2026-11-16}, the table's partition
 * @param payload what happened, {@code click-17}
 */
@IcebergTable("demo.events")
record Event(long id, String day, @Nullable String payload) {
}
