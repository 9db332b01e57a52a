package io.icebergscan.planning.iceberg.autoconfigure.refused;

import java.util.List;

import io.icebergscan.planning.data.IcebergRepository;
import io.icebergscan.planning.iceberg.autoconfigure.repositories.Trip;

public interface LikeRepository extends IcebergRepository<Trip> {

  List<Trip> findByRegionLike(String pattern);
}
