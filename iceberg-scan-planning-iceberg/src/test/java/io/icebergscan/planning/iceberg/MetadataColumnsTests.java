package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.ScanRequest;
import io.icebergscan.planning.StubPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.FanOut;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.MetadataColumns;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.rest.RESTCatalog;
import org.apache.iceberg.types.TypeUtil;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Iceberg's metadata columns can be selected, as Iceberg's readers fill them: {@code _file}, {@code _pos} and
 * {@code _spec_id} equal what {@code IcebergGenerics} gives for the same projection, on Iceberg's client planning on
 * the server; {@code _partition} is the file's partition as a record of the table's partition type; v3's
 * {@code _row_id} and {@code _last_updated_sequence_number} are Iceberg's REST client's too. The {@code select} sent to
 * the catalog names the data columns only.
 */
class MetadataColumnsTests {

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.optional(2, "day", Types.DateType.get()));
  private static final String NAMESPACE = "metadata_columns";

  private static EmbeddedIcebergCatalog catalog;
  private static ScanPlanner planner;
  private static IcebergScanPlanner iceberg;
  private static RESTCatalog icebergClient;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().fanOut(FanOut.uniform(2, 1)).start();
    planner = ScanPlanner.builder().uri(catalog.uri()).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    icebergClient = new RESTCatalog();
    icebergClient.initialize("client", Map.of("uri", catalog.uri(), "scan-planning-mode", "server"));
  }

  @AfterAll
  static void stop() throws IOException {
    icebergClient.close();
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @ParameterizedTest
  @EnumSource(value = FileFormat.class, names = { "AVRO", "PARQUET" })
  void fileRowPositionAndSpecIdAreIcebergsOwn(FileFormat format) {
    EmbeddedTable table = table("file_pos_spec_" + format, 2, format);
    List<String> select = List.of("id", "_file", "_pos", "_spec_id");
    Schema projection = TypeUtil.join(SCHEMA.select("id"), new Schema(MetadataColumns.FILE_PATH,
        MetadataColumns.ROW_POSITION, MetadataColumns.SPEC_ID));
    List<String> ours = read(table, IcebergScan.all().select(select)
        .filter(Expressions.greaterThan("id", 2L)));
    List<String> theirs = rendered(IcebergGenerics.read(icebergClient.loadTable(table.identifier()))
        .project(projection).where(Expressions.greaterThan("id", 2L)).build());
    assertThat(ours).isNotEmpty().containsExactlyInAnyOrderElementsOf(theirs);
    assertThat(ours).allSatisfy(row -> assertThat(row).contains("_file=memory://").contains("_spec_id=0"));
  }

  @Test
  void thePartitionIsARecordOfTheTablesPartitionType() {
    EmbeddedTable table = table("partition", 2, FileFormat.AVRO);
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(identifier(table)), IcebergScan.all()
        .select("id", "_partition"))) {
      assertThat(plan.schema().columns()).extracting(Types.NestedField::name).containsExactly("id", "_partition");
      List<Record> rows = TestRows.readAll(plan.rows());
      assertThat(rows).hasSize(5).allSatisfy(row -> {
        Record partition = (Record) row.getField("_partition");
        assertThat(partition.getField("day")).isEqualTo(LocalDate.EPOCH.plusDays((Long) row.getField("id") % 2));
      });
    }
  }

  @Test
  void rowLineageIsIcebergsRestClientsOwn() {
    EmbeddedTable table = table("lineage", 3, FileFormat.PARQUET);
    List<String> select = List.of("id", "_row_id", "_last_updated_sequence_number");
    Schema projection = TypeUtil.join(SCHEMA.select("id"), new Schema(MetadataColumns.ROW_ID,
        MetadataColumns.LAST_UPDATED_SEQUENCE_NUMBER));
    List<String> ours = read(table, IcebergScan.all().select(select));
    List<String> theirs = rendered(IcebergGenerics.read(icebergClient.loadTable(table.identifier()))
        .project(projection).build());
    assertThat(ours).hasSize(6).containsExactlyInAnyOrderElementsOf(theirs);
    assertThat(ours).as("row ids from the files' first row ids").allSatisfy(row -> assertThat(row)
        .doesNotContain("_row_id=null"));
  }

  @Test
  void theSelectSentNamesTheDataColumnsOnlyAndNoneForMetadataColumnsAlone() {
    EmbeddedTable table = table("select_sent", 2, FileFormat.AVRO);
    Queue<ScanRequest> sent = new ConcurrentLinkedQueue<>();
    try (IcebergScanPlanner recorded = IcebergScanPlanner.builder(StubPlanner.recordingPlans(planner, sent))
        .scanReports(false).build()) {
      IcebergTable loaded = recorded.loadTable(identifier(table));
      recorded.plan(loaded, IcebergScan.all().select("id", "_file", "_pos")).close();
      recorded.plan(loaded, IcebergScan.all().select("_file")).close();
    }
    assertThat(sent).extracting(ScanRequest::select).containsExactly(List.of("id"), null);
  }

  @Test
  void onlyMetadataColumnsCanBeSelectedAndDeletedRowsAreNotAColumn() {
    EmbeddedTable table = table("only_metadata", 2, FileFormat.AVRO);
    assertThat(read(table, IcebergScan.all().select("_file"))).hasSize(5)
        .allSatisfy(row -> assertThat(row).startsWith("{_file="));
    assertThatThrownBy(() -> iceberg.plan(iceberg.loadTable(identifier(table)), IcebergScan.all()
        .select("id", "_deleted"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("_deleted");
    assertThatThrownBy(() -> iceberg.plan(iceberg.loadTable(identifier(table)), IcebergScan.all()
        .select("id", "_nope"))).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("_nope").hasMessageContaining("_file");
  }

  private static List<String> read(EmbeddedTable table, IcebergScan request) {
    try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(identifier(table)), request)) {
      return rendered(plan.rows());
    }
  }

  /** Six rows over two days, in a file per day; with version 2, a position delete file over the first file. */
  private static EmbeddedTable table(String name, int formatVersion, FileFormat format) {
    EmbeddedTable table = catalog.createTable(TableIdentifier.of(NAMESPACE, name.toLowerCase(java.util.Locale.ROOT)),
        SCHEMA, PartitionSpec.builderFor(SCHEMA).identity("day").build(), formatVersion);
    List<Record> rows = new ArrayList<>();
    for (long id = 0; id < 6; id++) {
      rows.add(table.newRecord(id, LocalDate.EPOCH.plusDays(id % 2)));
    }
    List<DataFile> files = table.writeRows(format, rows);
    table.append(files);
    if (formatVersion == 2) {
      table.addDeletes(table.writePositionDeletes(format, files.get(0), 1));
    }
    return table;
  }

  private static List<String> rendered(CloseableIterable<Record> rows) {
    List<String> rendered = new ArrayList<>();
    try (rows) {
      for (Record row : rows) {
        Map<String, Object> fields = new TreeMap<>();
        row.struct().fields().forEach(field -> fields.put(field.name(), row.getField(field.name())));
        rendered.add(fields.toString());
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
    return rendered;
  }

  private static org.apache.iceberg.catalog.TableIdentifier identifier(EmbeddedTable table) {
    return org.apache.iceberg.catalog.TableIdentifier.of(NAMESPACE, table.identifier().name());
  }
}
