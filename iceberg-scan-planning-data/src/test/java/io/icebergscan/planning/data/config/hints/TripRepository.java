package io.icebergscan.planning.data.config.hints;

import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;

/** A repository returning the entity, a DTO projection and an interface projection. */
public interface TripRepository extends IcebergRepository<Trip> {

  List<Trip> findByFareGreaterThan(double fare);

  List<Fare> findByIdLessThan(long id);

  List<Cities> findByIdGreaterThan(long id);

  /** A DTO projection: made through its constructor from the entity's fields. */
  record Fare(long id, double fare) {
  }

  /** A closed interface projection: a proxy whose methods read the entity. */
  interface Cities {

    Trip.Place getFrom();
  }
}
