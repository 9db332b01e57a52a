package io.icebergscan.planning.iceberg;

import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import io.icebergscan.planning.Latches;
import io.icebergscan.planning.model.StorageCredential;
import org.apache.iceberg.exceptions.ForbiddenException;
import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The plan's FileIO on its own: which settings count as a credential's expiry, and when the credentials are
 * loaded again (once, near the earliest expiry, by one caller for all, and not at the cost of reads while the
 * credentials still hold). End to end, with the catalog vending them: {@link VendedCredentialsTests}.
 */
class PlanFileIOTest {

  private static final long EXPIRY = Instant.parse("2026-09-01T12:00:00Z").toEpochMilli();
  private static final Map<String, String> BASE = Map.of("io-impl", RecordingFileIO.class.getName(),
      RecordingFileIO.ACCESS_KEY, "base");

  private static final String PLAN = "a test plan";

  private final String root = "memory://plan-file-io-test/" + UUID.randomUUID();
  private final String file = this.root + "/data/a.avro";

  PlanFileIOTest() {
    new InMemoryFileIO().addFile(this.file, "rows".getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void aPlanThatIsNeverReadOpensNoFileIO() {
    String marker = UUID.randomUUID().toString();
    Map<String, String> properties = new java.util.HashMap<>(BASE);
    properties.put("test.marker", marker);
    try (PlanFileIO io = new PlanFileIO(PLAN, properties, List.of(credential(this.root, RecordingFileIO.ACCESS_KEY,
        "scoped")), null, new TestClock(EXPIRY))) {
      assertThat(RecordingFileIO.initializedWith("test.marker", marker)).isZero();
      String elsewhere = "memory://elsewhere/" + marker;
      new InMemoryFileIO().addFile(elsewhere, "rows".getBytes(StandardCharsets.UTF_8));
      io.newInputFile(elsewhere);
      assertThat(RecordingFileIO.initializedWith("test.marker", marker)).as("the one without credentials").isOne();
      io.newInputFile(this.file);
      io.newInputFile(this.file);
      assertThat(RecordingFileIO.initializedWith("test.marker", marker)).as("and the credential's, once").isEqualTo(2);
    }
  }

  /**
   * As an engine ships a scan's FileIO to its executors: the copy has the credentials in force and loads FileIOs of
   * its own with them; it refreshes nothing (the catalog calls stay with the planner); a closed one stays closed.
   */
  @Test
  void aSerializedCopyOpensWithTheCredentialsInForceAndRefreshesNothing() throws Exception {
    String marker = UUID.randomUUID().toString();
    Map<String, String> properties = new java.util.HashMap<>(BASE);
    properties.put("test.marker", marker);
    List<StorageCredential> credentials = List.of(new StorageCredential(this.root, Map.of(
        RecordingFileIO.ACCESS_KEY, "scoped", "s3.session-token-expires-at-ms", Long.toString(EXPIRY))));
    AtomicInteger refreshes = new AtomicInteger();
    try (PlanFileIO io = new PlanFileIO(PLAN, properties, credentials, () -> {
      refreshes.incrementAndGet();
      return credentials;
    }, new TestClock(EXPIRY))) {
      PlanFileIO copy = copy(io);
      assertThat(copy.credentials()).isEqualTo(credentials);
      assertThat(copy.properties()).isEqualTo(io.properties());
      assertThat(copy.newInputFile(this.file).exists()).isTrue();
      assertThat(RecordingFileIO.initializedWith("test.marker", marker)).as("the copy's own, loaded as it opens")
          .isOne();
      assertThat(refreshes).as("past the expiry, and still no refresh").hasValue(0);
      io.close();
      assertThatThrownBy(() -> copy(io).newInputFile(this.file)).isInstanceOf(IllegalStateException.class)
          .hasMessageContaining(PLAN);
      copy.close();
    }
  }

  private static PlanFileIO copy(PlanFileIO io) throws Exception {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(io);
    }
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      return (PlanFileIO) in.readObject();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = { "s3.session-token-expires-at-ms",
      "adls.sas-token-expires-at-ms.account.dfs.core.windows.net", "gcs.oauth2.token-expires-at" })
  void theExpiryKeysOfIcebergsFileIOsAreRead(String key) {
    // S3FileIOProperties.SESSION_TOKEN_EXPIRES_AT_MS, AzureProperties.ADLS_SAS_TOKEN_EXPIRES_AT_MS_PREFIX + account,
    // GCPProperties.GCS_OAUTH2_TOKEN_EXPIRES_AT: epoch milliseconds all three
    assertThat(PlanFileIO.expiresAtMillis(credential("s3://bucket", key, " 1756728000000 ")))
        .isEqualTo(OptionalLong.of(1_756_728_000_000L));
  }

  @Test
  void theEarliestOfSeveralExpiriesCounts() {
    StorageCredential credential = new StorageCredential("abfss://container@account.dfs.core.windows.net",
        Map.of("adls.sas-token-expires-at-ms.one.dfs.core.windows.net", "2000",
            "adls.sas-token-expires-at-ms.two.dfs.core.windows.net", "1000", "gcs.oauth2.token-expires-at", "3000"));
    assertThat(PlanFileIO.expiresAtMillis(credential)).isEqualTo(OptionalLong.of(1000));
  }

  @ParameterizedTest
  @ValueSource(strings = { "s3.session-token", "s3.session-token-expiration", "gcs.oauth2.token-expires-at-iso",
      "expiry" })
  void otherSettingsAreNoExpiry(String key) {
    assertThat(PlanFileIO.expiresAtMillis(credential("s3://bucket", key, "1000"))).isEmpty();
  }

  @Test
  void anExpiryThatIsNoNumberOfMillisecondsIsNone() {
    assertThat(PlanFileIO.expiresAtMillis(credential("gs://bucket", "gcs.oauth2.token-expires-at",
        "2026-09-01T12:00:00Z"))).isEmpty();
  }

  @Test
  void theCredentialsAreLoadedAgainOnceWhenTheEarliestExpiryIsWithinTheMargin() {
    TestClock clock = new TestClock(EXPIRY - PlanFileIO.REFRESH_MARGIN.toMillis() - 1);
    AtomicInteger refreshes = new AtomicInteger();
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(expiring("first", EXPIRY)), () -> {
      refreshes.incrementAndGet();
      return List.of(expiring("second", EXPIRY + Duration.ofHours(1).toMillis()));
    }, clock)) {
      io.newInputFile(this.file);
      assertThat(refreshes).as("a millisecond before the margin").hasValue(0);

      clock.advance(Duration.ofMillis(1));
      io.newInputFile(this.file);
      io.newInputFile(this.file, 4);
      assertThat(refreshes).hasValue(1);
      assertThat(accessKeys()).containsExactly("first", "second", "second");
      assertThat(io.credentials()).extracting(credential -> credential.config().get(RecordingFileIO.ACCESS_KEY))
          .containsExactly("second");
    }
  }

  @Test
  void concurrentOpensPastTheMarginWaitForOneRefresh() throws Exception {
    int threads = 4;
    CountDownLatch refreshing = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger refreshes = new AtomicInteger();
    Supplier<List<StorageCredential>> refresh = () -> {
      refreshes.incrementAndGet();
      refreshing.countDown();
      Latches.await(release, "released");
      return List.of(expiring("second", EXPIRY + Duration.ofHours(1).toMillis()));
    };
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(expiring("first", EXPIRY)), refresh,
        new TestClock(EXPIRY))) {
      List<Thread> openers = new ArrayList<>();
      List<Future<?>> opens = new ArrayList<>();
      opens.add(pool.submit(() -> io.newInputFile(this.file)));
      assertThat(refreshing.await(10, TimeUnit.SECONDS)).as("the first open refreshes").isTrue();
      for (int i = 1; i < threads; i++) {
        opens.add(pool.submit(() -> {
          synchronized (openers) {
            openers.add(Thread.currentThread());
          }
          return io.newInputFile(this.file);
        }));
      }
      // the others wait for the refresh under way, then take its credentials rather than refresh again
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        synchronized (openers) {
          return openers.size() == threads - 1
              && openers.stream().allMatch(thread -> thread.getState() == Thread.State.BLOCKED);
        }
      });
      release.countDown();
      for (Future<?> open : opens) {
        open.get(10, TimeUnit.SECONDS);
      }
      assertThat(refreshes).hasValue(1);
      assertThat(accessKeys()).hasSize(threads).containsOnly("second");
    }
    finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aRefreshThatFailsWhileTheCredentialsStillHoldKeepsThem() {
    TestClock clock = new TestClock(EXPIRY - Duration.ofMinutes(1).toMillis());
    AtomicInteger refreshes = new AtomicInteger();
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(expiring("first", EXPIRY)), refusing(refreshes), clock)) {
      // the credentials hold for another minute: the read goes on with them, as Iceberg's own S3 refresh does
      io.newInputFile(this.file);
      assertThat(refreshes).hasValue(1);
      assertThat(accessKeys()).containsExactly("first");
      io.newInputFile(this.file);
      assertThat(refreshes).as("not again for every file").hasValue(1);
      clock.advance(PlanFileIO.REFRESH_INTERVAL);
      io.newInputFile(this.file);
      assertThat(refreshes).as("again after the interval").hasValue(2);

      clock.advance(Duration.ofMinutes(1));
      assertThatThrownBy(() -> io.newInputFile(this.file)).as("expired, and the refresh failing")
          .isInstanceOf(ForbiddenException.class).hasMessage("the catalog vends no more");
      assertThat(refreshes).hasValue(3);
      assertThatThrownBy(() -> io.newInputFile(this.file)).as("expired: every open tries")
          .isInstanceOf(ForbiddenException.class);
      assertThat(refreshes).hasValue(4);
    }
  }

  @Test
  void withoutARefreshExpiringCredentialsAreUsedAsTheyAre() {
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(expiring("first", EXPIRY)), null,
        new TestClock(EXPIRY + 1))) {
      io.newInputFile(this.file);
      assertThat(accessKeys()).containsExactly("first");
    }
  }

  @Test
  void aFileOpenedAfterCloseIsRefusedNamingThePlanThoughItsFileIOIsLoaded() {
    String elsewhere = "memory://elsewhere/" + UUID.randomUUID();
    new InMemoryFileIO().addFile(elsewhere, "rows".getBytes(StandardCharsets.UTF_8));
    PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(credential(this.root, RecordingFileIO.ACCESS_KEY, "scoped")),
        null, new TestClock(EXPIRY));
    io.newInputFile(this.file);
    io.newInputFile(elsewhere);
    io.close();
    assertThatThrownBy(() -> io.newInputFile(this.file)).as("under the credential")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(PLAN).hasMessageContaining("closed");
    assertThatThrownBy(() -> io.newInputFile(elsewhere, 4)).as("under none")
        .isInstanceOf(IllegalStateException.class).hasMessageContaining(PLAN).hasMessageContaining("closed");
  }

  @ParameterizedTest
  @ValueSource(booleans = { true, false })
  void aCloseWhileAFileIsBeingOpenedLoadsNoFileIOAfterIt(boolean underTheCredential) throws Exception {
    String marker = UUID.randomUUID().toString();
    Map<String, String> properties = new java.util.HashMap<>(BASE);
    properties.put("test.marker", marker);
    String location = underTheCredential ? this.file : "memory://elsewhere/" + marker;
    new InMemoryFileIO().addFile(location, "rows".getBytes(StandardCharsets.UTF_8));
    CountDownLatch opening = new CountDownLatch(1);
    CountDownLatch closed = new CountDownLatch(1);
    TestClock clock = new TestClock(EXPIRY);
    PlanFileIO io = new PlanFileIO(PLAN, properties, List.of(credential(this.root, RecordingFileIO.ACCESS_KEY,
        "scoped")), null, clock);
    // the open reads the clock once it has found the plan open, before it loads a FileIO: hold it there
    clock.onRead(() -> {
      opening.countDown();
      Latches.await(closed, "closed");
    });
    ExecutorService pool = Executors.newSingleThreadExecutor();
    try {
      Future<?> open = pool.submit(() -> io.newInputFile(location));
      assertThat(opening.await(10, TimeUnit.SECONDS)).as("the open is under way").isTrue();
      io.close();
      closed.countDown();
      assertThatThrownBy(() -> open.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
          .cause().isInstanceOf(IllegalStateException.class).hasMessageContaining(PLAN);
      assertThat(RecordingFileIO.initializedWith("test.marker", marker)).as("no FileIO loaded after close").isZero();
    }
    finally {
      pool.shutdownNow();
    }
  }

  @Test
  void aRefreshThatFailsFromTheMillisecondTheCredentialsExpireFailsTheOpen() {
    TestClock clock = new TestClock(EXPIRY - 1);
    AtomicInteger refreshes = new AtomicInteger();
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(expiring("first", EXPIRY)), refusing(refreshes), clock)) {
      io.newInputFile(this.file);
      assertThat(accessKeys()).as("a millisecond before the expiry they still hold").containsExactly("first");
      clock.set(EXPIRY);
      assertThatThrownBy(() -> io.newInputFile(this.file)).as("at the expiry they no longer do")
          .isInstanceOf(ForbiddenException.class).hasMessage("the catalog vends no more");
      assertThat(refreshes).hasValue(2);
      assertThat(accessKeys()).containsExactly("first");
    }
  }

  @Test
  void aFileDeletedThroughThePlansFileIOIsGone() {
    String doomed = this.root + "/data/doomed.avro";
    InMemoryFileIO files = new InMemoryFileIO();
    files.addFile(doomed, "rows".getBytes(StandardCharsets.UTF_8));
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(credential(this.root, RecordingFileIO.ACCESS_KEY,
        "scoped")), null, new TestClock(EXPIRY))) {
      io.deleteFile(doomed);
      assertThat(files.fileExists(doomed)).isFalse();
      assertThat(files.fileExists(this.file)).isTrue();
    }
  }

  @Test
  void itsPropertiesAreThoseItWasMadeWith() {
    try (PlanFileIO io = new PlanFileIO(PLAN, BASE, List.of(), null, new TestClock(EXPIRY))) {
      assertThat(io.properties()).isEqualTo(BASE);
    }
  }

  private List<String> accessKeys() {
    return RecordingFileIO.openedUnder(this.root).stream().map(RecordingFileIO.Opened::accessKey).toList();
  }

  private StorageCredential expiring(String accessKey, long expiresAtMillis) {
    return new StorageCredential(this.root, Map.of(RecordingFileIO.ACCESS_KEY, accessKey,
        "s3.session-token-expires-at-ms", Long.toString(expiresAtMillis)));
  }

  private static StorageCredential credential(String prefix, String key, String value) {
    return new StorageCredential(prefix, Map.of(key, value));
  }

  /** A clock that moves only when a test moves it. */
  /** A refresh that counts its calls and is refused, as a catalog that vends no more credentials refuses it. */
  private static Supplier<List<StorageCredential>> refusing(AtomicInteger refreshes) {
    return () -> {
      refreshes.incrementAndGet();
      throw new ForbiddenException("the catalog vends no more");
    };
  }

  static final class TestClock extends Clock {

    private final AtomicLong millis;
    private volatile Runnable onRead = () -> {
    };

    TestClock(long millis) {
      this.millis = new AtomicLong(millis);
    }

    void advance(Duration by) {
      this.millis.addAndGet(by.toMillis());
    }

    void set(long millis) {
      this.millis.set(millis);
    }

    /** Runs {@code hook} on the reading thread each time the clock is read, before it answers. */
    void onRead(Runnable hook) {
      this.onRead = hook;
    }

    @Override
    public long millis() {
      this.onRead.run();
      return this.millis.get();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      throw new UnsupportedOperationException("a test clock has one zone");
    }
  }
}
