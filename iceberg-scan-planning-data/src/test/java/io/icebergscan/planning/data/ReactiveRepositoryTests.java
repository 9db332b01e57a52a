package io.icebergscan.planning.data;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.auth.Callers;
import io.icebergscan.planning.auth.CatalogCredentials;
import io.icebergscan.planning.data.Events.Event;
import io.icebergscan.planning.data.support.IcebergRepositoryFactory;
import io.icebergscan.planning.data.support.ReactiveIcebergRepositoryFactory;
import io.icebergscan.planning.exceptions.MissingCallerException;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog;
import io.icebergscan.planning.test.EmbeddedIcebergCatalog.RecordedRequest;
import io.icebergscan.planning.test.RestrictionPolicy;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.expressions.Expressions;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.data.domain.Limit;
import org.springframework.data.domain.Window;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;
import reactor.util.context.ContextView;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactive repositories, through the embedded catalog on real files: derived queries return the rows the blocking
 * repository returns, as a {@code Flux}; counts, existence, single rows and windows come as a {@code Mono}; a
 * {@code take(n)} or a cancel ends the read with no file left open; a subscription on a non-blocking thread never
 * loads or plans there; and the table is loaded as the caller found in the subscriber's context.
 */
class ReactiveRepositoryTests {

  static final TableIdentifier EVENTS = TableIdentifier.of("repositories", "events");
  static final TableIdentifier LARGE = TableIdentifier.of("repositories", "large");
  static final int ROWS = 60;
  /** Rows per file of the large table: more than a task's buffer holds, so a reader waits with its file open. */
  static final int LARGE_ROWS = 4 * 3000;
  static final Duration WAIT = Duration.ofSeconds(30);

  interface KindAndDay {
    String getKind();

    LocalDate getDay();
  }

  record DaySummary(long id, LocalDate day) {
  }

  interface ReactiveEventRepository extends ReactiveIcebergRepository<Event> {

    Flux<Event> findByKind(String kind);

    Flux<KindAndDay> findByKindNot(String kind);

    <P> Flux<P> findByAddressCity(String city, Class<P> type);

    Flux<Event> findTop5ByKind(String kind);

    Mono<Event> findOneById(long id);

    Mono<Event> findByKindIs(String kind);

    Mono<Long> countByKind(String kind);

    Mono<Boolean> existsByKind(String kind);

    Mono<Window<Event>> findByKindNot(String kind, IcebergScrollPosition position, Limit limit);
  }

  interface EventRepository extends IcebergRepository<Event> {

    List<Event> findByKind(String kind);

    List<KindAndDay> findByKindNot(String kind);

    <P> List<P> findByAddressCity(String city, Class<P> type);
  }

  @IcebergTable("repositories.large")
  record Large(long id, String kind) {
  }

  interface LargeRepository extends ReactiveIcebergRepository<Large> {
    Flux<Large> findByKindNot(String kind);
  }

  static EmbeddedIcebergCatalog catalog;
  static ScanPlanner planner;
  static IcebergScanPlanner iceberg;
  static AtomicInteger openStreams;
  static ReactiveEventRepository reactive;
  static EventRepository blocking;

  @BeforeAll
  static void start() {
    catalog = EmbeddedIcebergCatalog.create().start().recordRequests(true);
    Events.create(catalog, EVENTS, ROWS, 2);
    Events.create(catalog, LARGE, LARGE_ROWS, 2);
    planner = ScanPlanner.builder().uri(catalog.uri()).maxConcurrency(4).build();
    Map.Entry<Map<String, String>, AtomicInteger> scope = OpenStreamsFileIO.newScope();
    openStreams = scope.getValue();
    iceberg = IcebergScanPlanner.builder(planner).readConcurrency(2).fileIoProperties(scope.getKey()).build();
    reactive = new ReactiveIcebergRepositoryFactory(iceberg).getRepository(ReactiveEventRepository.class);
    blocking = new IcebergRepositoryFactory(iceberg).getRepository(EventRepository.class);
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
    catalog.close();
  }

  private static <T> @Nullable T block(Mono<T> mono) {
    return mono.block(WAIT);
  }

  private static <T> List<T> all(Flux<T> flux) {
    List<T> rows = flux.collectList().block(WAIT);
    assertThat(rows).isNotNull();
    return rows;
  }

  @Test
  void aDerivedFluxReadsTheRowsTheBlockingQueryReads() {
    List<Event> clicks = all(reactive.findByKind("click"));
    assertThat(clicks).hasSize(ROWS / 4).containsExactlyInAnyOrderElementsOf(blocking.findByKind("click"));

    assertThat(all(reactive.findTop5ByKind("view"))).hasSize(5)
        .allSatisfy(event -> assertThat(event.kind()).isEqualTo("view"));
    assertThat(all(reactive.findAll(Limit.of(7)))).hasSize(7);
    assertThat(all(reactive.findAll())).hasSize(ROWS);
  }

