package io.icebergscan.planning.data.config.hints;

import java.util.List;

import io.icebergscan.planning.data.IcebergTable;
import io.icebergscan.planning.iceberg.Column;

/** An entity with a nested record, a list of them and an explicitly named column: all mapped by reflection. */
@IcebergTable("hints.trips")
public record Trip(long id, Place from, List<Place> stops, @Column("fare_eur") double fare) {

  /** A nested struct column. */
  public record Place(String city, int zip) {
  }
}
