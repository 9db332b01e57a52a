package io.icebergscan.planning.iceberg.autoconfigure;

import io.icebergscan.planning.iceberg.IcebergRecordsModule;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/** The application's own {@code JsonMapper}, as Spring Boot builds it, writes Iceberg's rows as objects. */
class IcebergRecordsJacksonAutoConfigurationTests {

  private static final Schema SCHEMA = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()));

  private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
      AutoConfigurations.of(JacksonAutoConfiguration.class, IcebergRecordsJacksonAutoConfiguration.class));

  @Test
  void bootsJsonMapperWritesARecordAsAnObjectOfItsColumns() {
    Record row = GenericRecord.create(SCHEMA);
    row.setField("id", 7L);
    row.setField("day", java.time.LocalDate.of(2026, 12, 3));
    this.runner.run(context -> {
      assertThat(context).hasSingleBean(IcebergRecordsModule.class);
      assertThat(context.getBean(JsonMapper.class).writeValueAsString(row)).isEqualTo("{\"id\":7,\"day\":\"2026-12-03\"}");
    });
  }

  @Test
  void withoutTheIcebergModuleThereIsNone() {
    this.runner.withClassLoader(new FilteredClassLoader(IcebergRecordsModule.class))
        .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(IcebergRecordsModule.class));
  }

  @Test
  void aModuleOfTheApplicationsOwnWins() {
    IcebergRecordsModule own = new IcebergRecordsModule();
    this.runner.withBean("own", IcebergRecordsModule.class, () -> own)
        .run(context -> assertThat(context).getBean(IcebergRecordsModule.class).isSameAs(own));
  }
}