  @Test
  void projectionsSelectTheirColumnsAsTheBlockingOnesDo() {
    catalog.clearRecordedRequests();
    List<KindAndDay> projected = all(reactive.findByKindNot("buy"));
    assertThat(selected()).containsExactlyInAnyOrder("kind", "day");
    assertThat(projected).extracting(row -> row.getKind() + "/" + row.getDay())
        .containsExactlyInAnyOrderElementsOf(blocking.findByKindNot("buy").stream()
            .map(row -> row.getKind() + "/" + row.getDay()).toList());

    catalog.clearRecordedRequests();
    List<DaySummary> summaries = all(reactive.findByAddressCity("Braga", DaySummary.class));
    assertThat(selected()).containsExactlyInAnyOrder("id", "day");
    assertThat(summaries).isNotEmpty()
        .containsExactlyInAnyOrderElementsOf(blocking.findByAddressCity("Braga", DaySummary.class));
  }

  @Test
  void countsExistenceAndSingleRowsComeAsAMono() {
    assertThat(block(reactive.count())).as("the plan's record counts, exact").isEqualTo(ROWS);
    assertThat(block(reactive.countByKind("click"))).as("read: every file holds every kind").isEqualTo(ROWS / 4);
    assertThat(block(reactive.existsByKind("view"))).isTrue();
    assertThat(block(reactive.existsByKind("none"))).isFalse();
    assertThat(block(reactive.findOneById(42))).extracting(Event::name).isEqualTo("event-42");
    StepVerifier.create(reactive.findOneById(4242)).expectComplete().verify(WAIT);
    StepVerifier.create(reactive.findByKindIs("click")).expectErrorSatisfies(error -> assertThat(error)
        .isInstanceOf(IllegalStateException.class).hasMessageContaining("findByKindIs(String) returns one row, but "
            + "more than one matches")).verify(WAIT);
  }

  @Test
  void windowsPageThroughTheRowsThatMatch() {
    List<Long> ids = new ArrayList<>();
    IcebergScrollPosition position = IcebergScrollPosition.initial();
    Window<Event> window;
    int pages = 0;
    do {
      window = block(reactive.findByKindNot("view", position, Limit.of(10)));
      assertThat(window).isNotNull();
      window.forEach(row -> ids.add(row.id()));
      if (!window.isEmpty()) {
        position = (IcebergScrollPosition) window.positionAt(window.size() - 1);
      }
      pages++;
    }
    while (window.hasNext());
    assertThat(pages).isEqualTo(5);
    assertThat(ids).hasSize(ROWS - ROWS / 4).doesNotHaveDuplicates()
        .allSatisfy(id -> assertThat(id % 4).isNotEqualTo(1));

    List<Long> all = new ArrayList<>();
    Window<Event> first = block(reactive.findAll(IcebergScrollPosition.initial(), Limit.of(40)));
    assertThat(first).isNotNull().hasSize(40);
    first.forEach(row -> all.add(row.id()));
    Window<Event> second = block(reactive.findAll((IcebergScrollPosition) first.positionAt(39), Limit.of(40)));
    assertThat(second).isNotNull().hasSize(ROWS - 40);
    assertThat(second.hasNext()).isFalse();
    second.forEach(row -> all.add(row.id()));
    assertThat(all).hasSize(ROWS).doesNotHaveDuplicates();
  }

  @Test
  void aTakeOrACancelEndsTheReadWithNoFileLeftOpen() {
    LargeRepository large = new ReactiveIcebergRepositoryFactory(iceberg).getRepository(LargeRepository.class);

    assertThat(all(large.findAll().take(3))).hasSize(3);
    await().atMost(WAIT).untilAsserted(() -> assertThat(openStreams.get()).as("streams open").isZero());

    StepVerifier.create(large.findByKindNot("view"), 0).thenRequest(5).expectNextCount(5).thenCancel()
        .verify(WAIT);
    await().atMost(WAIT).untilAsserted(() -> assertThat(openStreams.get()).as("streams open").isZero());

    assertThat(all(large.findAll(Limit.of(2)))).hasSize(2);
    await().atMost(WAIT).untilAsserted(() -> assertThat(openStreams.get()).as("streams open").isZero());
  }

