package io.icebergscan.examples;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;

/**
 * Plans a scan with the auto-configured {@code ScanPlanner}, prints a summary, and keeps serving
 * {@code /actuator/health} and {@code /actuator/metrics}. Without {@code iceberg.rest.uri} it plans
 * against an embedded Apache Iceberg REST catalog holding a demo table.
 */
@SpringBootApplication
@EnableConfigurationProperties(ExampleProperties.class)
public class ScanPlanningExampleApplication {

  public static void main(String[] args) {
    SpringApplication.run(ScanPlanningExampleApplication.class, args);
  }
}
