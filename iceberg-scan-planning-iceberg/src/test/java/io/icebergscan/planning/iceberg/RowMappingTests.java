package io.icebergscan.planning.iceberg;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Rows as the application's own records and beans, from real Avro and Parquet files: every primitive type Iceberg
 * has, widened where Iceberg widens, nested structs, lists and maps; a mismatch named before any file is read; and a
 * limit that ends the read, and abandons a streamed plan, once it is handed over.
 */
class RowMappingTests {

  private static final Schema ALL_TYPES = new Schema(
      Types.NestedField.required(1, "order_id", Types.LongType.get()),
      Types.NestedField.required(2, "paid", Types.BooleanType.get()),
      Types.NestedField.required(3, "quantity", Types.IntegerType.get()),
      Types.NestedField.optional(4, "weight", Types.FloatType.get()),
      Types.NestedField.optional(5, "score", Types.DoubleType.get()),
      Types.NestedField.optional(6, "amount", Types.DecimalType.of(10, 2)),
      Types.NestedField.optional(7, "day", Types.DateType.get()),
      Types.NestedField.optional(8, "at", Types.TimeType.get()),
      Types.NestedField.optional(9, "local_time", Types.TimestampType.withoutZone()),
      Types.NestedField.optional(10, "placed", Types.TimestampType.withZone()),
      Types.NestedField.optional(11, "customer", Types.StringType.get()),
      Types.NestedField.optional(12, "token", Types.UUIDType.get()),
      Types.NestedField.optional(13, "code", Types.FixedType.ofLength(3)),
      Types.NestedField.optional(14, "payload", Types.BinaryType.get()));

