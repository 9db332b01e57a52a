package io.icebergscan.planning.iceberg;

import org.apache.iceberg.avro.AvroFormatModel;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.data.avro.PlannedDataReader;
import org.apache.iceberg.formats.FormatModelRegistry;

/**
 * Makes Iceberg's generic Avro reader available without iceberg-parquet. Iceberg 1.12 registers its generic
 * format models (Avro, Parquet, ORC) from one class that cannot be linked without iceberg-parquet; its registry
 * logs that and goes on with none, so Avro files would not read either ("Format model is not registered for
 * format AVRO"). This registers the Avro reader of records, and nothing when iceberg-parquet is there.
 */
final class AvroWithoutParquet {

  private static boolean checked;

  private AvroWithoutParquet() {
  }

  static synchronized void register() {
    if (checked) {
      return;
    }
    checked = true;
    try {
      Class.forName("org.apache.iceberg.parquet.Parquet", false, AvroWithoutParquet.class.getClassLoader());
      return;
    }
    catch (ClassNotFoundException | LinkageError noParquet) {
      // fill the gap below
    }
    try {
      FormatModelRegistry.register(AvroFormatModel.create(Record.class, Void.class,
          (icebergSchema, avroSchema, engineSchema) -> org.apache.iceberg.data.avro.DataWriter.create(avroSchema),
          (icebergSchema, avroSchema, engineSchema, constants) -> PlannedDataReader.create(icebergSchema,
              constants)));
    }
    catch (IllegalArgumentException alreadyRegistered) {
      // someone else filled the gap first (the test catalog does): their model serves as well
    }
  }
}
