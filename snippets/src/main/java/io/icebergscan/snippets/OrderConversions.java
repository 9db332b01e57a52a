package io.icebergscan.snippets;

import io.icebergscan.planning.data.IcebergConversionService;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

@Configuration(proxyBeanMethods = false)
class OrderConversions {

  /** An amount in the application's own type. */
  record Cents(int value) {
  }

  /** Replaces the starter's: query arguments of type Cents compare with int columns. */
  @Bean
  IcebergConversionService icebergConversionService() {
    IcebergConversionService conversions = new IcebergConversionService();
    conversions.addConverter(Cents.class, Integer.class, Cents::value);
    return conversions;
  }
}
