package io.icebergscan.snippets;

import java.util.ArrayList;
import java.util.List;

import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.ScanRows;
import org.apache.iceberg.data.Record;
import org.springframework.stereotype.Service;

@Service
class CustomerRowsAsUser {

  private final IcebergScanPlanner iceberg;

  CustomerRowsAsUser(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  /** What the catalog lets this user see: the load, the plan and the read all carry the user's token. */
  List<Record> visibleTo(String usersToken) {
    IcebergScanPlanner asUser = this.iceberg.as(CatalogCredentials.bearer(usersToken));
    List<Record> read = new ArrayList<>();
    try (ScanRows rows = asUser.readRows(asUser.loadTable(CustomerRows.CUSTOMERS), IcebergScan.all())) {
      rows.forEach(read::add);
    }
    return read;
  }
}
