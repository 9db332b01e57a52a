package io.icebergscan.planning.test;

import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.iceberg.catalog.TableIdentifier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A client error is the client's, not the catalog's: the tests that ask for a 404 on purpose get it answered as
 * before, with a line at debug instead of an ERROR and its stack trace. A server error is still logged as one.
 */
class EmbeddedCatalogLoggingTests {

  private final EmbeddedIcebergCatalog catalog = EmbeddedIcebergCatalog.create();
  private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
  private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  private final Logger embedded = (Logger) LoggerFactory.getLogger(EmbeddedIcebergCatalog.class);
  private Level embeddedLevel = Level.INFO;

  @BeforeEach
  void capture() {
    this.logged.start();
    this.root.addAppender(this.logged);
    this.embeddedLevel = this.embedded.getLevel();
    this.embedded.setLevel(Level.DEBUG);
    this.catalog.start();
    this.catalog.createTable(TableIdentifier.of("db", "events"), Tables.SCHEMA);
  }

  @AfterEach
  void release() {
    this.catalog.close();
    this.embedded.setLevel(this.embeddedLevel);
    this.root.detachAppender(this.logged);
    this.logged.stop();
  }

  @Test
  void clientErrorsAreAnsweredAsBeforeAndLoggedAtDebugWithoutAStackTrace() {
    RawHttp http = new RawHttp(this.catalog);

    // a table load and a namespace check, whose answer the servlet would make 304 and 204 were it not written
    RawHttp.Response table = http.get("/v1/namespaces/db/tables/missing");
    RawHttp.Response namespace = http.head("/v1/namespaces/nowhere");
    RawHttp.Response dropped = http.delete("/v1/namespaces/nowhere");
    RawHttp.Response plan = http.post("/v1/namespaces/db/tables/missing/plan", "{}");
    this.catalog.requireBearerToken(true);
    RawHttp.Response anonymous = http.get("/v1/config");

    assertThat(table.status()).isEqualTo(404);
    assertThat(table.json().path("error").path("type").asText()).isEqualTo("NoSuchTableException");
    assertThat(namespace.status()).isEqualTo(404);
    assertThat(dropped.status()).isEqualTo(404);
    assertThat(dropped.json().path("error").path("type").asText()).isEqualTo("NoSuchNamespaceException");
    assertThat(plan.status()).isEqualTo(404);
    assertThat(anonymous.status()).isEqualTo(401);
    assertThat(this.logged.list).as("nothing above debug").allSatisfy(event -> assertThat(event.getLevel())
        .isEqualTo(Level.DEBUG));
    assertThat(this.logged.list).allSatisfy(event -> {
      assertThat(event.getLoggerName()).isEqualTo(EmbeddedIcebergCatalog.class.getName());
      assertThat(event.getThrowableProxy()).isNull();
    });
    List<String> lines = this.logged.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    assertThat(lines).hasSize(5).anySatisfy(line -> assertThat(line)
        .startsWith("GET /v1/namespaces/db/tables/missing answered 404 NoSuchTableException"));
  }

  @Test
  void serverErrorsStayErrors() {
    this.catalog.vendedCredentials(request -> {
      throw new IllegalStateException("the vault is down");
    });

    RawHttp.Response table = new RawHttp(this.catalog).get("/v1/namespaces/db/tables/events",
        "X-Iceberg-Access-Delegation", "vended-credentials");

    assertThat(table.status()).isEqualTo(500);
    assertThat(this.logged.list).filteredOn(event -> event.getLevel() == Level.ERROR).singleElement()
        .satisfies(event -> assertThat(event.getThrowableProxy()).isNotNull());
  }
}
