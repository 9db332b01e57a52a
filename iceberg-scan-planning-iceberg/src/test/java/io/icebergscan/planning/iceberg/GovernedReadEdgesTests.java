package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import io.icebergscan.planning.ScanPlan;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.exceptions.InvalidReadRestrictionsException;
import io.icebergscan.planning.exceptions.MalformedResponseException;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.observation.ScanPlanningObservationContext;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.HasTableOperations;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.ExpressionParser;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.expressions.Literal;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * What a governed read does at its edges: a masked partition source, whose raw values the partition constants,
 * {@code _partition}, the paths and a failure's message would carry; the defaults of a masked column, its earlier
 * rows' raw value; a time travel to a schema from before a masked column existed; the query salt of
 * {@code sha-256-query-local}; the plan's observation; and engines, which {@link ScanPlanningCatalog} refuses a
 * restricted table.
 */
class GovernedReadEdgesTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "email", Types.StringType.get()));
  private static final String NAMESPACE = "edges";
  private static final String ADMIN = "admin-token";
  private static final String HASHING = "hashing-token";
  /** The defaults table's initial and write default of its masked column {@code pin}. */
  private static final String PIN = "1234-SECRET";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static ScanPlanner adminPlanner;
  private static IcebergScanPlanner admin;
  private static final List<ScanPlanningObservationContext> PLANS = new CopyOnWriteArrayList<>();
  /** The byEmail table's data files, one per email. */
  private static List<DataFile> byEmailFiles;
  private static long beforeSsn;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    EmbeddedTable byEmail = catalog.createTable(TableIdentifier.of(NAMESPACE, "by_email"), SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("email").build(), 2);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 6; id++) {
      rows.add(byEmail.newRecord(id, "person" + (id % 3) + "@corp.example"));
    }
    byEmailFiles = byEmail.writeRows(FileFormat.AVRO, rows);
    byEmail.append(byEmailFiles);
    RestrictionPolicy maskEmail = RestrictionPolicy.builder().mask("email", "mask-alphanum").build();
    catalog.readRestrictions(byEmail.identifier(), maskEmail);
    catalog.readRestrictions(byEmail.identifier(), ADMIN, RestrictionPolicy.json("{}"));
    catalog.readRestrictions(byEmail.identifier(), HASHING, RestrictionPolicy.builder()
        .mask("email", "sha-256-query-local").build());

    EmbeddedTable evolving = catalog.createTable(TableIdentifier.of(NAMESPACE, "evolving"), SCHEMA,
        PartitionSpec.unpartitioned(), 2);
    evolving.appendRows(FileFormat.PARQUET, List.of(evolving.newRecord(1L, "a1@corp.example"),
        evolving.newRecord(2L, "b2@corp.example")));
    beforeSsn = evolving.currentSnapshotId();
    evolving.table().updateSchema().addColumn("ssn", Types.LongType.get()).commit();
    evolving.appendRows(FileFormat.PARQUET, List.of(evolving.newRecord(3L, "c3@corp.example", 123_456_789L)));
    catalog.readRestrictions(evolving.identifier(), RestrictionPolicy.builder().mask("email", "mask-alphanum")
        .mask("ssn", "sha-256-global").build());
    catalog.readRestrictions(evolving.identifier(), HASHING, RestrictionPolicy.builder()
        .rowFilter(Expressions.notEqual("ssn", 1L)).build());

    // every row written before pin was added reads its initial default: the raw value of all of them
    EmbeddedTable defaults = catalog.createTable(TableIdentifier.of(NAMESPACE, "defaults"), SCHEMA,
        PartitionSpec.unpartitioned(), 3);
    defaults.appendRows(FileFormat.PARQUET, List.of(defaults.newRecord(1L, "a1@corp.example")));
    defaults.table().updateSchema().addColumn("pin", Types.StringType.get(), Literal.of(PIN)).commit();
    catalog.readRestrictions(defaults.identifier(), RestrictionPolicy.builder().mask("pin", "mask-alphanum").build());
    catalog.readRestrictions(defaults.identifier(), ADMIN, RestrictionPolicy.json("{}"));

    ObservationRegistry observations = ObservationRegistry.create();
    observations.observationConfig().observationHandler(new ObservationHandler<>() {
      @Override
      public void onStop(Observation.Context context) {
        PLANS.add((ScanPlanningObservationContext) context);
      }

      @Override
      public boolean supportsContext(Observation.Context context) {
        return context instanceof ScanPlanningObservationContext;
      }
    });
    planner = ScanPlanner.builder().uri(catalog.uri()).observationRegistry(observations).build();
    iceberg = IcebergScanPlanner.builder(planner).scanReports(false).build();
    adminPlanner = ScanPlanner.builder().uri(catalog.uri()).observationRegistry(observations)
        .header("Authorization", "Bearer " + ADMIN).build();
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

  @Test
  void aMaskedPartitionSourceIsMaskedInTheRowsThoughTheReaderFillsItFromThePartition() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "by_email"));
    try (ScanRows rows = iceberg.readRows(table, IcebergScan.all())) {
      List<Object> emails = new ArrayList<>();
      rows.forEach(row -> emails.add(row.getField("email")));
      assertThat(emails).hasSize(6).containsOnly("xxxxxxn@xxxx.xxxxxxx");
    }
  }

  @Test
  void theMetadataColumnsThatHoldAMaskedPartitionSourceRawAreRefusedBeforeAnyRequest() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "by_email"));
    catalog.resetRequestCounts();
    for (String column : List.of("_file", "_partition")) {
      assertThatThrownBy(() -> iceberg.plan(table, IcebergScan.all().select("id", column)))
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining("select(" + column + ")")
          .hasMessageContaining("field 2 is masked");
    }
    assertThat(catalog.requestCounts().plan()).isZero();
    // the row's own metadata, which no masked column is the source of, stays
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all().select("id", "_pos"))) {
      assertThat(GovernedReadTests.rendered(plan.rows())).hasSize(6);
    }
  }

  @Test
  void aFailedTaskOfARestrictedTableWithholdsItsFileAndTheFailuresMessage() {
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "by_email_missing");
    EmbeddedTable missing = catalog.createTable(identifier, SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("email").build(), 2);
    List<DataFile> files = missing.writeRows(FileFormat.AVRO, List.of(missing.newRecord(1L, "ceo@corp.example")));
    missing.append(files);
    missing.table().io().deleteFile(files.get(0).location());
    assertThat(files.get(0).location()).contains("ceo");
    catalog.readRestrictions(identifier, RestrictionPolicy.builder().mask("email", "mask-alphanum").build());
    catalog.readRestrictions(identifier, ADMIN, RestrictionPolicy.json("{}"));

    IcebergTable table = iceberg.loadTable(identifier);
    assertThatThrownBy(() -> GovernedReadTests.rendered(iceberg.readRows(table, IcebergScan.all())))
        .isInstanceOfSatisfying(TaskReadException.class, failed -> {
          assertThat(failed.dataFile()).isEqualTo(TaskReadException.WITHHELD);
          assertThat(failed.getCause()).isNull();
          assertThat(failed.getMessage()).contains(identifier.toString()).contains("NotFoundException")
              .doesNotContain("ceo").doesNotContain("corp.example").doesNotContain("memory://");
        });
    // read by a caller the catalog restricts nothing of, the same failure names the file
    IcebergTable raw = admin.loadTable(identifier);
    assertThatThrownBy(() -> GovernedReadTests.rendered(admin.readRows(raw, IcebergScan.all())))
        .isInstanceOf(TaskReadException.class).hasMessageContaining(files.get(0).location());
  }

  @Test
  void aTimeTravelToASchemaWithoutAMaskedColumnReadsWithoutItsMask() {
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "evolving"));
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all().useSnapshot(beforeSsn))) {
      assertThat(plan.schema().findField("ssn")).isNull();
      assertThat(GovernedReadTests.rendered(plan.rows())).extracting(row -> row.get("email"))
          .containsExactlyInAnyOrder("xn@xxxx.xxxxxxx", "xn@xxxx.xxxxxxx");
    }
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all())) {
      assertThat(GovernedReadTests.rendered(plan.rows())).extracting(row -> row.get("ssn"))
          .containsExactlyInAnyOrder(null, null, GovernedReadTests.sha256OfLong(123_456_789L));
    }
  }

  @Test
  void aRowFilterOnAColumnTheSnapshotsSchemaLacksFailsTheReadBeforeAnyRequest() throws IOException {
    try (ScanPlanner hashing = ScanPlanner.builder().uri(catalog.uri()).header("Authorization", "Bearer " + HASHING)
        .build(); IcebergScanPlanner reader = IcebergScanPlanner.builder(hashing).scanReports(false).build()) {
      // checked at the load against the current schema, which has the column
      IcebergTable table = reader.loadTable(TableIdentifier.of(NAMESPACE, "evolving"));
      int ssn = table.schema().findField("ssn").fieldId();
      catalog.resetRequestCounts();
      assertThatThrownBy(() -> reader.plan(table, IcebergScan.all().useSnapshot(beforeSsn)))
          .isInstanceOfSatisfying(InvalidReadRestrictionsException.class, refused -> {
            assertThat(refused.fieldId()).isEqualTo(ssn);
            assertThat(refused.rule()).contains("has no field " + ssn);
          });
      assertThat(catalog.requestCounts().plan()).isZero();
      try (ScanRows rows = reader.readRows(table, IcebergScan.all())) {
        assertThat(GovernedReadTests.rendered(rows)).hasSize(3);
      }
    }
  }

  @Test
  void aMaskedFieldsDefaultsAreLeftOutOfEverySchemaHandedOutAndItsEarlierRowsReadTheDefaultMasked() {
    TableIdentifier identifier = TableIdentifier.of(NAMESPACE, "defaults");
    Types.NestedField raw = admin.loadTable(identifier).schema().findField("pin");
    assertThat(String.valueOf(raw.initialDefault())).isEqualTo(PIN);
    assertThat(String.valueOf(raw.writeDefault())).isEqualTo(PIN);
    IcebergTable table = iceberg.loadTable(identifier);
    assertNoDefaultOfPin(table.schema().asStruct());
    List<Record> rows = new ArrayList<>();
    try (IcebergScanPlan plan = iceberg.plan(table, IcebergScan.all())) {
      assertNoDefaultOfPin(plan.schema().asStruct());
      try (ScanRows read = plan.rows()) {
        read.forEach(rows::add);
      }
    }
    assertThat(rows).hasSize(1).allSatisfy(row -> {
      assertThat(String.valueOf(row.getField("pin"))).isEqualTo(GovernedReadTests.maskAlphanum(PIN));
      assertNoDefaultOfPin(row.struct());
    });
  }

  private static void assertNoDefaultOfPin(Types.StructType struct) {
    assertThat(struct.field("pin").initialDefault()).isNull();
    assertThat(struct.field("pin").writeDefault()).isNull();
  }

  @Test
  void aMalformedTaskOfARestrictedPlanFailsWithoutItsPathItsValuesOrACause() {
    // a residual naming no column, whose literal is a raw email; the file's path holds one too (email=...)
    String residual = ExpressionParser.toJson(Expressions.equal("no_such", "person0@corp.example"));
    ScanPlanner malformed = new StubPlanner(planner) {

      @Override
      public ScanPlan plan(io.icebergscan.planning.model.TableIdentifier table, ScanRequest request) {
        ScanPlan plan = super.plan(table, request);
        return new ScanPlan(plan.planId(), plan.tasks().stream().map(task -> new io.icebergscan.planning.model
            .FileScanTask(task.dataFile(), task.deleteFiles(), residual)).toList(), plan.storageCredentials(),
            plan.statistics());
      }
    };
    try (IcebergScanPlanner reader = IcebergScanPlanner.builder(malformed).scanReports(false).build()) {
      IcebergTable table = reader.loadTable(TableIdentifier.of(NAMESPACE, "by_email"));
      assertThatThrownBy(() -> reader.plan(table, IcebergScan.all())).isInstanceOf(MalformedResponseException.class)
          .hasMessageContaining("residual filter").hasMessageNotContaining("corp.example")
          .hasMessageNotContaining("no_such").hasNoCause();
    }
  }

  @Test
  void theQueryLocalSaltIsOnePerPlanSharedByEveryReadOfIt() {
    try (ScanPlanner hashing = ScanPlanner.builder().uri(catalog.uri()).header("Authorization", "Bearer " + HASHING)
        .build(); IcebergScanPlanner reader = IcebergScanPlanner.builder(hashing).scanReports(false).build()) {
      IcebergTable table = reader.loadTable(TableIdentifier.of(NAMESPACE, "by_email"));
      List<Object> first;
      List<Object> again;
      try (IcebergScanPlan plan = reader.plan(table, IcebergScan.all().select("id", "email"))) {
        first = emailsById(plan.rows());
        again = emailsById(plan.rows().unordered());
      }
      List<Object> otherPlan;
      try (IcebergScanPlan plan = reader.plan(table, IcebergScan.all().select("id", "email"))) {
        otherPlan = emailsById(plan.rows());
      }
      assertThat(first).allSatisfy(hash -> assertThat((String) hash).matches("[0-9a-f]{64}"));
      assertThat(first).as("one salt for every read of a plan").isEqualTo(again);
      // rows of one email hash alike in a plan: 0 and 3 are person0's
      assertThat(first.get(0)).isEqualTo(first.get(3)).isNotEqualTo(first.get(1));
      assertThat(otherPlan).as("another plan, another salt").doesNotContainAnyElementsOf(first);
      assertThat(first).doesNotContain(GovernedReadTests.sha256Hex(new byte[0], "person0@corp.example"));
    }
  }

  @Test
  void aPlanForARestrictedReadIsObservedAsRestricted() {
    PLANS.clear();
    IcebergTable table = iceberg.loadTable(TableIdentifier.of(NAMESPACE, "by_email"));
    try (ScanRows rows = iceberg.readRows(table, IcebergScan.all())) {
      assertThat(rows).hasSize(6);
    }
    await().untilAsserted(() -> assertThat(PLANS).hasSize(1));
    assertThat(PLANS.get(0).restricted()).isTrue();
    assertThat(PLANS.get(0).getLowCardinalityKeyValues().stream().filter(key -> key.getKey().equals("restricted")))
        .singleElement().satisfies(key -> assertThat(key.getValue()).isEqualTo("true"));
    PLANS.clear();
    try (IcebergScanPlan plan = admin.plan(admin.loadTable(table.identifier()), IcebergScan.all())) {
      assertThat(plan.tasks()).isNotEmpty();
    }
    await().untilAsserted(() -> assertThat(PLANS).hasSize(1));
    assertThat(PLANS.get(0).restricted()).isFalse();
  }

  @Test
  void anEngineIsRefusedARestrictedTableAtItsLoadAndServedAnUnrestrictedOne() throws IOException {
    try (ScanPlanningCatalog engines = new ScanPlanningCatalog()) {
      engines.initialize("lake", Map.of("uri", catalog.uri()));
      assertThatThrownBy(() -> engines.loadTable(TableIdentifier.of(NAMESPACE, "by_email")))
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".by_email")
          .hasMessageContaining("its own readers");
      // a metadata table describes the raw rows of its table: refused with it
      assertThatThrownBy(() -> engines.loadTable(TableIdentifier.of(NAMESPACE, "by_email", "files")))
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".by_email");
    }
    try (ScanPlanningCatalog engines = new ScanPlanningCatalog()) {
      engines.initialize("lake", Map.of("uri", catalog.uri(), "token", ADMIN));
      assertThat(engines.loadTable(TableIdentifier.of(NAMESPACE, "by_email")).newScan().planFiles()).hasSize(3);
      assertThat(engines.loadTable(TableIdentifier.of(NAMESPACE, "by_email", "files"))).isNotNull();
    }
  }

  @Test
  void anEngineIsRefusedARestrictedTableItRegistersCreatesOrReplaces() throws IOException {
    TableIdentifier byEmail = TableIdentifier.of(NAMESPACE, "by_email");
    String metadataLocation;
    try (ScanPlanningCatalog engines = new ScanPlanningCatalog()) {
      engines.initialize("lake", Map.of("uri", catalog.uri(), "token", ADMIN));
      metadataLocation = ((HasTableOperations) engines.loadTable(byEmail)).operations().current()
          .metadataFileLocation();
      // served no restrictions, the admin may replace it (the transaction is not committed)
      assertThat(engines.buildTable(byEmail, SCHEMA).replaceTransaction().table().io()).isNotNull();
    }
    TableIdentifier registered = TableIdentifier.of(NAMESPACE, "registered");
    TableIdentifier created = TableIdentifier.of(NAMESPACE, "created");
    RestrictionPolicy maskEmail = RestrictionPolicy.builder().mask("email", "mask-alphanum").build();
    catalog.readRestrictions(registered, maskEmail);
    catalog.readRestrictions(created, maskEmail);
    try (ScanPlanningCatalog engines = new ScanPlanningCatalog()) {
      engines.initialize("lake", Map.of("uri", catalog.uri()));
      assertThatThrownBy(() -> engines.registerTable(registered, metadataLocation))
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".registered");
      assertThatThrownBy(() -> engines.buildTable(created, SCHEMA).create())
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".created");
      // a replacement's table has the replaced table's snapshots, and its FileIO opens their files
      assertThatThrownBy(() -> engines.buildTable(byEmail, SCHEMA).replaceTransaction())
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".by_email");
      assertThatThrownBy(() -> engines.buildTable(byEmail, SCHEMA).createOrReplaceTransaction())
          .isInstanceOf(RestrictedReadException.class).hasMessageContaining(NAMESPACE + ".by_email");
      // a table that does not exist yet has nothing to withhold
      assertThat(engines.buildTable(TableIdentifier.of(NAMESPACE, "not_yet"), SCHEMA).createOrReplaceTransaction())
          .isNotNull();
    }
  }

  private static List<Object> emailsById(ScanRows rows) {
    return GovernedReadTests.rendered(rows).stream()
        .sorted(java.util.Comparator.comparing(row -> (Long) row.get("id"))).map(row -> row.get("email")).toList();
  }
}
