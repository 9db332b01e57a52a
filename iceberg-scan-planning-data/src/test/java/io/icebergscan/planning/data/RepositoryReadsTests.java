package io.icebergscan.planning.data;

import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.data.Events.Event;
import io.icebergscan.planning.data.support.IcebergRepositoryFactory;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedTable;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.apache.iceberg.util.JsonUtil;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What a repository reads, through the embedded catalog on real files: projections that send only their columns,
 * limits, single results, streams, windows that page through a table while commits land, pinned snapshots, and
 * counts that trust the plan's record counts only when they are exact.
 */
class RepositoryReadsTests {

  static final TableIdentifier EVENTS = TableIdentifier.of("repositories", "events");
  static final int ROWS = 60;

  interface KindAndDay {
    String getKind();

    LocalDate getDay();
  }

  record DaySummary(long id, LocalDate day) {
  }

  interface Labelled {
    @Value("#{target.name + '/' + target.kind}")
    String getLabel();
  }

  interface EventRepository extends IcebergRepository<Event> {

    List<KindAndDay> findByKind(String kind);

    List<DaySummary> findByFlaggedTrue();

    <P> List<P> findByAddressCity(String city, Class<P> type);

    List<Labelled> findByScoreIsNull();

    List<Event> findTop5ByKind(String kind);

    List<Event> findByKindIs(String kind, Limit limit);

    Optional<Event> findFirstByKind(String kind);

    Event findByKindNot(String kind);

    Optional<Event> findOneById(long id);

    Stream<Event> streamByKind(String kind);

    long countByKind(String kind);

    boolean existsByKind(String kind);

    Window<Event> findByKindNot(String kind, IcebergScrollPosition position, Limit limit);

    Window<Event> findByKindIs(String kind, IcebergScrollPosition position);

    List<Event> findByIdStartingWith(String prefix);

    @AtSnapshot(ref = "first")
    List<Event> findByKindNotNull();

    List<Event> findByIdGreaterThanEqual(long id, TableSnapshot snapshot);
  }

  static EmbeddedIcebergCatalog catalog;
  static EmbeddedTable events;
  static ScanPlanner planner;
  static IcebergScanPlanner iceberg;
  static IcebergRepositoryFactory factory;
  static EventRepository repository;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start().recordRequests(true);
    events = Events.create(catalog, EVENTS, ROWS, 2);
    long first = events.snapshotIds().get(0);
    events.table().manageSnapshots().createTag("first", first).commit();
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    iceberg = IcebergScanPlanner.builder(planner).build();
    factory = new IcebergRepositoryFactory(iceberg);
    repository = factory.getRepository(EventRepository.class);
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  /** The columns the one plan request since the last clear selected. */
  private static List<String> selected() {
    return selected(catalog);
  }

  /** The columns the one plan request {@code catalog} recorded since the last clear selected. */
  static List<String> selected(EmbeddedIcebergCatalog catalog) {
    List<String> plans = catalog.recordedRequests().stream()
        .filter(request -> "POST".equals(request.method()) && request.path().endsWith("/plan"))
        .map(request -> String.valueOf(request.body())).toList();
    assertThat(plans).hasSize(1);
    try {
      List<String> columns = new ArrayList<>();
      JsonUtil.mapper().readTree(plans.get(0)).get("select").forEach(column -> columns.add(column.asText()));
      return columns;
    }
    catch (java.io.IOException notJson) {
      throw new AssertionError(notJson);
    }
  }

  @Test
  void anEntityReadSelectsTheEntitysColumnsOnly() {
    catalog.clearRecordedRequests();
    assertThat(repository.findTop5ByKind("view")).hasSize(5);
    assertThat(selected()).containsExactly("id", "kind", "day", "at", "amount", "score", "flagged", "address",
        "event_name");
  }

  @Test
  void aClosedInterfaceProjectionSelectsItsColumnsOnly() {
    catalog.clearRecordedRequests();
    List<KindAndDay> rows = repository.findByKind("buy");

    assertThat(selected()).containsExactlyInAnyOrder("kind", "day");
    assertThat(rows).hasSize(ROWS / 4).allSatisfy(row -> assertThat(row.getKind()).isEqualTo("buy"))
        .extracting(KindAndDay::getDay).doesNotContainNull();
  }

  @Test
  void aDtoProjectionSelectsItsColumnsOnly() {
    catalog.clearRecordedRequests();
    List<DaySummary> rows = repository.findByFlaggedTrue();

    assertThat(selected()).containsExactlyInAnyOrder("id", "day");
    assertThat(rows).hasSize(ROWS / 3).allSatisfy(row -> {
      assertThat(row.id() % 3).isZero();
      assertThat(row.day()).isEqualTo(Events.FIRST_DAY.plusDays(row.id() % 9));
    });
  }

