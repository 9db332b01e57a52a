package io.icebergscan.planning.iceberg;

import java.util.function.Function;

import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link Column @Column}'s explicit names, the column a property resolves to, and the partial mapping a projection
 * reads with: the rules repositories and {@code rows(Class)} share.
 */
class RowMappingColumnTests {

  private static final Types.StructType ADDRESS = Types.StructType.of(
      Types.NestedField.required(21, "city_name", Types.StringType.get()),
      Types.NestedField.optional(22, "zip", Types.IntegerType.get()));
  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "event_id", Types.LongType.get()),
      Types.NestedField.optional(2, "evt_kind", Types.StringType.get()),
      Types.NestedField.optional(3, "address", ADDRESS));

  record Address(@Column("city_name") String city, Integer zip) {
  }

  record Event(long eventId, @Column("evt_kind") String kind, Address address) {
  }

  public static class EventBean {
    @Column("evt_kind")
    private String kind;
    private long eventId;

    public void setKind(String kind) {
      this.kind = kind;
    }

    public void setEventId(long eventId) {
      this.eventId = eventId;
    }
  }

  record Misnamed(@Column("kind") String kind) {
  }

  private static Record row() {
    Record address = GenericRecord.create(ADDRESS);
    address.setField("city_name", "Lisbon");
    address.setField("zip", 1100);
    Record row = GenericRecord.create(SCHEMA);
    row.setField("event_id", 7L);
    row.setField("evt_kind", "click");
    row.setField("address", address);
    return row;
  }

  @Test
  void anExplicitNameMapsARecordComponentAndANestedOne() {
    Event event = RowMapping.of(Event.class, SCHEMA.asStruct(), true).apply(row());

    assertThat(event).isEqualTo(new Event(7L, "click", new Address("Lisbon", 1100)));
  }

  @Test
  void anExplicitNameOnABeanFieldMapsItsSetter() {
    EventBean bean = RowMapping.of(EventBean.class, SCHEMA.asStruct(), true).apply(row());

    assertThat(bean.kind).isEqualTo("click");
    assertThat(bean.eventId).isEqualTo(7L);
  }

  @Test
  void anExplicitNameIsTheOnlyOneLookedFor() {
    Schema both = new Schema(Types.NestedField.optional(1, "kind", Types.StringType.get()));
    assertThat(RowMapping.of(Misnamed.class, both.asStruct(), true)).isNotNull();

    assertThatThrownBy(() -> RowMapping.of(Misnamed.class, SCHEMA.asStruct(), true))
        .isInstanceOf(RowMappingException.class)
        .hasMessageContaining("Misnamed.kind has no column 'kind' (its @Column)");
  }

  @Test
  void aPropertyResolvesToTheColumnItMapsFrom() {
    assertThat(RowMapping.column(Event.class, "eventId", SCHEMA.asStruct(), true).name()).isEqualTo("event_id");
    assertThat(RowMapping.column(Event.class, "kind", SCHEMA.asStruct(), true).name()).isEqualTo("evt_kind");
    assertThat(RowMapping.column(EventBean.class, "kind", SCHEMA.asStruct(), true).name()).isEqualTo("evt_kind");
    assertThat(RowMapping.column(Address.class, "city", ADDRESS, true).name()).isEqualTo("city_name");
    assertThat(RowMapping.column(Event.class, "eventId", new Schema(Types.NestedField.required(1, "EVENT_ID",
        Types.LongType.get())).asStruct(), false).name()).isEqualTo("EVENT_ID");
    assertThatThrownBy(() -> RowMapping.column(Event.class, "missing", SCHEMA.asStruct(), true))
        .isInstanceOf(RowMappingException.class)
        .hasMessageContaining("Event.missing has no column 'missing'");
  }

  @Test
  void aPartialMappingLeavesTheComponentsOfColumnsNotReadEmpty() {
    Schema narrowed = SCHEMA.select("evt_kind", "address.zip");
    Record row = GenericRecord.create(narrowed);
    Record address = GenericRecord.create(narrowed.findField("address").type().asStructType());
    address.setField("zip", 1100);
    row.setField("evt_kind", "click");
    row.setField("address", address);

    Function<Record, Event> partial = RowMapping.ofSelected(Event.class, narrowed.asStruct(), true);

    assertThat(partial.apply(row)).isEqualTo(new Event(0L, "click", new Address(null, 1100)));
    assertThatThrownBy(() -> RowMapping.of(Event.class, narrowed.asStruct(), true))
        .isInstanceOf(RowMappingException.class)
        .hasMessageContaining("Event.eventId has no column 'eventId' or 'event_id'");
  }
}
