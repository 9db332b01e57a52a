package io.icebergscan.planning.iceberg;

import java.util.Map;

import org.apache.iceberg.TableProperties;
import org.apache.iceberg.util.PropertyUtil;

/**
 * How planned tasks are combined into {@code CombinedScanTask}s for engines, with Apache Iceberg's meaning: files
 * are split at their split offsets (or every {@code splitSize} bytes), and splits are packed into groups of about
 * {@code splitSize} bytes, each file costing at least {@code openFileCost}, looking back over {@code lookback}
 * open groups for room.
 *
 * @param splitSize the target size of a group in bytes ({@code read.split.target-size})
 * @param lookback how many open groups are considered for each split ({@code read.split.planning-lookback})
 * @param openFileCost the least weight of a file in a group, in bytes ({@code read.split.open-file-cost})
 */
public record SplitSettings(long splitSize, int lookback, long openFileCost) {

  public SplitSettings {
    if (splitSize <= 0) {
      throw new IllegalArgumentException("splitSize must be positive: " + splitSize);
    }
    if (lookback <= 0) {
      throw new IllegalArgumentException("lookback must be positive: " + lookback);
    }
    if (openFileCost < 0) {
      throw new IllegalArgumentException("openFileCost must not be negative: " + openFileCost);
    }
  }

  /** The table's {@code read.split.*} properties, with Iceberg's defaults for those it does not set. */
  public static SplitSettings of(Map<String, String> tableProperties) {
    return new SplitSettings(
        PropertyUtil.propertyAsLong(tableProperties, TableProperties.SPLIT_SIZE, TableProperties.SPLIT_SIZE_DEFAULT),
        PropertyUtil.propertyAsInt(tableProperties, TableProperties.SPLIT_LOOKBACK,
            TableProperties.SPLIT_LOOKBACK_DEFAULT),
        PropertyUtil.propertyAsLong(tableProperties, TableProperties.SPLIT_OPEN_FILE_COST,
            TableProperties.SPLIT_OPEN_FILE_COST_DEFAULT));
  }

  /** These settings with another target size, e.g. from an engine's read option. */
  public SplitSettings withSplitSize(long splitSize) {
    return new SplitSettings(splitSize, this.lookback, this.openFileCost);
  }
}