  @Test
  void aDynamicProjectionSelectsTheColumnsOfTheTypeAskedFor() {
    catalog.clearRecordedRequests();
    List<DaySummary> summaries = repository.findByAddressCity("Braga", DaySummary.class);
    assertThat(selected()).containsExactlyInAnyOrder("id", "day");

    catalog.clearRecordedRequests();
    List<Event> entities = repository.findByAddressCity("Braga", Event.class);
    assertThat(selected()).hasSize(9);

    assertThat(summaries).extracting(DaySummary::id).containsExactlyInAnyOrderElementsOf(
        entities.stream().map(Event::id).toList());
  }

  @Test
  void anOpenProjectionReadsTheEntitysColumns() {
    catalog.clearRecordedRequests();
    List<Labelled> rows = repository.findByScoreIsNull();

    assertThat(selected()).hasSize(9);
    assertThat(rows).hasSize(ROWS / 5).extracting(Labelled::getLabel).contains("event-0/click", "event-5/view");
  }

  @Test
  void limitsBoundTheRowsAndSingleResultsAreOneRow() {
    assertThat(repository.findByKindIs("click", Limit.of(3))).hasSize(3)
        .allSatisfy(event -> assertThat(event.kind()).isEqualTo("click"));
    assertThat(repository.findAll(Limit.of(7))).hasSize(7);
    assertThat(repository.findFirstByKind("share")).get().extracting(Event::kind).isEqualTo("share");
    assertThat(repository.findOneById(42)).get().extracting(Event::name).isEqualTo("event-42");
    assertThat(repository.findOneById(4242)).isEmpty();
    assertThatThrownBy(() -> repository.findByKindNot("click"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("EventRepository.findByKindNot(String) returns one row, but more than one matches");
  }

  @Test
  void aStreamReadsAsItIsConsumed() {
    try (Stream<Event> rows = repository.streamByKind("view")) {
      assertThat(rows.map(Event::id)).hasSize(ROWS / 4).allSatisfy(id -> assertThat(id % 4).isEqualTo(1));
    }
    try (Stream<Event> all = repository.streamAll()) {
      assertThat(all.limit(3)).hasSize(3);
    }
  }

  @Test
  void existsReadsWhetherARowMatches() {
    assertThat(repository.existsByKind("view")).isTrue();
    assertThat(repository.existsByKind("none")).isFalse();
  }

  @Test
  void aPinnedSnapshotReadsThatSnapshot() {
    List<Long> snapshots = events.snapshotIds();

    assertThat(repository.findByKindNotNull()).hasSize(ROWS / 4).as("the first of four appends, tagged 'first'");
    assertThat(repository.findByIdGreaterThanEqual(0, TableSnapshot.id(snapshots.get(1)))).hasSize(ROWS / 2);
    long secondAt = events.table().snapshot(snapshots.get(1)).timestampMillis();
    assertThat(repository.findByIdGreaterThanEqual(0, TableSnapshot.asOf(Instant.ofEpochMilli(secondAt))))
        .hasSize(ROWS / 2);
    assertThat(repository.findByIdGreaterThanEqual(0, TableSnapshot.current())).hasSize(ROWS);
  }

  @Test
  void aWindowPagesThroughTheSnapshotItStartedOnWhileCommitsLand() {
    TableIdentifier identifier = TableIdentifier.of("repositories", "scrolled");
    EmbeddedTable table = Events.create(catalog, identifier, 30, 2);
    ScrolledRepository scrolled = factory.getRepository(ScrolledRepository.class);
    List<Long> ids = new ArrayList<>();
    IcebergScrollPosition position = IcebergScrollPosition.initial();
    int pages = 0;
    Window<Scrolled> window;
    do {
      window = scrolled.findAll(position, Limit.of(7));
      window.forEach(row -> ids.add(row.id()));
      if (window.hasNext()) {
        position = IcebergScrollPosition.fromToken(((IcebergScrollPosition) window.positionAt(window.size() - 1))
            .toToken());
      }
      // a commit lands between pages: its rows are not in the scroll
      table.appendRows(FileFormat.AVRO, List.of(Events.row(table, 1000 + pages)));
      pages++;
    }
    while (window.hasNext());

    assertThat(pages).isEqualTo(5);
    assertThat(ids).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 30).boxed().toList())
        .doesNotHaveDuplicates();
  }

  @Test
  void aDerivedWindowPagesThroughTheRowsThatMatch() {
    List<Long> ids = new ArrayList<>();
    IcebergScrollPosition position = IcebergScrollPosition.initial();
    Window<Event> window;
    do {
      window = repository.findByKindNot("view", position, Limit.of(10));
      window.forEach(row -> ids.add(row.id()));
      if (!window.isEmpty()) {
        position = (IcebergScrollPosition) window.positionAt(window.size() - 1);
      }
    }
    while (window.hasNext());

    assertThat(ids).hasSize(ROWS - ROWS / 4).doesNotHaveDuplicates().allSatisfy(id -> assertThat(id % 4)
        .isNotEqualTo(1));
  }