  private static final Types.StructType ADDRESS = Types.StructType.of(
      Types.NestedField.required(21, "city", Types.StringType.get()),
      Types.NestedField.optional(22, "zip", Types.IntegerType.get()));
  /** The same struct at another place in the schema, with ids of its own. */
  private static final Types.StructType PREVIOUS_ADDRESS = Types.StructType.of(
      Types.NestedField.required(42, "city", Types.StringType.get()),
      Types.NestedField.optional(43, "zip", Types.IntegerType.get()));
  private static final Schema NESTED = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "address", ADDRESS),
      Types.NestedField.optional(3, "tags", Types.ListType.ofRequired(31, Types.StringType.get())),
      Types.NestedField.optional(4, "previous", Types.ListType.ofOptional(41, PREVIOUS_ADDRESS)),
      Types.NestedField.optional(5, "counts", Types.MapType.ofRequired(51, 52, Types.StringType.get(),
          Types.IntegerType.get())));

  private static final String NAMESPACE = "mapping";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;

  /** Every column as Iceberg's generic rows hold it. */
  record Order(long orderId, boolean paid, int quantity, Float weight, Double score, BigDecimal amount, LocalDate day,
      LocalTime at, LocalDateTime localTime, OffsetDateTime placed, String customer, UUID token, byte[] code,
      ByteBuffer payload) {
  }

  /** The columns widened (int into long, float into double) or given another obvious type. */
  record Widened(long quantity, Double weight, Instant placed, CharSequence customer, ByteBuffer code, byte[] payload,
      Object amount) {
  }

  record Address(String city, Integer zip) {
  }

  record Customer(long id, Address address, List<String> tags, List<Address> previous, Map<String, Integer> counts) {
  }

  /** A bean, filled through its setters. */
  public static final class OrderBean {

    private long orderId;
    private String customer;

    public void setOrderId(long orderId) {
      this.orderId = orderId;
    }

    public void setCustomer(String customer) {
      this.customer = customer;
    }
  }

  record Wrong(long orderId, String quantity) {
  }

  record Missing(long orderId, String shippedTo) {
  }

  record Line(long orderId, String customer, int quantity) {
  }

  record PrimitiveOfOptional(long orderId, double score) {
  }

  record Shouting(long ORDER_ID, String CUSTOMER) {
  }

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void everyPrimitiveTypeReachesARecordAsIcebergHoldsIt(FileFormat format) {
    EmbeddedTable table = orders("all_" + format, format);
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(table.identifier()), IcebergScan.all())) {
      List<Record> generic = TestRows.readAll(plan.rows());
      List<Order> mapped = readAll(plan.rows(Order.class));
      assertThat(mapped).hasSize(2);
      for (Order order : mapped) {
        Record row = generic.stream().filter(r -> r.getField("order_id").equals(order.orderId())).findFirst()
            .orElseThrow();
        assertThat(order.paid()).isEqualTo(row.getField("paid"));
        assertThat(order.quantity()).isEqualTo(row.getField("quantity"));
        assertThat(order.weight()).isEqualTo(row.getField("weight"));
        assertThat(order.score()).isEqualTo(row.getField("score"));
        assertThat(order.amount()).isEqualTo(row.getField("amount"));
        assertThat(order.day()).isEqualTo(row.getField("day"));
        assertThat(order.at()).isEqualTo(row.getField("at"));
        assertThat(order.localTime()).isEqualTo(row.getField("local_time"));
        assertThat(order.placed()).isEqualTo(row.getField("placed"));
        assertThat(order.customer()).isEqualTo(row.getField("customer").toString());
        assertThat(order.token()).isEqualTo(row.getField("token"));
        assertThat(order.code()).isEqualTo(row.getField("code"));
        assertThat(order.payload()).isEqualTo(row.getField("payload"));
      }
      Order first = mapped.stream().filter(order -> order.orderId() == 1).findFirst().orElseThrow();
      assertThat(first.amount()).isEqualByComparingTo("12.50");
      assertThat(first.placed().toInstant()).isEqualTo(Instant.parse("2026-12-03T10:15:30Z"));
      assertThat(first.code()).containsExactly('a', 'b', 'c');
      Order second = mapped.stream().filter(order -> order.orderId() == 2).findFirst().orElseThrow();
      assertThat(second.weight()).as("an optional column's null").isNull();
    }
  }

  @Test
  void columnsWidenAsIcebergWidensThem() {
    EmbeddedTable table = orders("widened", FileFormat.PARQUET);
    List<Widened> rows = readAll(iceberg.readRows(iceberg.loadTable(table.identifier()),
        IcebergScan.all().filter(Expressions.equal("order_id", 1L)), Widened.class));
    assertThat(rows).singleElement().satisfies(row -> {
      assertThat(row.quantity()).isEqualTo(3L);
      assertThat(row.weight()).isEqualTo(1.5d);
      assertThat(row.placed()).isEqualTo(Instant.parse("2026-12-03T10:15:30Z"));
      assertThat(row.customer().toString()).isEqualTo("ada");
      assertThat(row.code()).isEqualTo(ByteBuffer.wrap("abc".getBytes(StandardCharsets.US_ASCII)));
      assertThat(row.payload()).containsExactly(1, 2, 3);
      assertThat(row.amount()).as("an Object takes the value as Iceberg has it").isEqualTo(new BigDecimal("12.50"));
    });
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void structsListsAndMapsMapToNestedRecordsListsAndMaps(FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "nested_" + format), NESTED,
        PartitionSpec.unpartitioned(), 2);
    // the catalog gave the table's fields ids of its own
    Record home = address(table.schema().findField("address").type().asStructType(), "Paris", 75001);
    Record away = address(table.schema().findField("previous").type().asListType().elementType().asStructType(),
        "Lyon", null);
    Record row = GenericRecord.create(table.schema());
    row.setField("id", 7L);
    row.setField("address", home);
    row.setField("tags", List.of("gold", "early"));
    List<Record> previous = new ArrayList<>();
    previous.add(away);
    previous.add(null);
    row.setField("previous", previous);
    row.setField("counts", Map.of("orders", 3));
    table.appendRows(format, List.of(row));

    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(table.identifier()), IcebergScan.all())) {
      assertThat(readAll(plan.rows(Customer.class))).singleElement().satisfies(customer -> {
        assertThat(customer.id()).isEqualTo(7L);
        assertThat(customer.address()).isEqualTo(new Address("Paris", 75001));
        assertThat(customer.tags()).containsExactly("gold", "early");
        assertThat(customer.previous()).containsExactly(new Address("Lyon", null), null);
        assertThat(customer.counts()).containsExactly(Map.entry("orders", 3));
      });
    }
  }

  @Test
  void aBeanIsFilledThroughItsSetters() {
    EmbeddedTable table = orders("bean", FileFormat.AVRO);
    IcebergScan scan = IcebergScan.all().select("order_id", "customer");
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(table.identifier()), scan)) {
      assertThat(readAll(plan.rows(OrderBean.class))).extracting(bean -> bean.orderId, bean -> bean.customer)
          .containsExactlyInAnyOrder(org.assertj.core.groups.Tuple.tuple(1L, "ada"),
              org.assertj.core.groups.Tuple.tuple(2L, "grace"));
    }
  }

  @Test
  void namesMatchCaseInsensitivelyOnlyWhenTheScanDoes() {
    EmbeddedTable table = orders("case", FileFormat.AVRO);
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    assertThat(readAll(iceberg.readRows(loaded, IcebergScan.all().caseSensitive(false), Shouting.class)))
        .extracting(Shouting::CUSTOMER).containsExactlyInAnyOrder("ada", "grace");
    assertThatThrownBy(() -> iceberg.readRows(loaded, IcebergScan.all(), Shouting.class))
        .isInstanceOf(RowMappingException.class).hasMessageContaining("Shouting.ORDER_ID")
        .hasMessageContaining("case-sensitively");
  }

  /** Each mismatch names the component and the column, and no request or file read happens first. */
  @Test
  void aMismatchFailsBeforeAnythingIsReadNamingTheComponentAndTheColumn() {
    EmbeddedTable table = orders("mismatch", FileFormat.PARQUET);
    IcebergTable loaded = iceberg.loadTable(table.identifier());
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.readRows(loaded, IcebergScan.all(), Wrong.class))
        .isInstanceOf(RowMappingException.class)
        .hasMessage("Wrong.quantity is a java.lang.String, which cannot hold column 'quantity' of type int");
    assertThatThrownBy(() -> iceberg.readRows(loaded, IcebergScan.all(), Missing.class))
        .isInstanceOf(RowMappingException.class).hasMessageContaining("Missing.shippedTo has no column 'shippedTo' "
            + "or 'shipped_to' among the rows' columns [order_id, paid, quantity,");
    assertThatThrownBy(() -> iceberg.readRows(loaded, IcebergScan.all(), PrimitiveOfOptional.class))
        .isInstanceOf(RowMappingException.class).hasMessage("PrimitiveOfOptional.score is a double, but column "
            + "'score' is optional and may be null: declare it as Double");
    assertThatThrownBy(() -> iceberg.readRows(loaded, IcebergScan.all(), String.class))
        .isInstanceOf(RowMappingException.class).hasMessageContaining("cannot hold a row");
    assertThat(catalog.requestCounts().plan()).as("plans asked of the catalog").isZero();

    try (IcebergScanPlan plan = iceberg.plan(loaded, IcebergScan.all().select("order_id"))) {
      assertThatThrownBy(() -> plan.rows(Order.class)).isInstanceOf(RowMappingException.class)
          .hasMessageContaining("Order.paid has no column 'paid' among the rows' columns [order_id]");
    }
  }

  /**
   * On a catalog that answers each {@code /tasks} in 300 ms, over 8 leaf handles fetched 4 at a time: the first 4
   * leaves hold more rows than the limit, so the read ends while the other 4 are still being answered.
   */
  @Test
  void aLimitHandsOverThatManyRowsThenEndsTheReadAndAbandonsAStreamedPlan() {
    try (EmbeddedIcebergCatalog slow = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 3))
        .tasksLatency(Duration.ofMillis(300)).start();
        ScanPlanner planner = ScanPlanner.builder().uri(slow.uri()).maxConcurrency(4).build();
        IcebergScanPlanner reader = IcebergScanPlanner.builder(planner).build()) {
      EmbeddedTable table = slow.createTable(TableIdentifier.of(NAMESPACE, "limit"), ALL_TYPES,
          PartitionSpec.unpartitioned(), 2);
      for (long id = 0; id < 16; id++) {
        table.appendRows(FileFormat.AVRO, List.of(order(table, id, "c" + id)));
      }
      IcebergTable loaded = reader.loadTable(table.identifier());
      IcebergScan scan = IcebergScan.all().select("order_id", "customer");

      slow.resetRequestCounts();
      try (ScanRows rows = reader.readRows(loaded, scan).limit(3)) {
        assertThat(TestRows.readAll(rows)).extracting(row -> row.getField("order_id")).hasSize(3);
      }
      await().atMost(Duration.ofSeconds(10)).until(() -> slow.requestCounts().cancel() == 1);
      assertThat(slow.requestCounts().tasks()).as("leaf handles fetched before the plan was abandoned")
          .isLessThan(2 + 4 + 8);

      assertThat(reader.readRows(loaded, scan).limit(2).as(OrderBean.class).flux().collectList().block())
          .as("a Flux of beans, taken to the limit").hasSize(2);
      assertThat(TestRows.readAll(reader.readRows(loaded, scan).limit(100))).as("a limit above the rows")
          .hasSize(16);

      slow.resetRequestCounts();
      assertThat(TestRows.readAll(reader.readRows(loaded, scan).limit(0))).isEmpty();
      assertThat(reader.readRows(loaded, scan).limit(0).flux().collectList().block()).isEmpty();
      assertThat(slow.requestCounts().plan()).as("a limit of 0 plans nothing").isZero();
      assertThatThrownBy(() -> reader.readRows(loaded, scan).limit(-1)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("limit must not be negative, but was -1");
    }
  }

  /** A Flux from a non-blocking thread, as a WebFlux request subscribes: the blocking table load moves off it. */
  @Test
  void streamRowsLoadsAndReadsWhenSubscribedOnANonBlockingThread() {
    EmbeddedTable table = orders("reactive", FileFormat.PARQUET);
    IcebergScan scan = IcebergScan.all().select("order_id");
    assertThat(reactor.core.publisher.Mono.defer(() -> iceberg.streamRows(table.identifier(), scan).collectList())
        .subscribeOn(reactor.core.scheduler.Schedulers.parallel()).block(Duration.ofSeconds(30)))
        .extracting(row -> row.getField("order_id")).containsExactlyInAnyOrder(1L, 2L);
    assertThatThrownBy(() -> reactor.core.publisher.Mono.fromCallable(() -> iceberg.loadTable(table.identifier()))
        .subscribeOn(reactor.core.scheduler.Schedulers.parallel()).block(Duration.ofSeconds(30)))
        .as("the load itself, on that thread").hasMessageContaining("non-blocking thread");
    assertThatThrownBy(() -> iceberg.streamRows(TableIdentifier.of(NAMESPACE, "absent"), scan).blockFirst())
        .isInstanceOf(io.icebergscan.planning.exceptions.NoSuchTableException.class);
  }

  /** The typed reactive door hands over the rows the untyped one does, each mapped, from Avro and Parquet files. */
  @Test
  void streamRowsOfATypeAreTheUntypedRowsMapped() {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, "typed_stream"), ALL_TYPES,
        PartitionSpec.unpartitioned(), 2);
    for (long id = 0; id < 6; id++) {
      table.appendRows(id % 2 == 0 ? FileFormat.AVRO : FileFormat.PARQUET,
          List.of(order(table, 2 * id, "c" + 2 * id), order(table, 2 * id + 1, "c" + (2 * id + 1))));
    }
    IcebergScan scan = IcebergScan.all().filter(Expressions.greaterThan("order_id", 2L));
    List<Line> untyped = iceberg.streamRows(table.identifier(), scan)
        .map(row -> new Line((Long) row.getField("order_id"), row.getField("customer").toString(),
            (Integer) row.getField("quantity")))
        .collectList().block(Duration.ofSeconds(30));
    List<Line> typed = iceberg.streamRows(table.identifier(), scan, Line.class).collectList()
        .block(Duration.ofSeconds(30));
    // two reads are two plans, whose tasks the catalog may order differently: the same rows, in any order
    assertThat(typed).hasSize(9).containsExactlyInAnyOrderElementsOf(untyped);
  }

  /**
   * The columns are known once the table is loaded: a type that does not fit them fails the Flux then, with the
   * mapping's own exception, and nothing is planned nor read.
   */
  @Test
  void aTypeThatDoesNotFitFailsTheStreamAfterTheLoadBeforeAnyPlanOrFile() {
    EmbeddedTable table = orders("typed_mismatch", FileFormat.PARQUET);
    CountingFileIO.Scope scope = CountingFileIO.newScope();
    try (IcebergScanPlanner counting = IcebergScanPlanner.builder(planner).fileIoProperties(scope.fileIoProperties())
        .build()) {
      catalog.resetRequestCounts();
      assertThatThrownBy(() -> reactor.core.publisher.Mono.defer(() -> counting.streamRows(table.identifier(),
          IcebergScan.all(), Wrong.class).collectList()).subscribeOn(reactor.core.scheduler.Schedulers.parallel())
          .block(Duration.ofSeconds(30)))
          .isInstanceOf(RowMappingException.class)
          .hasMessage("Wrong.quantity is a java.lang.String, which cannot hold column 'quantity' of type int");
      assertThat(catalog.requestCounts().plan()).as("plans requested").isZero();
      assertThat(scope.fileIOsOpened()).as("FileIOs made").isZero();
      assertThat(scope.streamsOpened()).as("files opened").isZero();
    }
  }

  private static EmbeddedTable orders(String name, FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name), ALL_TYPES,
        PartitionSpec.unpartitioned(), 2);
    Record second = order(table, 2L, "grace");
    second.setField("weight", null);
    table.appendRows(format, List.of(order(table, 1L, "ada"), second));
    return table;
  }

  private static Record order(EmbeddedTable table, long id, String customer) {
    Record row = GenericRecord.create(table.schema());
    row.setField("order_id", id);
    row.setField("paid", id % 2 == 1);
    row.setField("quantity", (int) id + 2);
    row.setField("weight", 1.5f);
    row.setField("score", 0.25 * id);
    row.setField("amount", new BigDecimal("12.50"));
    row.setField("day", LocalDate.of(2026, 12, 3));
    row.setField("at", LocalTime.of(10, 15, 30));
    row.setField("local_time", LocalDateTime.of(2026, 12, 3, 10, 15, 30));
    row.setField("placed", OffsetDateTime.of(2026, 12, 3, 10, 15, 30, 0, ZoneOffset.UTC));
    row.setField("customer", customer);
    row.setField("token", UUID.nameUUIDFromBytes(customer.getBytes(StandardCharsets.UTF_8)));
    row.setField("code", "abc".getBytes(StandardCharsets.US_ASCII));
    row.setField("payload", ByteBuffer.wrap(new byte[] { 1, 2, 3 }));
    return row;
  }

  private static Record address(Types.StructType struct, String city, Integer zip) {
    Record address = GenericRecord.create(struct);
    address.setField("city", city);
    address.setField("zip", zip);
    return address;
  }

  private static <T> List<T> readAll(MappedRows<T> rows) {
    List<T> read = new ArrayList<>();
    try (rows) {
      rows.forEach(read::add);
    }
    return read;
  }
}
