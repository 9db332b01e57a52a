package io.icebergscan.planning.test;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;

import org.apache.iceberg.FileFormat;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.types.Types;

/**
 * The governed demo table: {@code demo.customers}, whose catalog serves every caller
 * {@linkplain EmbeddedIcebergCatalog#readRestrictions read restrictions}: a row filter that keeps the customers of one
 * country, the email masked ({@code mask-alphanum}) and the birth date truncated to its year
 * ({@code truncate-to-year}). A reader that enforces them returns {@link #VISIBLE_ROWS} of its {@link #ROWS} rows,
 * none with a raw email or birth date; one that ignores them returns all, raw.
 *
 * <p>Its columns: {@code id} (long), {@code name} (string), {@code email} (optional string), {@code birth_date}
 * (optional date) and {@code country} (string, the identity partition), in two appends, Avro then Parquet when
 * iceberg-parquet and Hadoop are on the class path (Avro otherwise).
 */
public final class DemoCustomers {

  /** The table's name as the planner's clients write it. */
  public static final String NAME = "demo.customers";

  /** The table's name in Apache Iceberg's catalog API. */
  public static final TableIdentifier IDENTIFIER = TableIdentifier.of("demo", "customers");

  /** The country the row filter keeps. */
  public static final String VISIBLE_COUNTRY = "US";

  /** The rows written. */
  public static final int ROWS = 60;

  /** The rows of {@link #VISIBLE_COUNTRY}, which a reader that enforces the row filter returns. */
  public static final int VISIBLE_ROWS = 30;

  /** What the catalog serves: the row filter on the raw country, the masks on the email and the birth date. */
  public static final RestrictionPolicy POLICY = RestrictionPolicy.builder()
      .rowFilter(Expressions.equal("country", VISIBLE_COUNTRY))
      .mask("email", "mask-alphanum")
      .mask("birth_date", "truncate-to-year")
      .build();

  private static final Schema SCHEMA = new Schema(
      Types.NestedField.required(1, "id", Types.LongType.get()),
      Types.NestedField.required(2, "name", Types.StringType.get()),
      Types.NestedField.optional(3, "email", Types.StringType.get()),
      Types.NestedField.optional(4, "birth_date", Types.DateType.get()),
      Types.NestedField.required(5, "country", Types.StringType.get()));

  private static final String[] COUNTRIES = { VISIBLE_COUNTRY, "DE" };
  private static final String[] NAMES = { "Ada", "Grace", "Linus", "Barbara", "Dennis", "Margaret" };

  private DemoCustomers() {
  }

  /**
   * Creates and fills the table in {@code catalog} (started or not), and has the catalog serve {@link #POLICY} with
   * it to every caller.
   *
   * @throws org.apache.iceberg.exceptions.AlreadyExistsException when the catalog has the table already
   */
  public static EmbeddedTable create(EmbeddedIcebergCatalog catalog) {
    EmbeddedTable table = catalog.createTable(IDENTIFIER, SCHEMA,
        PartitionSpec.builderFor(SCHEMA).identity("country").build(), 2);
    FileFormat second = ContentFileWriter.isWritable(FileFormat.PARQUET) ? FileFormat.PARQUET : FileFormat.AVRO;
    table.appendRows(FileFormat.AVRO, rows(table, 0, ROWS / 2));
    table.appendRows(second, rows(table, ROWS / 2, ROWS / 2));
    catalog.readRestrictions(IDENTIFIER, POLICY);
    return table;
  }

  private static List<Record> rows(EmbeddedTable table, long from, int count) {
    List<Record> rows = new ArrayList<>(count);
    for (long id = from; id < from + count; id++) {
      String name = NAMES[(int) (id % NAMES.length)];
      rows.add(table.newRecord(id, name, id % 10 == 9 ? null : name.toLowerCase(java.util.Locale.ROOT) + id + "@example.com",
          LocalDate.of(1950, 1, 1).plusDays(id * 397), COUNTRIES[(int) (id % COUNTRIES.length)]));
    }
    return rows;
  }
}
