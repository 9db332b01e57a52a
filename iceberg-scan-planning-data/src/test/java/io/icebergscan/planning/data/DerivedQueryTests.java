package io.icebergscan.planning.data;

import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.data.Events.Event;
import io.icebergscan.planning.data.support.IcebergRepositoryFactory;
import io.icebergscan.planning.iceberg.IcebergScan;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.iceberg.IcebergTable;
import io.icebergscan.planning.iceberg.MappedRows;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expression;
import org.apache.iceberg.expressions.Expressions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.domain.Limit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every keyword a derived query supports, against the same filter written by hand as an Iceberg {@code Expression}, on
 * real Parquet and Avro files through the embedded catalog: the same rows, and the same plan request (so the catalog
 * received the predicate, pushed down).
 */
class DerivedQueryTests {

  static final TableIdentifier EVENTS = TableIdentifier.of("repositories", "events");
  static final int ROWS = 60;
  /** The entity's columns: what a read of entities selects. */
  static final List<String> ENTITY_COLUMNS = List.of("id", "kind", "day", "at", "amount", "score", "flagged",
      "address", "event_name");

  interface EventRepository extends IcebergRepository<Event> {

    List<Event> findByKind(String kind);

    List<Event> findByKindIs(String kind);

    List<Event> findByKindNot(String kind);

    List<Event> findByScoreGreaterThan(double score);

    List<Event> findByScoreGreaterThanEqual(Double score);

    List<Event> findByAmountLessThan(BigDecimal amount);

    List<Event> findByAmountLessThanEqual(long amount);

    List<Event> findByDayBefore(LocalDate day);

    List<Event> findByAtAfter(Instant at);

    List<Event> findByAmountBetween(BigDecimal from, BigDecimal to);

    List<Event> findByKindIn(Set<String> kinds);

    List<Event> findByKindNotIn(String... kinds);

    List<Event> findByScoreIsNull();

    List<Event> findByScoreIsNotNull();

    List<Event> findByFlaggedTrue();

    List<Event> findByFlaggedFalse();

    List<Event> findByNameStartingWith(String prefix);

    List<Event> findByKindAndDayAfter(String kind, LocalDate day);

    List<Event> findByKindOrScoreLessThan(String kind, double score);

    List<Event> findByKindAndScoreGreaterThanOrKindAndFlaggedTrue(String kind, double score, String other);

    List<Event> findByAddressCity(String city);

    List<Event> findByAddressZipIn(List<Integer> zips);

    List<Event> findByKindIsNullOrKind(@Nullable String kind);
  }