  @Test
  void aWindowWithoutALimitIsRefused() {
    assertThatThrownBy(() -> repository.findByKindIs("view", IcebergScrollPosition.initial()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a window needs a limit");
    assertThatThrownBy(() -> repository.findAll(IcebergScrollPosition.initial(), Limit.unlimited()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a window needs a limit");
  }

  @Test
  void startingWithOnAColumnThatIsNoStringIsRefusedNamingIt() {
    assertThatThrownBy(() -> repository.findByIdStartingWith("1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("EventRepository.findByIdStartingWith(String) filters column 'id' of type long with "
            + "StartingWith");
  }

  @Test
  void aPositionWhoseSnapshotExpiredFailsClearly() {
    TableIdentifier identifier = TableIdentifier.of("repositories", "expiring");
    EmbeddedTable table = Events.create(catalog, identifier, 12, 2);
    ExpiringRepository expiring = factory.getRepository(ExpiringRepository.class);
    Window<Expiring> first = expiring.findAll(IcebergScrollPosition.initial(), Limit.of(5));
    IcebergScrollPosition position = (IcebergScrollPosition) first.positionAt(4);
    table.appendRows(FileFormat.AVRO, List.of(Events.row(table, 99)));
    table.table().expireSnapshots().expireSnapshotId(position.snapshotId()).cleanExpiredFiles(false).commit();

    assertThatThrownBy(() -> expiring.findAll(position, Limit.of(5)))
        .isInstanceOf(ExpiredScrollPositionException.class)
        .hasMessageContaining("snapshot " + position.snapshotId() + " of repositories.expiring")
        .hasMessageContaining("IcebergScrollPosition.initial()");
  }

  @Test
  void aCountTrustsThePlansRecordCountsWhenTheyAreExact() {
    // data files of metadata alone: a count that read one would fail
    Schema schema = new Schema(Types.NestedField.required(1, "id", Types.LongType.get()),
        Types.NestedField.optional(2, "kind", Types.StringType.get()));
    TableIdentifier identifier = TableIdentifier.of("repositories", "counted");
    EmbeddedTable table = catalog.createTable(identifier, schema, PartitionSpec.builderFor(schema).identity("kind")
        .build(), 2);
    table.appendDataFiles(3, "kind=click");
    table.appendDataFiles(2, "kind=view");
    CountedRepository counted = factory.getRepository(CountedRepository.class);

    assertThat(counted.count()).isEqualTo(1 + 2 + 3 + 1 + 2);
    assertThat(counted.countByKind("click")).as("a filter on the partition leaves every residual true")
        .isEqualTo(1 + 2 + 3);
  }

  @Test
  void aCountReadsWhenAResidualIsNotTrue() {
    // every file holds every kind: the plan's record counts would say 60
    assertThat(repository.countByKind("click")).isEqualTo(ROWS / 4);
  }

  @Test
  void aCountReadsWhenTheTaskHasDeletes() throws Exception {
    TableIdentifier identifier = TableIdentifier.of("repositories", "deleted");
    EmbeddedTable table = Events.create(catalog, identifier, 20, 2);
    DataFile file;
    try (CloseableIterable<FileScanTask> tasks = table.table().newScan().planFiles()) {
      file = tasks.iterator().next().file();
    }
    table.addDeletes(table.writePositionDeletes(FileFormat.AVRO, file, 0, 1, 2));
    DeletedRepository deleted = factory.getRepository(DeletedRepository.class);

    assertThat(deleted.count()).isEqualTo(20 - 3);
  }

  @Test
  void aCountReadsWhenTheTablesReadsAreRestricted() {
    TableIdentifier identifier = TableIdentifier.of("repositories", "restricted");
    Events.create(catalog, identifier, 20, 2);
    catalog.readRestrictions(identifier, RestrictionPolicy.builder()
        .rowFilter(Expressions.notEqual("kind", "buy")).build());
    RestrictedRepository restricted = factory.getRepository(RestrictedRepository.class);

    assertThat(restricted.count()).as("the row filter's rows are not counted").isEqualTo(20 - 5);
  }

  @IcebergTable("repositories.scrolled")
  record Scrolled(long id, String kind) {
  }

  interface ScrolledRepository extends IcebergRepository<Scrolled> {
  }

  @IcebergTable("repositories.expiring")
  record Expiring(long id) {
  }

  interface ExpiringRepository extends IcebergRepository<Expiring> {
  }

  @IcebergTable("repositories.counted")
  record Counted(long id, String kind) {
  }

  interface CountedRepository extends IcebergRepository<Counted> {
    long countByKind(String kind);
  }

  @IcebergTable("repositories.deleted")
  record Deleted(long id) {
  }

  interface DeletedRepository extends IcebergRepository<Deleted> {
  }

  @IcebergTable("repositories.restricted")
  record Restricted(long id, String kind) {
  }

  interface RestrictedRepository extends IcebergRepository<Restricted> {
  }
}
