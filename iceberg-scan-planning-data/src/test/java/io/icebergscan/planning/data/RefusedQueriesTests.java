package io.icebergscan.planning.data;

import java.util.List;
import java.util.stream.Stream;

import io.icebergscan.planning.ScanPlanner;
import io.icebergscan.planning.data.Events.Event;
import io.icebergscan.planning.data.support.IcebergRepositoryFactory;
import io.icebergscan.planning.data.support.ReactiveIcebergRepositoryFactory;
import io.icebergscan.planning.iceberg.IcebergScanPlanner;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.data.domain.Page;
import org.springframework.data.domain.Pageable;
import org.springframework.data.domain.Sort;
import org.springframework.data.repository.query.QueryCreationException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What Iceberg cannot evaluate on the server is refused when the repository is made, naming the method and the
 * keyword; nothing is sent to a catalog (the planner points at none).
 */
class RefusedQueriesTests {

  interface Like extends IcebergRepository<Event> {
    List<Event> findByKindLike(String kind);
  }

  interface NotLike extends IcebergRepository<Event> {
    List<Event> findByKindNotLike(String kind);
  }

  interface Containing extends IcebergRepository<Event> {
    List<Event> findByKindContaining(String kind);
  }

  interface NotContaining extends IcebergRepository<Event> {
    List<Event> findByKindNotContaining(String kind);
  }

  interface EndingWith extends IcebergRepository<Event> {
    List<Event> findByKindEndingWith(String kind);
  }

  interface Regex extends IcebergRepository<Event> {
    List<Event> findByKindRegex(String kind);
  }

  interface IgnoreCase extends IcebergRepository<Event> {
    List<Event> findByKindIgnoreCase(String kind);
  }

  interface AllIgnoreCase extends IcebergRepository<Event> {
    List<Event> findByKindAndNameAllIgnoreCase(String kind, String name);
  }

  interface Distinct extends IcebergRepository<Event> {
    List<Event> findDistinctByKind(String kind);
  }

  interface OrderBy extends IcebergRepository<Event> {
    List<Event> findByKindOrderByDayDesc(String kind);
  }

  interface SortParameter extends IcebergRepository<Event> {
    List<Event> findByKind(String kind, Sort sort);
  }

  interface Paged extends IcebergRepository<Event> {
    Page<Event> findByKind(String kind, Pageable pageable);
  }

  interface Delete extends IcebergRepository<Event> {
    long deleteByKind(String kind);
  }

  interface Remove extends IcebergRepository<Event> {
    List<Event> removeByKind(String kind);
  }

  interface Empty extends IcebergRepository<Event> {
    List<Event> findByAddressIsEmpty();
  }

  interface ReactiveLike extends ReactiveIcebergRepository<Event> {
    Flux<Event> findByKindLike(String kind);
  }

  interface ReactiveIgnoreCase extends ReactiveIcebergRepository<Event> {
    Mono<Long> countByKindIgnoreCase(String kind);
  }

  interface ReactiveOrderBy extends ReactiveIcebergRepository<Event> {
    Flux<Event> findByKindOrderByDayDesc(String kind);
  }

  interface ReactiveDelete extends ReactiveIcebergRepository<Event> {
    Mono<Long> deleteByKind(String kind);
  }

  interface ReactiveParameter extends ReactiveIcebergRepository<Event> {
    Flux<Event> findByKind(Mono<String> kind);
  }

  static ScanPlanner planner;
  static IcebergScanPlanner iceberg;

  @BeforeAll
  static void start() {
    // no catalog listens there: a refusal sends nothing
    planner = ScanPlanner.builder().uri("http://127.0.0.1:9/catalog").build();
    iceberg = IcebergScanPlanner.builder(planner).build();
  }

  @AfterAll
  static void stop() {
    iceberg.close();
    planner.close();
  }

  static Stream<Arguments> refused() {
    return Stream.of(
        Arguments.of(Like.class, "findByKindLike(String) uses Like"),
        Arguments.of(NotLike.class, "findByKindNotLike(String) uses NotLike"),
        Arguments.of(Containing.class, "findByKindContaining(String) uses Containing"),
        Arguments.of(NotContaining.class, "findByKindNotContaining(String) uses NotContaining"),
        Arguments.of(EndingWith.class, "findByKindEndingWith(String) uses EndingWith"),
        Arguments.of(Regex.class, "findByKindRegex(String) uses Regex"),
        Arguments.of(IgnoreCase.class, "findByKindIgnoreCase(String) uses IgnoreCase"),
        Arguments.of(AllIgnoreCase.class, "findByKindAndNameAllIgnoreCase(String, String) uses IgnoreCase"),
        Arguments.of(Distinct.class, "findDistinctByKind(String) uses Distinct"),
        Arguments.of(OrderBy.class, "findByKindOrderByDayDesc(String) uses OrderBy"),
        Arguments.of(SortParameter.class, "findByKind(String, Sort) uses Sort parameter"),
        Arguments.of(Paged.class, "findByKind(String, Pageable) uses Pageable parameter"),
        Arguments.of(Delete.class, "deleteByKind(String) uses delete"),
        Arguments.of(Remove.class, "removeByKind(String) uses delete"),
        Arguments.of(Empty.class, "findByAddressIsEmpty() uses IsEmpty"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("refused")
  void aKeywordIcebergCannotEvaluateFailsWhenTheRepositoryIsMade(Class<?> repository, String named) {
    assertThatThrownBy(() -> new IcebergRepositoryFactory(iceberg).getRepository(repository))
        .isInstanceOf(QueryCreationException.class)
        .hasMessageContaining(repository.getSimpleName() + "." + named);
  }

  static Stream<Arguments> refusedReactive() {
    return Stream.of(
        Arguments.of(ReactiveLike.class, "findByKindLike(String) uses Like"),
        Arguments.of(ReactiveIgnoreCase.class, "countByKindIgnoreCase(String) uses IgnoreCase"),
        Arguments.of(ReactiveOrderBy.class, "findByKindOrderByDayDesc(String) uses OrderBy"),
        Arguments.of(ReactiveDelete.class, "deleteByKind(String) uses delete"),
        Arguments.of(ReactiveParameter.class, "findByKind(Mono) uses Mono parameter"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("refusedReactive")
  void aReactiveRepositoryRefusesThemAlikeWhenItIsMade(Class<?> repository, String named) {
    assertThatThrownBy(() -> new ReactiveIcebergRepositoryFactory(iceberg).getRepository(repository))
        .isInstanceOf(QueryCreationException.class)
        .hasMessageContaining(repository.getSimpleName() + "." + named);
  }
}
