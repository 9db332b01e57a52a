package io.icebergscan.planning.iceberg.autoconfigure.repositories;

import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;

public interface TripRepository extends IcebergRepository<Trip> {

  List<Trip> findByRegion(String region);

  long countByRegion(String region);
}