  static EmbeddedIcebergCatalog catalog;
  static ScanPlanner planner;
  static IcebergScanPlanner iceberg;
  static EventRepository repository;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start().recordRequests(true);
    Events.create(catalog, EVENTS, ROWS, 2);
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    repository = new IcebergRepositoryFactory(iceberg).getRepository(EventRepository.class);
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  static Stream<Arguments> keywords() {
    return Stream.of(
        keyword("Is (implicit)", repository -> repository.findByKind("view"), Expressions.equal("kind", "view")),
        keyword("Is", repository -> repository.findByKindIs("buy"), Expressions.equal("kind", "buy")),
        keyword("Not", repository -> repository.findByKindNot("view"), Expressions.notEqual("kind", "view")),
        keyword("GreaterThan", repository -> repository.findByScoreGreaterThan(30),
            Expressions.greaterThan("score", 30.0)),
        keyword("GreaterThanEqual", repository -> repository.findByScoreGreaterThanEqual(30.0),
            Expressions.greaterThanOrEqual("score", 30.0)),
        keyword("LessThan (decimal)", repository -> repository.findByAmountLessThan(new BigDecimal("0.5")),
            Expressions.lessThan("amount", new BigDecimal("0.50"))),
        keyword("LessThanEqual (a long for a decimal)", repository -> repository.findByAmountLessThanEqual(1),
            Expressions.lessThanOrEqual("amount", new BigDecimal("1.00"))),
        keyword("Before (date)", repository -> repository.findByDayBefore(Events.FIRST_DAY.plusDays(3)),
            Expressions.lessThan("day", Events.FIRST_DAY.plusDays(3).toString())),
        keyword("After (an Instant for a timestamptz)",
            repository -> repository.findByAtAfter(Events.FIRST_AT.plusSeconds(3600 * 40)),
            Expressions.greaterThan("at", "2026-03-03T00:00:00+00:00")),
        keyword("Between", repository -> repository.findByAmountBetween(new BigDecimal("0.25"),
            new BigDecimal("0.75")), Expressions.and(Expressions.greaterThanOrEqual("amount", new BigDecimal("0.25")),
                Expressions.lessThanOrEqual("amount", new BigDecimal("0.75")))),
        keyword("In", repository -> repository.findByKindIn(Set.of("buy")), Expressions.in("kind", "buy")),
        keyword("NotIn", repository -> repository.findByKindNotIn("buy", "view"),
            Expressions.notIn("kind", "buy", "view")),
        keyword("IsNull", EventRepository::findByScoreIsNull, Expressions.isNull("score")),
        keyword("IsNotNull", EventRepository::findByScoreIsNotNull, Expressions.notNull("score")),
        keyword("True", EventRepository::findByFlaggedTrue, Expressions.equal("flagged", true)),
        keyword("False", EventRepository::findByFlaggedFalse, Expressions.equal("flagged", false)),
        keyword("StartingWith (an @Column)", repository -> repository.findByNameStartingWith("event-1"),
            Expressions.startsWith("event_name", "event-1")),
        keyword("And", repository -> repository.findByKindAndDayAfter("click", Events.FIRST_DAY.plusDays(4)),
            Expressions.and(Expressions.equal("kind", "click"),
                Expressions.greaterThan("day", Events.FIRST_DAY.plusDays(4).toString()))),
        keyword("Or", repository -> repository.findByKindOrScoreLessThan("view", 10),
            Expressions.or(Expressions.equal("kind", "view"), Expressions.lessThan("score", 10.0))),
        keyword("And within Or", repository -> repository.findByKindAndScoreGreaterThanOrKindAndFlaggedTrue(
            "click", 40, "buy"), Expressions.or(
                Expressions.and(Expressions.equal("kind", "click"), Expressions.greaterThan("score", 40.0)),
                Expressions.and(Expressions.equal("kind", "buy"), Expressions.equal("flagged", true)))),
        keyword("a nested property", repository -> repository.findByAddressCity("Porto"),
            Expressions.equal("address.city", "Porto")),
        keyword("In on a nested property", repository -> repository.findByAddressZipIn(List.of(1001, 1002)),
            Expressions.in("address.zip", 1001, 1002)),
        keyword("Is with null", repository -> repository.findByKindIsNullOrKind(null),
            Expressions.or(Expressions.isNull("kind"), Expressions.isNull("kind"))));
  }

  private static Arguments keyword(String name, Function<EventRepository, List<Event>> derived, Expression byHand) {
    return Arguments.of(Named.of(name, derived), byHand);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("keywords")
  void aDerivedQueryReadsAndPlansWhatTheSameFilterByHandDoes(Function<EventRepository, List<Event>> derived,
      Expression byHand) {
    catalog.clearRecordedRequests();
    List<Event> rows = derived.apply(repository);
    String derivedPlan = planRequest();

    catalog.clearRecordedRequests();
    IcebergTable table = iceberg.loadTable(EVENTS);
    List<Event> expected;
    try (MappedRows<Event> read = iceberg.readRows(table, IcebergScan.all().filter(byHand).select(ENTITY_COLUMNS),
        Event.class)) {
      expected = read.flux().collectList().block();
    }
    String handPlan = planRequest();

    assertThat(byId(rows)).isEqualTo(byId(expected));
    assertThat(derivedPlan).isEqualTo(handPlan);
  }

  @org.junit.jupiter.api.Test
  void keywordsSelectSomeRowsButNotAll() {
    assertThat(repository.findByKind("view")).hasSize(ROWS / 4);
    assertThat(repository.findByScoreIsNull()).hasSize(ROWS / 5);
    assertThat(repository.findByAddressCity("Porto")).isNotEmpty().hasSizeLessThan(ROWS / 2);
    assertThat(repository.findAll(Limit.unlimited())).hasSize(ROWS);
  }

  private static List<Event> byId(List<Event> events) {
    return events.stream().sorted(Comparator.comparingLong(Event::id)).toList();
  }

  /** The body of the one plan request made since the recorded requests were cleared. */
  private static String planRequest() {
    List<String> plans = catalog.recordedRequests().stream()
        .filter(request -> "POST".equals(request.method()) && request.path().endsWith("/plan"))
        .map(request -> String.valueOf(request.body())).toList();
    assertThat(plans).hasSize(1);
    return plans.get(0);
  }
}
