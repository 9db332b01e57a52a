package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import io.icebergscan.planning.ClassPathWithout;
import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DataFiles;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.Table;
import org.apache.iceberg.avro.Avro;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.DataWriter;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.io.FileAppender;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Avro data files read without iceberg-parquet and Hadoop, the module's optional dependencies: in a class loader
 * without them (an application that reads Avro only), a plan is loaded, planned and read. Iceberg 1.12 registers
 * no generic format model at all there, Avro's included, unless this module fills the gap.
 */
class AvroWithoutParquetTests {

  @Test
  void avroReadsWithoutParquetOrHadoop() throws Exception {
    ClassPathWithout.Run run = ClassPathWithout.run(path -> {
      String name = path.substring(path.lastIndexOf('/') + 1);
      return name.startsWith("iceberg-parquet-") || name.startsWith("parquet-") || name.startsWith("hadoop-");
    }, Probe.class);
    assertThat(run.leftOut()).as("this module's tests have the optional jars")
        .anyMatch(name -> name.startsWith("iceberg-parquet-")).anyMatch(name -> name.startsWith("hadoop-common-"));
    assertThat(run.outcome()).isEqualTo(List.of("no iceberg-parquet", "no hadoop", "read [1, 2, 3]"));
  }

  /**
   * Runs in the class loader without the optional jars. The file is written with Iceberg's Avro writer directly,
   * not through the test catalog's writers, which would register Avro's models themselves and hide whether this
   * module does. Only JDK types cross the loader boundary.
   */
  public static final class Probe implements Callable<List<String>> {

    @Override
    public List<String> call() throws IOException {
      List<String> outcome = new ArrayList<>();
      outcome.add(present("org.apache.iceberg.parquet.Parquet") ? "iceberg-parquet is there" : "no iceberg-parquet");
      outcome.add(present("org.apache.hadoop.conf.Configuration") ? "hadoop is there" : "no hadoop");
      try (EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create().start();
          ScanPlanner planner = ScanPlanner.builder().uri(catalog.uri()).build()) {
        Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()));
        catalog.createNamespace("avro");
        Table table = catalog.catalog().createTable(TableIdentifier.of(Namespace.of("avro"), "only"), schema);
        OutputFile out = table.io().newOutputFile(table.location() + "/data/rows.avro");
        List<Record> rows = new ArrayList<>();
        for (long id = 1; id <= 3; id++) {
          GenericRecord row = GenericRecord.create(schema);
          row.setField("id", id);
          rows.add(row);
        }
        try (FileAppender<Record> appender = Avro.write(out).schema(schema).createWriterFunc(DataWriter::create)
            .named("rows").build()) {
          appender.addAll(rows);
        }
        DataFile file = DataFiles.builder(PartitionSpec.unpartitioned()).withPath(out.location())
            .withFormat(FileFormat.AVRO).withFileSizeInBytes(out.toInputFile().getLength()).withRecordCount(3)
            .build();
        table.newAppend().appendFile(file).commit();
        IcebergScanPlanner iceberg = IcebergScanPlanner.builder(planner).scanReports(false).build();
        try (IcebergScanPlan plan = iceberg.plan(iceberg.loadTable(
            org.apache.iceberg.catalog.TableIdentifier.of("avro", "only")), IcebergScan.all());
            CloseableIterable<Record> read = plan.rows()) {
          List<Object> ids = new ArrayList<>();
          read.forEach(row -> ids.add(row.getField("id")));
          outcome.add("read " + ids);
        }
      }
      catch (UncheckedIOException failure) {
        throw failure.getCause();
      }
      return outcome;
    }

    private static boolean present(String className) {
      try {
        Class.forName(className);
        return true;
      }
      catch (ClassNotFoundException absent) {
        return false;
      }
    }
  }
}
