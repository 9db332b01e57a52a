package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.BaseCombinedScanTask;
import org.apache.iceberg.BaseFileScanTask;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.PartitionSpecParser;
import org.apache.iceberg.Schema;
import org.apache.iceberg.SchemaParser;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.ResidualEvaluator;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.metrics.ScanReport;
import org.apache.iceberg.rest.requests.ReportMetricsRequestParser;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.params.provider.Arguments.arguments;

/**
 * A governed table read through every door that returns rows, on real Avro and Parquet files with position deletes,
 * equality deletes and deletion vectors, from Apache Iceberg's REST server over HTTP: the catalog's row filter keeps
 * the US rows only, and its masks cover a top-level string ({@code mask-alphanum}), a date
 * ({@code truncate-to-year}), a long ({@code sha-256-global}), a field of a struct ({@code show-last-4}), the elements
 * of a list ({@code show-first-4}) and the values of a map ({@code mask-to-fixed-value}). The expected rows are worked
 * out here from the rows written, with the masks computed independently of the reader's. A caller with another token
 * is served no restrictions and reads the same table raw: the restrictions are the load answer's.
 */
class GovernedReadTests {

  /** With the field ids the catalog gives it: the top-level columns first, then the fields nested in them. */
  static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()),
      Types.NestedField.optional(3, "birth", Types.DateType.get()),
      Types.NestedField.required(4, "region", Types.StringType.get()),
      Types.NestedField.optional(5, "ssn", Types.LongType.get()),
      Types.NestedField.optional(6, "address", Types.StructType.of(
          Types.NestedField.optional(10, "street", Types.StringType.get()),
          Types.NestedField.optional(11, "city", Types.StringType.get()))),
      Types.NestedField.optional(7, "phones", Types.ListType.ofOptional(12, Types.StringType.get())),
      Types.NestedField.optional(8, "tags", Types.MapType.ofOptional(13, 14, Types.StringType.get(),
          Types.StringType.get())),
      Types.NestedField.optional(9, "score", Types.DoubleType.get()));
  static final PartitionSpec BY_REGION = PartitionSpec.builderFor(SCHEMA).identity("region").build();
  static final RestrictionPolicy POLICY = RestrictionPolicy.builder()
      .rowFilter(Expressions.equal("region", "US"))
      .mask("email", "mask-alphanum")
      .mask("birth", "truncate-to-year")
      .mask("ssn", "sha-256-global")
      .mask("address.street", "show-last-4")
      .mask("phones.element", "show-first-4")
      .mask("tags.value", "mask-to-fixed-value")
      .build();
  static final String ADMIN = "admin-token";
  static final String NAMESPACE = "governed";
  static final int ROWS = 40;

  private static EmbeddedIcebergCatalog catalog;
  /** The application's planner: its loads are answered with the restrictions. */
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  /** A caller the catalog serves no restrictions. */
  private static ScanPlanner adminPlanner;
  private static IcebergScanPlanner admin;
  /** Per table, the ids its deletes delete. */
  private static final Map<String, Set<Long>> DELETED = new HashMap<>();

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 2)).start();
    EmbeddedTable v2 = catalog.createTable(TableIdentifier.of(NAMESPACE, "customers_v2"), SCHEMA, BY_REGION, 2);
    List<DataFile> avro = v2.writeRows(FileFormat.AVRO, rows(v2, 0, ROWS / 2));
    List<DataFile> parquet = v2.writeRows(FileFormat.PARQUET, rows(v2, ROWS / 2, ROWS / 2));
    List<DataFile> all = new ArrayList<>(avro);
    all.addAll(parquet);
    v2.append(all);
    // the first file of each append is of region EU (id 0 and 21 are EU), the second of US: ids 1, 2, 4, 5, ...
    Record key = v2.newRecord();
    key.setField("id", 22L);
    key.setField("region", "US");
    v2.addDeletes(v2.writePositionDeletes(FileFormat.AVRO, avro.get(1), 0),
        v2.writeEqualityDeletes(FileFormat.PARQUET, List.of(key), 1));
    DELETED.put("customers_v2", Set.of(1L, 22L));

    EmbeddedTable v3 = catalog.createTable(TableIdentifier.of(NAMESPACE, "customers_v3"), SCHEMA, BY_REGION, 3);
    List<DataFile> files = v3.writeRows(FileFormat.PARQUET, rows(v3, 0, ROWS));
    v3.append(files);
    v3.addDeletes(v3.writeDeletionVector(files.get(1), 2));
    DELETED.put("customers_v3", Set.of(4L));

    for (String table : DELETED.keySet()) {
      catalog.readRestrictions(TableIdentifier.of(NAMESPACE, table), POLICY);
      catalog.readRestrictions(TableIdentifier.of(NAMESPACE, table), ADMIN, RestrictionPolicy.json("{}"));
    }
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).readConcurrency(4).scanReports(false).build();
    adminPlanner = ScanPlanner.builder().uri(catalog.uri()).header("Authorization", "Bearer " + ADMIN).build();
    admin = IcebergScanPlanner.builder(adminPlanner).scanReports(false).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    admin.close();
    planner.close();
    adminPlanner.close();
    catalog.close();
  }

  /** How rows of a restricted table are read. */
  enum Door {
    ROWS, ROWS_AS_READ, ROWS_FLUX, ROWS_AS_CLASS, READ_ROWS, READ_ROWS_AS_CLASS, READ_ROWS_FLUX, STREAM_ROWS,
    JSON_MODULE
  }

  static Stream<Arguments> doors() {
    List<Arguments> doors = new ArrayList<>();
    for (String table : List.of("customers_v2", "customers_v3")) {
      for (Door door : Door.values()) {
        doors.add(arguments(table, door));
      }
    }
    return doors.stream();
  }

  @ParameterizedTest(name = "{0} through {1}")
  @MethodSource("doors")
  void everyDoorReturnsTheRowFiltersRowsMasked(String name, Door door) {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, name));
    assertThat(table.readRestrictions().hasRowFilter()).isTrue();
    List<Map<String, Object>> expected = expected(name);
    assertThat(expected).hasSizeGreaterThan(15);
    assertThat(read(table, IcebergScan.all(), door)).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void aLimitIsAPrefixOfTheRestrictedRowsInTaskOrder() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all())) {
      List<Map<String, Object>> all = rendered(plan.rows());
      assertThat(rendered(plan.rows().limit(5))).containsExactlyElementsOf(all.subList(0, 5));
      assertThat(all).containsExactlyInAnyOrderElementsOf(expected("customers_v2"));
    }
    try (ScanRows rows = iceberg.readRows(table, IcebergScan.all()).limit(3)) {
      assertThat(rendered(rows)).hasSize(3).allSatisfy(row -> assertThat(expected("customers_v2")).contains(row));
    }
  }

  @Test
  void aCallerServedNoRestrictionsReadsTheSameTableRaw() {
    IcebergTable table = admin.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    assertThat(table.readRestrictions().isEmpty()).isTrue();
    try (IcebergScanPlan plan = admin.plan(table, IcebergScan.all())) {
      List<Map<String, Object>> raw = rendered(plan.rows());
      assertThat(raw).hasSize(ROWS - DELETED.get("customers_v2").size());
      assertThat(raw).anySatisfy(row -> assertThat(row.get("region")).isEqualTo("EU"))
          .anySatisfy(row -> assertThat(String.valueOf(row.get("email"))).endsWith("@corp.example"));
    }
  }

  @Test
  void aFilterOnAMaskedColumnIsEvaluatedOnTheMaskedValues() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    // user3's raw address finds nothing: it is never compared with a raw value
    assertThat(ids(table, IcebergScan.all().filter(Expressions.equal("email", "user3@corp.example")))).isEmpty();
    // its masked value finds every row whose email masks to it
    String masked = maskAlphanum("user3@corp.example");
    List<Long> found = ids(table, IcebergScan.all().filter(Expressions.equal("email", masked)));
    List<Long> expectedIds = expected("customers_v2").stream()
        .filter(row -> masked.equals(row.get("email"))).map(row -> (Long) row.get("id")).toList();
    assertThat(found).containsExactlyInAnyOrderElementsOf(expectedIds).contains(2L, 4L).doesNotContain(3L);
    // a predicate on a masked date compares the truncated dates: every row born in 1980 has 1980-01-01
    assertThat(ids(table, IcebergScan.all().filter(Expressions.equal("birth", "1980-01-01"))))
        .containsExactlyInAnyOrderElementsOf(expected("customers_v2").stream()
            .filter(row -> LocalDate.of(1980, 1, 1).equals(row.get("birth"))).map(row -> (Long) row.get("id"))
            .toList())
        .isNotEmpty();
    // an OR of a masked and an unmasked column is evaluated after the masks, whole
    assertThat(ids(table, IcebergScan.all().filter(Expressions.or(Expressions.equal("email", "user3@corp.example"),
        Expressions.equal("id", 2L))))).containsExactly(2L);
  }

  @Test
  void theRowFilterIsEvaluatedOnRawValuesBeforeTheMasks() {
    String analyst = "analyst-token";
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "customers_v3");
    // a policy that removes one person by their raw email, and masks the email: after the masks, every email of that
    // shape is the same, so a filter evaluated on masked values would keep the row, and could not tell nulls apart
    catalog.readRestrictions(identifier, analyst, RestrictionPolicy.builder()
        .rowFilter(Expressions.notEqual("email", "user2@corp.example")).mask("email", "mask-alphanum").build());
    try (ScanPlanner analystPlanner = ScanPlanner.builder().uri(catalog.uri())
        .header("Authorization", "Bearer " + analyst).build();
        IcebergScanPlanner reader = IcebergScanPlanner.builder(analystPlanner).scanReports(false).build()) {
      IcebergTable table = reader.loadTable(identifier);
      List<Long> ids;
      try (ScanRows rows = reader.readRows(table, IcebergScan.all().select("id", "email"))) {
        ids = new ArrayList<>();
        for (Record row : rows) {
          ids.add((Long) row.getField("id"));
          assertThat(String.valueOf(row.getField("email"))).doesNotContain("corp");
        }
      }
      assertThat(ids).doesNotContain(2L, 4L)
          // null emails: != against a null is true under the spec, so those rows stay
          .contains(0L, 5L, 10L)
          .hasSize(ROWS - 2);
    }
    finally {
      catalog.readRestrictions(identifier, analyst, null);
    }
  }

  @Test
  void theWireNeverCarriesAMaskedColumnsPredicateOrStatistics() throws IOException {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    catalog.clearRecordedRequests();
    catalog.recordRequests(true);
    // a planner that reports its scans, as by default
    try (IcebergScanPlanner reporting = IcebergScanPlanner.builder(planner).build();
        IcebergScanPlan plan = reporting.plan(table, IcebergScan.all()
            .filter(Expressions.and(Expressions.equal("email", "user3@corp.example"),
                Expressions.greaterThan("id", 3L)))
            .includeColumnStats(List.of("email", "id", "ssn", "address.street", "score")))) {
      assertThat(rendered(plan.rows())).isEmpty();
      await().atMost(Duration.ofSeconds(10)).until(() -> catalog.recordedRequests().stream()
          .anyMatch(request -> request.path().endsWith("/metrics")));
    }
    finally {
      catalog.recordRequests(false);
    }
    List<EmbeddedIcebergCatalog.RecordedRequest> plans = catalog.recordedRequests().stream()
        .filter(request -> request.path().endsWith("/plan")).toList();
    assertThat(plans).hasSize(1);
    String reported = catalog.recordedRequests().stream().filter(request -> request.path().endsWith("/metrics"))
        .findFirst().orElseThrow().body();
    ScanReport report = (ScanReport) ReportMetricsRequestParser.fromJson(reported).report();
    assertThat(reported).doesNotContain("corp.example");
    assertThat(report.filter().toString()).as("the filter pushed, as the plan request's")
        .doesNotContain("email").contains("id").contains("region");
    String body = plans.get(0).body();
    assertThat(body).doesNotContain("email").doesNotContain("corp.example").doesNotContain("ssn")
        .doesNotContain("street");
    JsonNode request = JsonMapper.shared().readTree(body);
    assertThat(request.get("stats-fields").toString()).isEqualTo("[\"id\",\"score\"]");
    // the unmasked conjunct and the catalog's own row filter are sent, for the catalog to prune with
    assertThat(request.get("filter").toString()).contains("\"id\"").contains("\"region\"").contains("US");
  }

  @Test
  void aTaskFromElsewhereIsRefusedForItsPartitionValuesWouldStandInForTheRowFilter() {
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "customers_v2");
    IcebergTable table = iceberg.loadTable(identifier);
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all());
        IcebergScanPlan raw = admin.plan(admin.loadTable(identifier), IcebergScan.all())) {
      // an EU file relabelled US: read as the task says, its rows would have region US and pass the row filter
      FileScanTask eu = raw.tasks().stream().filter(task -> "EU".equals(task.partition().get(0, String.class)))
          .findFirst().orElseThrow();
      DataFile relabelled = DataFiles.builder(eu.spec()).copy(eu.file()).withPartitionPath("region=US").build();
      FileScanTask forged = new BaseFileScanTask(relabelled, new DeleteFile[0], SchemaParser.toJson(eu.schema()),
          PartitionSpecParser.toJson(eu.spec()), ResidualEvaluator.unpartitioned(Expressions.alwaysTrue()));
      assertThat(rendered(raw.rows(forged))).as("the forged task's rows are EU rows that read as US").isNotEmpty()
          .allSatisfy(row -> assertThat(row.get("region")).isEqualTo("US"));
      assertRefused(() -> plan.rows(forged), "IcebergScanPlan.rows(FileScanTask)");
      assertRefused(() -> plan.rows(new BaseCombinedScanTask(forged)), "IcebergScanPlan.rows(CombinedScanTask)");
      assertRefused(() -> plan.rows(eu), "IcebergScanPlan.rows(FileScanTask)");
    }
  }

  @Test
  void theDoorsThatWouldHandOutRawDataRefuse() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    assertRefused(table::metadata, "IcebergTable.metadata()");
    assertRefused(table::config, "IcebergTable.config()");
    assertRefused(table::storageCredentials, "IcebergTable.storageCredentials()");
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all())) {
      assertRefused(plan::tasks, "IcebergScanPlan.tasks()");
      assertRefused(plan::splitTasks, "IcebergScanPlan.splitTasks()");
      assertRefused(() -> plan.splitTasks(SplitSettings.of(Map.of())), "IcebergScanPlan.splitTasks()");
      assertRefused(plan::io, "IcebergScanPlan.io()");
      assertRefused(plan::scanPlan, "IcebergScanPlan.scanPlan()");
    }
    catalog.resetRequestCounts();
    assertThatThrownBy(() -> iceberg.planTasks(table, IcebergScan.all()).collectList().block())
        .isInstanceOf(RestrictedReadException.class).hasMessageContaining("IcebergScanPlanner.planTasks()");
    assertThat(catalog.requestCounts().plan()).as("refused before any request").isZero();
    // what stays: the schema, without the raw defaults of masked fields, and the table's properties
    assertThat(table.schema().findField("email")).isNotNull();
    assertThat(table.toString()).contains("restricted");
  }

  @Test
  void theRestrictionsNameTheMasksButNeverTheFilter() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "customers_v2"));
    assertThat(table.readRestrictions().masks()).containsEntry(2, "mask-alphanum").containsEntry(10, "show-last-4")
        .containsEntry(12, "show-first-4").containsEntry(14, "mask-to-fixed-value").hasSize(6);
    assertThat(table.readRestrictions().toString()).contains("row filter").doesNotContain("US")
        .doesNotContain("region");
  }

  private static void assertRefused(Runnable door, String name) {
    assertThatThrownBy(door::run).isInstanceOf(RestrictedReadException.class).hasMessageContaining(name)
        .hasMessageContaining(NAMESPACE + ".customers_v2")
        .satisfies(refused -> assertThat(((RestrictedReadException) refused).refused()).isEqualTo(name));
  }

  // ---- reading through each door

  private static List<Map<String, Object>> read(IcebergTable table, IcebergScan scan, Door door) {
    return switch (door) {
      case ROWS -> plan(table, scan, plan -> rendered(plan.rows()));
      case ROWS_AS_READ -> plan(table, scan, plan -> rendered(plan.rows().unordered()));
      case ROWS_FLUX -> plan(table, scan, plan -> plan.rows().flux().map(GovernedReadTests::render).collectList()
          .block());
      case ROWS_AS_CLASS -> plan(table, scan, plan -> mapped(plan.rows(Customer.class)));
      case READ_ROWS -> rendered(iceberg.readRows(table, scan));
      case READ_ROWS_AS_CLASS -> mapped(iceberg.readRows(table, scan, Customer.class));
      case READ_ROWS_FLUX -> iceberg.readRows(table, scan).flux().map(GovernedReadTests::render).collectList().block();
      case STREAM_ROWS -> iceberg.streamRows(table.identifier(), scan).map(GovernedReadTests::render).collectList()
          .block();
      case JSON_MODULE -> plan(table, scan, plan -> {
        JsonMapper json = JsonMapper.builder().addModule(new IcebergRecordsModule()).build();
        List<Record> records = new ArrayList<>();
        try (ScanRows rows = plan.rows()) {
          rows.forEach(records::add);
        }
        String text = json.writeValueAsString(records);
        assertThat(text).doesNotContain("corp.example").doesNotContain("Main St").doesNotContain("+1-555")
            .doesNotContain("gold").doesNotContain("EU");
        List<Map<String, Object>> rows = new ArrayList<>();
        json.readTree(text).forEach(node -> rows.add(fromJson(node)));
        return rows;
      });
    };
  }

  private static List<Map<String, Object>> plan(IcebergTable table, IcebergScan scan,
      Function<IcebergScanPlan, List<Map<String, Object>>> read) {
    try (IcebergScanPlan plan = iceberg.plan(table, scan)) {
      return read.apply(plan);
    }
  }

  private static List<Long> ids(IcebergTable table, IcebergScan scan) {
    return plan(table, scan, plan -> rendered(plan.rows())).stream().map(row -> (Long) row.get("id")).toList();
  }

  /** The rows a restricted read of a table returns: its live US rows, masked as the policy says. */
  static List<Map<String, Object>> expected(String table) {
    List<Map<String, Object>> expected = new ArrayList<>();
    for (long id = 0; id < ROWS; id++) {
      if (!DELETED.get(table).contains(id) && "US".equals(region(id))) {
        expected.add(maskedRow(id));
      }
    }
    return expected;
  }

  /** Row {@code id} as written. */
  static Record row(EmbeddedTable table, long id) {
    Record row = table.newRecord();
    row.setField("id", id);
    row.setField("email", id % 5 == 0 ? null : "user" + id + "@corp.example");
    row.setField("birth", LocalDate.of(1980, 1, 1).plusDays(id * 37));
    row.setField("region", region(id));
    row.setField("ssn", id % 7 == 0 ? null : 100_000_000L + id);
    Record address = org.apache.iceberg.data.GenericRecord.create(SCHEMA.findType("address").asStructType());
    address.setField("street", id + " Main St");
    address.setField("city", "Springfield");
    row.setField("address", address);
    row.setField("phones", List.of("+1-555-01" + id, "+1-555-99" + id));
    row.setField("tags", Map.of("tier", "gold" + id));
    row.setField("score", id % 11 == 0 ? null : id == 13 ? Double.NaN : id / 4.0);
    return row;
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      rows.add(row(table, id));
    }
    return rows;
  }

  private static String region(long id) {
    return id % 3 == 0 ? "EU" : "US";
  }

  /** Row {@code id} masked, computed here: code points, the calendar and SHA-256 of the JDK. */
  private static Map<String, Object> maskedRow(long id) {
    Map<String, Object> row = new TreeMap<>();
    row.put("id", id);
    row.put("email", id % 5 == 0 ? null : maskAlphanum("user" + id + "@corp.example"));
    row.put("birth", LocalDate.of(LocalDate.of(1980, 1, 1).plusDays(id * 37).getYear(), 1, 1));
    row.put("region", region(id));
    row.put("ssn", id % 7 == 0 ? null : sha256OfLong(100_000_000L + id));
    Map<String, Object> address = new TreeMap<>();
    String street = id + " Main St";
    int keep = street.codePointCount(0, street.length()) - 4;
    address.put("street", maskAlphanum(street.substring(0, street.offsetByCodePoints(0, keep)))
        + street.substring(street.offsetByCodePoints(0, keep)));
    address.put("city", "Springfield");
    row.put("address", address);
    List<Object> phones = new ArrayList<>();
    for (String phone : List.of("+1-555-01" + id, "+1-555-99" + id)) {
      phones.add(phone.substring(0, 4) + maskAlphanum(phone.substring(4)));
    }
    row.put("phones", phones);
    row.put("tags", Map.of("tier", "XXXXXXXX"));
    Double score = id % 11 == 0 ? null : id == 13 ? Double.NaN : id / 4.0;
    row.put("score", score);
    return row;
  }

  static String maskAlphanum(String value) {
    StringBuilder masked = new StringBuilder();
    value.codePoints().forEach(point -> masked.append(point >= '0' && point <= '9' ? 'n'
        : "(),.-@".indexOf(point) >= 0 ? (char) point : 'x'));
    return masked.toString();
  }

  static long sha256OfLong(long value) {
    try {
      byte[] input = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(value).array();
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(input);
      return ByteBuffer.wrap(digest, 0, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }
    catch (NoSuchAlgorithmException missing) {
      throw new IllegalStateException(missing);
    }
  }

  static String sha256Hex(byte[] salt, String value) {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      sha.update(salt);
      return java.util.HexFormat.of().formatHex(sha.digest(value.getBytes(StandardCharsets.UTF_8)));
    }
    catch (NoSuchAlgorithmException missing) {
      throw new IllegalStateException(missing);
    }
  }

  // ---- rows as plain values

  /** An application's record of a customer, mapped by name, nested ones included. */
  record Customer(long id, String email, LocalDate birth, String region, Long ssn, Address address,
      List<String> phones, Map<String, String> tags, Double score) {
  }

  record Address(String street, String city) {
  }

  static List<Map<String, Object>> rendered(CloseableIterable<Record> rows) {
    List<Map<String, Object>> rendered = new ArrayList<>();
    try (rows) {
      rows.forEach(row -> rendered.add(render(row)));
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rendered;
  }

  private static List<Map<String, Object>> mapped(MappedRows<Customer> customers) {
    List<Map<String, Object>> rendered = new ArrayList<>();
    try (customers) {
      customers.forEach(customer -> {
        Map<String, Object> row = new TreeMap<>();
        row.put("id", customer.id());
        row.put("email", customer.email());
        row.put("birth", customer.birth());
        row.put("region", customer.region());
        row.put("ssn", customer.ssn());
        Map<String, Object> address = new TreeMap<>();
        address.put("street", customer.address().street());
        address.put("city", customer.address().city());
        row.put("address", address);
        row.put("phones", new ArrayList<Object>(customer.phones()));
        row.put("tags", customer.tags());
        row.put("score", customer.score());
        rendered.add(row);
      });
    }
    return rendered;
  }

  static Map<String, Object> render(Record row) {
    Map<String, Object> rendered = new TreeMap<>();
    for (Types.NestedField field : row.struct().fields()) {
      Object value = row.getField(field.name());
      if (value instanceof Record nested) {
        value = render(nested);
      }
      else if (value instanceof List<?> list) {
        value = new ArrayList<Object>(list);
      }
      else if (value instanceof Map<?, ?> map) {
        value = new LinkedHashMap<Object, Object>(map);
      }
      rendered.put(field.name(), value);
    }
    return rendered;
  }

  /** A row as the JSON module writes it, read back into the values {@link #render} gives. */
  private static Map<String, Object> fromJson(JsonNode node) {
    Map<String, Object> row = new TreeMap<>();
    row.put("id", node.get("id").longValue());
    row.put("email", node.get("email").isNull() ? null : node.get("email").stringValue());
    row.put("birth", LocalDate.parse(node.get("birth").stringValue()));
    row.put("region", node.get("region").stringValue());
    row.put("ssn", node.get("ssn").isNull() ? null : node.get("ssn").longValue());
    Map<String, Object> address = new TreeMap<>();
    address.put("street", node.get("address").get("street").stringValue());
    address.put("city", node.get("address").get("city").stringValue());
    row.put("address", address);
    List<Object> phones = new ArrayList<>();
    node.get("phones").forEach(phone -> phones.add(phone.stringValue()));
    row.put("phones", phones);
    Map<Object, Object> tags = new LinkedHashMap<>();
    JsonNode keys = node.get("tags").get("keys");
    JsonNode values = node.get("tags").get("values");
    for (int i = 0; i < keys.size(); i++) {
      tags.put(keys.get(i).stringValue(), values.get(i).stringValue());
    }
    row.put("tags", tags);
    JsonNode score = node.get("score");
    row.put("score", score.isNull() ? null : score.isString() ? Double.valueOf(score.stringValue())
        : score.doubleValue());
    return row;
  }
}
