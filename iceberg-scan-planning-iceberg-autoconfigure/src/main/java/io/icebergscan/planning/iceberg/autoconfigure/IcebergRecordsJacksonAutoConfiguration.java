package io.icebergscan.planning.iceberg.autoconfigure;

import io.icebergscan.planning.iceberg.IcebergRecordsModule;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * Apache Iceberg's {@code Record}s as JSON objects in the application's Jackson 3 {@code JsonMapper}
 * ({@link IcebergRecordsModule}), so that a controller can return rows: Spring Boot's Jackson auto-configuration
 * registers every module bean. Without it a {@code Record} is written as {@code {}}.
 */
@AutoConfiguration(beforeName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnClass({ IcebergRecordsModule.class, JsonMapper.class })
public final class IcebergRecordsJacksonAutoConfiguration {

  @Bean
  @ConditionalOnMissingBean
  IcebergRecordsModule icebergRecordsModule() {
    return new IcebergRecordsModule();
  }
}
