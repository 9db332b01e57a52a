package io.icebergscan.examples;

import java.util.List;

import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.expressions.Expression;
import org.jspecify.annotations.Nullable;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import reactor.core.publisher.Flux;

/**
 * A table's rows over HTTP, streamed from a plan as it is planned: {@code GET /tables/demo.events/rows}, as
 * newline-delimited JSON ({@code Accept: application/x-ndjson}) or a JSON array ({@code application/json}), each row an
 * object by column (the iceberg module's Jackson module). {@code select} names the columns, {@code filter} is an
 * Apache Iceberg expression in either of the REST spec's JSON forms, and {@code limit} (default 100) ends the read and
 * abandons the plan once that many rows are written: the first of this request's plan, which another request's plan
 * may list in another order (docs/reading.md, "What order means"). The response is written as rows are read, and a client that
 * reads slowly slows the file readers down: WebFlux asks for rows only as it writes them. A table the catalog governs
 * ({@code GET /tables/demo.customers/rows}) is read with its read restrictions enforced: its row filter's rows only,
 * masked. Failures of the planner answer as problem details
 * ({@code iceberg.rest.scan-planning.problem-details.enabled} in application.yml).
 */
@RestController
class TableRowsController {

  /** Rows one response writes at most, whatever the limit asked for. */
  static final long MAX_LIMIT = 10_000;

  private final IcebergScanPlanner iceberg;

  TableRowsController(IcebergScanPlanner iceberg) {
    this.iceberg = iceberg;
  }

  @GetMapping(path = "/tables/{table}/rows", produces = { MediaType.APPLICATION_NDJSON_VALUE,
      MediaType.APPLICATION_JSON_VALUE })
  Flux<Record> rows(@PathVariable String table, @RequestParam(required = false) @Nullable List<String> select,
      @RequestParam(required = false) @Nullable String filter, @RequestParam(defaultValue = "100") long limit) {
    if (limit < 0 || limit > MAX_LIMIT) {
      throw new IllegalArgumentException("limit must be between 0 and " + MAX_LIMIT + ", but was " + limit);
    }
    IcebergScan scan = IcebergScan.all();
    if (select != null && !select.isEmpty()) {
      scan = scan.select(select);
    }
    if (filter != null && !filter.isBlank()) {
      scan = scan.filter(expression(filter));
    }
    return this.iceberg.streamRows(TableIdentifier.parse(table), scan).take(limit);
  }

  private static Expression expression(String json) {
    try {
      return IcebergScan.parseFilter(json);
    }
    catch (IllegalArgumentException notAnExpression) {
      throw new IllegalArgumentException("filter is not an Apache Iceberg expression in the REST spec's JSON: "
          + notAnExpression.getMessage(), notAnExpression);
    }
  }

  /** A limit out of range, a filter that is no expression, a column the table lacks: the request's to fix. */
  @ExceptionHandler(IllegalArgumentException.class)
  ProblemDetail badRequest(IllegalArgumentException refused) {
    return ProblemDetail.forStatusAndDetail(HttpStatus.BAD_REQUEST, String.valueOf(refused.getMessage()));
  }
}
