package io.icebergscan.planning.data;

import java.math.BigDecimal;
import java.util.List;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.data.support.IcebergRepositoryFactory;
import io.icebergscan.planning.exceptions.RestrictedReadException;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.MappedRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Limit;
import org.springframework.core.convert.converter.Converter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Repository reads of a governed table go through the same enforcement as every other read: the row filter's rows are
 * never returned, masked columns come masked, and a derived predicate on a masked column is evaluated on the masked
 * values. And the conversions arguments go through are the application's to extend.
 */
class GovernedRepositoryTests {

  static final TableIdentifier GOVERNED = TableIdentifier.of("governed", "events");

  @IcebergTable("governed.events")
  record Event(long id, String kind, BigDecimal amount, @io.icebergscan.planning.iceberg.Column("event_name")
      String name) {
  }

  interface EventRepository extends IcebergRepository<Event> {

    List<Event> findByNameStartingWith(String prefix);

    List<Event> findByKind(String kind);

    List<Event> findByAmountGreaterThan(Money amount);
  }

  /** An application's own type, which a converter it adds turns into a decimal. */
  record Money(long cents) {
  }

  static EmbeddedIcebergCatalog catalog;
  static ScanPlanner planner;
  static IcebergScanPlanner iceberg;
  static EventRepository repository;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start();
    Events.create(catalog, GOVERNED, 40, 2);
    catalog.readRestrictions(GOVERNED, RestrictionPolicy.builder().rowFilter(Expressions.notEqual("kind", "buy"))
        .mask("event_name", "show-first-4").build());
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    IcebergConversionService conversions = new IcebergConversionService();
    conversions.addConverter(Money.class, BigDecimal.class, money -> BigDecimal.valueOf(money.cents(), 2));
    repository = new IcebergRepositoryFactory(iceberg, conversions).getRepository(EventRepository.class);
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  @Test
  void theRowFiltersRowsAreNeverReturnedAndMaskedColumnsComeMasked() {
    assertThat(repository.findByKind("buy")).isEmpty();
    assertThat(repository.count()).isEqualTo(30);
    assertThat(repository.findByKind("view")).hasSize(10)
        .allSatisfy(event -> assertThat(event.name()).startsWith("even").doesNotContainPattern("[0-9]"));
  }

  @Test
  void aPredicateOnAMaskedColumnIsEvaluatedOnTheMaskedValues() {
    // raw names start with "event-1" for ids 1 and 10 to 19; the masked ones start with "even" and no more
    assertThat(repository.findByNameStartingWith("event-1")).isEmpty();
    assertThat(repository.findByNameStartingWith("even")).hasSize(30);
    assertThat(repository.findByNameStartingWith("event-1")).isEqualTo(byHand("event-1"));
  }

  private static List<Event> byHand(String prefix) {
    try (MappedRows<Event> rows = iceberg.readRows(iceberg.loadTable(GOVERNED),
        IcebergScan.all().filter(Expressions.startsWith("event_name", prefix)), Event.class)) {
      return rows.flux().collectList().block();
    }
  }

  @Test
  void aWindowOfARestrictedTableIsRefusedForItsPositionsNameDataFiles() {
    assertThatThrownBy(() -> repository.findAll(IcebergScrollPosition.initial(), Limit.of(5)))
        .isInstanceOf(RestrictedReadException.class)
        .hasMessageContaining("governed.events")
        .hasMessageContaining("raw partition values");
  }

  @Test
  void anArgumentOfTheApplicationsTypeGoesThroughItsConverter() {
    // amounts are 2.50 apart; row 38 is a buy, which the row filter removes
    assertThat(repository.findByAmountGreaterThan(new Money(9000))).extracting(Event::id)
        .containsExactlyInAnyOrder(37L, 39L);
  }

  @Test
  void anArgumentNoConverterTakesIsRefusedNamingTheColumn() {
    EventRepository unconverted = new IcebergRepositoryFactory(iceberg).getRepository(EventRepository.class);

    assertThatThrownBy(() -> unconverted.findByAmountGreaterThan(new Money(100)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("argument 1 of EventRepository.findByAmountGreaterThan(Money)")
        .hasMessageContaining("column 'amount' (decimal(10, 2)")
        .hasMessageContaining("IcebergConversionService");
  }
}
