package io.icebergscan.snippets;

import java.util.Map;

import io.icebergscan.planning.autoconfigure.IcebergRestConnectionDetails;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.ScanPlanningCatalog;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class LakeCatalog {

  /** Iceberg's Catalog API, for code that takes one, planning with the application's planner. */
  @Bean
  ScanPlanningCatalog lake(IcebergScanPlanner planner, IcebergRestConnectionDetails catalog) {
    ScanPlanningCatalog lake = new ScanPlanningCatalog(planner);
    lake.initialize("lake", Map.of("uri", catalog.getUri()));
    return lake;
  }
}
