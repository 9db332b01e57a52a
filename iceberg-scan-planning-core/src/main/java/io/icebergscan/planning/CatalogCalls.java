package io.icebergscan.planning;

import java.util.List;
import java.util.Map;

import io.icebergscan.planning.exceptions.ScanPlanningException;
import io.icebergscan.planning.model.Endpoint;
import io.icebergscan.planning.model.StorageCredential;
import io.icebergscan.planning.model.TableIdentifier;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;

/**
 * The catalog calls besides planning that a client reading the planned files needs, made through the planner's HTTP
 * client (its filters, TLS, retries and error mapping) and its discovery: {@link ScanPlanner#catalog()}. Each call
 * blocks for at most the planner's request timeout, discovery and retries included, and is refused where
 * {@link ScanPlanner#plan} is (on a non-blocking thread, after close); {@link #reportMetrics} returns at once.
 */
public interface CatalogCalls {

  /**
   * Loads a table's metadata, config, (if asked for) vended credentials and the read restrictions the catalog
   * requires of its readers: {@code GET …/tables/{table}}.
   *
   * @param vendedCredentials whether to ask the catalog for credentials to read the table's files with
   *     ({@code X-Iceberg-Access-Delegation: vended-credentials})
   * @throws ScanPlanningException (a subtype) when the call fails: {@code NoSuchTableException},
   *     {@code UnsupportedEndpointException} when the catalog lists its endpoints without this one, a malformed
   *     answer, ...
   */
  LoadedTable loadTable(TableIdentifier table, boolean vendedCredentials);

  /**
   * Whether the table exists: {@code HEAD …/tables/{table}}, answered without loading it. A catalog that lists its
   * endpoints without that one is asked by loading the table instead, as Apache Iceberg's client does. A 404 is
   * {@code false}, a missing namespace included (an answer to {@code HEAD} has no body to tell them apart).
   *
   * @throws ScanPlanningException (a subtype) when the call fails otherwise
   */
  boolean tableExists(TableIdentifier table);

  /**
   * Loads a table's current vended credentials ({@code GET …/tables/{table}/credentials}), e.g. to replace ones
   * that expire while the planned files are read. A catalog that lists no endpoints is refused it: what Apache
   * Iceberg's client assumes of such a catalog does not include it.
   *
   * @param planId the plan the files were planned by, when the credentials are for reading those (sent as
   *     {@code ?planId=})
   * @throws ScanPlanningException (a subtype) when the call fails, as for {@link #loadTable}
   */
  List<StorageCredential> loadCredentials(TableIdentifier table, @Nullable String planId);

  /**
   * Sends a metrics report ({@code POST …/tables/{table}/metrics}), such as Apache Iceberg's
   * {@code ReportMetricsRequestParser.toJson} writes, when the returned Mono is subscribed: a caller that does not
   * wait for the catalog subscribes and goes on (a report is no reason to hold up a plan), one that does
   * {@code block()}s. Bounded by the request timeout; cancelling the subscription abandons the request. Sent again
   * only after failures that say the catalog did not act on it (429, 503, a connection never made): a report sent
   * twice would be counted twice.
   *
   * @param reportJson the {@code ReportMetricsRequest}, sent as it is
   * @return a Mono that completes when the catalog accepted the report, or fails with a
   *     {@link ScanPlanningException} (a subtype) when it does not
   * @throws IllegalArgumentException when {@code reportJson} is not a JSON object, before anything is sent
   */
  Mono<Void> reportMetrics(TableIdentifier table, String reportJson);

  /**
   * Whether the catalog supports an endpoint, by the planner's discovery (made now if no call has made it yet):
   * the endpoints its {@code GET /v1/config} lists, or, when it lists none, the ones Apache Iceberg's client
   * assumes then (tables, namespaces and metrics reports, not planning nor credentials).
   *
   * @param endpoint for example {@link Endpoint#LOAD_CREDENTIALS}
   * @throws ScanPlanningException when discovery fails
   */
  boolean supports(Endpoint endpoint);

  /**
   * The catalog's configuration by the planner's discovery (made now if no call has made it yet): its
   * {@code GET /v1/config} {@code defaults} with its {@code overrides} over them, such as the FileIO settings
   * ({@code io-impl}, {@code s3.endpoint}) a client reading the table's files needs.
   *
   * @throws ScanPlanningException when discovery fails
   */
  Map<String, String> properties();
}
