package io.icebergscan.planning.iceberg.autoconfigure.repositories;

import io.icebergscan.planning.data.IcebergTable;

@IcebergTable("fleet.trips")
public record Trip(long id, String region, String driver) {
}
