package io.icebergscan.planning.iceberg;

import java.util.List;

import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/** The scan value: immutable refinements as Iceberg's scans have, one snapshot choice, and its bounds. */
class IcebergScanTests {

  @Test
  void aRefinementIsANewScanAndLeavesTheOneItRefinesAsItWas() {
    IcebergScan all = IcebergScan.all();
    IcebergScan refined = all.select("id").filter(Expressions.greaterThan("id", 5)).caseSensitive(false);
    assertThat(all.selectedColumns()).isNull();
    assertThat(all.filter()).isEqualTo(Expressions.alwaysTrue());
    assertThat(all.isCaseSensitive()).isTrue();
    assertThat(refined.selectedColumns()).containsExactly("id");
    assertThat(refined.isCaseSensitive()).isFalse();
    assertThat(refined.select("name").selectedColumns()).as("a later select replaces").containsExactly("name");
  }

  @Test
  void aScanReadsOneSnapshotAndASecondChoiceIsRefusedNamingBoth() {
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().useSnapshot(7).useRef("main"))
        .withMessageContaining("useRef(main)").withMessageContaining("useSnapshot(7)");
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().useRef("b").asOfTime(1000))
        .withMessageContaining("asOfTime(1000)").withMessageContaining("useRef(b)");
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().asOfTime(5).fromSnapshotExclusive(3))
        .withMessageContaining("fromSnapshotExclusive(3)").withMessageContaining("asOfTime(5)");
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().fromSnapshotExclusive(3).useSnapshot(4))
        .withMessageContaining("useSnapshot(4)").withMessageContaining("incremental");
  }

  @Test
  void boundsAreCheckedWhenSet() {
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().maxConcurrency(0))
        .withMessageContaining("maxConcurrency");
    assertThatIllegalArgumentException().isThrownBy(() -> IcebergScan.all().minRowsRequested(-1))
        .withMessageContaining("minRowsRequested");
    assertThat(IcebergScan.all().includeColumnStats(List.of("id")).columnStats()).containsExactly("id");
  }

  @Test
  void itSaysWhatItScans() {
    assertThat(IcebergScan.all().select("id").useRef("audit").caseSensitive(false)).hasToString(
        "IcebergScan[filter=true, select=[id], case-insensitive, useRef(audit)]");
    assertThat(IcebergScan.all().fromSnapshotExclusive(3).toString()).contains("appends after 3 up to the current");
  }
}
