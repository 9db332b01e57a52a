package io.icebergscan.planning.iceberg.autoconfigure.jdbc;

import org.springframework.data.repository.CrudRepository;

public interface DriverRepository extends CrudRepository<Driver, Long> {
}
