package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.Map;
import java.util.TreeMap;

import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Settings of the {@code IcebergScanPlanner} that reads plans as Apache Iceberg's types. A setting left unset is
 * not passed on, so the default is the builder's ({@code IcebergScanPlanner.Builder}), the one place defaults are
 * written; the values are checked there too. The configuration metadata documents those defaults, and a test
 * holds the two together.
 *
 * @param splitSize Target size of the combined tasks a plan's files are split into, in place of the table's
 *     "read.split.target-size".
 * @param readConcurrency How many tasks a read of rows reads at once, on the "icebergScanPlanningReadExecutor"
 *     (of as many threads): at most this many files of a read are open.
 * @param readBuffer What the rows a read of rows holds that the reader has not taken may weigh at most, shared by
 *     the tasks it reads ahead, so that in task order the tasks after the one being handed over keep decoding while
 *     it allows; estimated from a sample of the rows read, and the earliest task may hold 1,024 rows of its own
 *     besides.
 * @param scanReports Whether each plan sends the catalog a ScanReport when the catalog has the metrics
 *     endpoint. A report that fails never fails the plan.
 * @param vendedCredentials Whether table loads ask the catalog for vended credentials
 *     ("X-Iceberg-Access-Delegation: vended-credentials").
 * @param fileIo FileIO properties ("io-impl", "s3.endpoint", ...) over the catalog's configuration and beneath
 *     the table's config and the vended credentials. Without "io-impl" from any of them, Apache Iceberg's
 *     ResolvingFileIO.
 */
@ConfigurationProperties("iceberg.rest.scan-planning.iceberg")
public record IcebergReadingProperties(
    @Nullable DataSize splitSize,
    @Nullable Integer readConcurrency,
    @Nullable DataSize readBuffer,
    @Nullable Boolean scanReports,
    @Nullable Boolean vendedCredentials,
    @DefaultValue Map<String, String> fileIo) {

  public IcebergReadingProperties {
    fileIo = Map.copyOf(fileIo);
  }

  /** Never shows the FileIO property values: they often hold credentials (s3.secret-access-key, …). */
  @Override
  public String toString() {
    return "IcebergReadingProperties[splitSize=" + this.splitSize + ", readConcurrency=" + this.readConcurrency
        + ", readBuffer=" + this.readBuffer + ", scanReports=" + this.scanReports
        + ", vendedCredentials=" + this.vendedCredentials + ", fileIo=" + new TreeMap<>(this.fileIo).keySet() + "]";
  }
}
