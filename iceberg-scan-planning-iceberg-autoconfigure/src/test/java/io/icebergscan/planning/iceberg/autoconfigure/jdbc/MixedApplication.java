package io.icebergscan.planning.iceberg.autoconfigure.jdbc;

import io.icebergscan.planning.iceberg.autoconfigure.repositories.TripRepository;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.context.annotation.Configuration;

/** An application whose packages hold an Iceberg repository and a JDBC one. */
@Configuration(proxyBeanMethods = false)
@AutoConfigurationPackage(basePackageClasses = { DriverRepository.class, TripRepository.class })
public class MixedApplication {
}