  @Test
  void aSubscriptionOnANonBlockingThreadLoadsAndPlansOnTheReadingExecutor() {
    // a load or a plan on a parallel thread is refused there (as on a WebFlux event loop): each would fail
    assertThat(onParallel(() -> reactive.findByKind("share").collectList())).hasSize(ROWS / 4);
    assertThat(onParallel(reactive::count)).isEqualTo(ROWS);
    assertThat(onParallel(() -> reactive.countByKind("buy"))).isEqualTo(ROWS / 4);
    assertThat(onParallel(() -> reactive.existsByKind("buy"))).isTrue();
    assertThat(onParallel(() -> reactive.findOneById(7))).extracting(Event::id).isEqualTo(7L);
    assertThat(onParallel(() -> reactive.findAll(IcebergScrollPosition.initial(), Limit.of(3)))).hasSize(3);
    assertThat(onParallel(() -> reactive.findByKindNot("view", IcebergScrollPosition.initial(), Limit.of(3))))
        .hasSize(3);
  }

  /** What {@code call} emits, the repository called and subscribed to on a parallel (non-blocking) thread. */
  private static <T> @Nullable T onParallel(Supplier<Mono<T>> call) {
    return Mono.defer(() -> {
      assertThat(Schedulers.isInNonBlockingThread()).isTrue();
      return call.get();
    }).subscribeOn(Schedulers.parallel()).block(WAIT);
  }

  @Test
  void theTableIsLoadedPlannedAndReadAsTheCallerInTheSubscribersContext() {
    TableIdentifier identifier = TableIdentifier.of("repositories", "governed");
    Events.create(catalog, identifier, 20, 2);
    // alice sees the clicks alone; bob every row
    catalog.readRestrictions(identifier, RestrictionPolicy.builder().rowFilter(Expressions.equal("kind", "click"))
        .build());
    catalog.readRestrictions(identifier, "bob-token", RestrictionPolicy.json("{}"));
    CatalogCredentials alice = CatalogCredentials.bearer("alice-token");
    CatalogCredentials bob = CatalogCredentials.bearer("bob-token");
    Callers fromContext = new Callers() {
      @Override
      public @Nullable CatalogCredentials current() {
        return null;
      }

      @Override
      public Mono<CatalogCredentials> current(ContextView context) {
        return Mono.justOrEmpty(context.getOrEmpty(CatalogCredentials.class));
      }
    };
    try (ScanPlanner callersPlanner = ScanPlanner.builder().uri(catalog.uri()).callers(fromContext).build();
        IcebergScanPlanner callers = IcebergScanPlanner.builder(callersPlanner).readConcurrency(2).build()) {
      GovernedRepository governed = new ReactiveIcebergRepositoryFactory(callers)
          .getRepository(GovernedRepository.class);

      catalog.clearRecordedRequests();
      assertThat(onParallel(() -> governed.findByIdGreaterThanEqual(0).collectList()
          .contextWrite(context -> context.put(CatalogCredentials.class, alice))))
          .isNotNull().extracting(Governed::kind).hasSize(5).containsOnly("click");
      assertThat(onParallel(() -> governed.count().contextWrite(context -> context.put(CatalogCredentials.class,
          alice)))).as("read, the reads being restricted").isEqualTo(5);
      assertThat(catalog.recordedRequests()).extracting(RecordedRequest::authorization)
          .containsOnly("Bearer alice-token");

      catalog.clearRecordedRequests();
      assertThat(onParallel(() -> governed.count().contextWrite(context -> context.put(CatalogCredentials.class,
          bob)))).isEqualTo(20);
      assertThat(onParallel(() -> governed.findAll(IcebergScrollPosition.initial(), Limit.of(8))
          .contextWrite(context -> context.put(CatalogCredentials.class, bob)))).hasSize(8);
      // the count's and the window's plans report in the background, as the caller too
      await().atMost(WAIT).until(() -> catalog.recordedRequests().stream()
          .filter(request -> request.path().endsWith("/metrics")).count() == 2);
      assertThat(catalog.recordedRequests()).extracting(RecordedRequest::authorization)
          .containsOnly("Bearer bob-token");

      catalog.clearRecordedRequests();
      StepVerifier.create(governed.count()).expectError(MissingCallerException.class).verify(WAIT);
      assertThat(catalog.recordedRequests()).isEmpty();
    }
  }

  @IcebergTable("repositories.governed")
  record Governed(long id, String kind) {
  }

  interface GovernedRepository extends ReactiveIcebergRepository<Governed> {
    Flux<Governed> findByIdGreaterThanEqual(long id);
  }

  /** The columns the one plan request since the last clear selected. */
  private static List<String> selected() {
    return RepositoryReadsTests.selected(catalog);
  }
}
