package io.icebergscan.planning.iceberg;

import java.util.Map;

import io.icebergscan.planning.ScanPlanner;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The bounds of split settings, at their edges: Iceberg's {@code planTasks} needs a positive target size and
 * lookback (a zero size would make a split per byte), while a file may cost nothing to open.
 */
class SplitSettingsTests {

  @Test
  void aTargetSizeOrLookbackOfZeroIsRefusedAndAnOpenFileCostOfZeroIsNot() {
    assertThatThrownBy(() -> new SplitSettings(0, 10, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("splitSize must be positive: 0");
    assertThatThrownBy(() -> new SplitSettings(1, 0, 0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("lookback must be positive: 0");
    assertThatThrownBy(() -> new SplitSettings(1, 1, -1)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("openFileCost must not be negative: -1");
    assertThat(new SplitSettings(1, 1, 0)).isEqualTo(new SplitSettings(1, 1, 0));
    assertThatThrownBy(() -> SplitSettings.of(Map.of()).withSplitSize(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void thePlannersSplitSizeMustBePositiveToo() {
    try (ScanPlanner planner = ScanPlanner.builder().uri("http://127.0.0.1:1").build()) {
      IcebergScanPlanner.Builder builder = IcebergScanPlanner.builder(planner);
      assertThatThrownBy(() -> builder.splitSize(0)).isInstanceOf(IllegalArgumentException.class)
          .hasMessage("splitSize must be positive: 0");
      assertThat(builder.splitSize(1)).isSameAs(builder);
    }
  }
}
