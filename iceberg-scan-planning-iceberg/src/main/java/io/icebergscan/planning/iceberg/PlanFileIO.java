package io.icebergscan.planning.iceberg;

import java.io.Serial;
import java.io.Serializable;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import io.icebergscan.planning.model.StorageCredential;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.jspecify.annotations.Nullable;

/**
 * The FileIO of one plan: each location is opened with the credential whose prefix is the longest that matches it,
 * as the REST spec says, over the catalog's and the table's FileIO properties; a location no credential covers is
 * opened with those properties alone. Each credential gets a FileIO of its own, loaded with Iceberg's
 * {@link CatalogUtil#loadFileIO} (the credential's settings as properties and as its storage credential), so the
 * rule holds for every FileIO implementation.
 *
 * <p>When a credential says when it expires ({@code …expires-at-ms} and {@code …expires-at} settings) and a
 * refresh is possible, the credentials are loaded again once the earliest expiry is less than the refresh margin
 * away; files opened before keep their FileIO, which stays open until the plan closes. A refresh that fails while
 * the credentials have not expired leaves them in force, and a file opened {@link #REFRESH_INTERVAL} later tries
 * again; once they have expired, every open tries, and the refresh's failure fails it.
 *
 * <p>Closing it closes every FileIO it loaded; a file opened after that is refused with an
 * {@link IllegalStateException} naming the plan, and no FileIO is loaded again.
 *
 * <p>It serializes (an engine ships a scan's FileIO to its executors) as its owner, properties and the credentials in
 * force: the copy loads FileIOs of its own as files are opened, and refreshes nothing, for the catalog calls that
 * refresh stay with the planner. A FileIO implementation that refreshes its own credentials (Iceberg's S3FileIO, given
 * the catalog's refresh endpoint in its properties) still does.
 */
final class PlanFileIO implements FileIO {

  static final String DEFAULT_FILE_IO_IMPL = "org.apache.iceberg.io.ResolvingFileIO";
  /** Refresh this long before a credential expires: enough for a file opened just before to be read. */
  static final Duration REFRESH_MARGIN = Duration.ofMinutes(5);
  /**
   * The least time between two refreshes while the credentials in force still hold: a catalog that fails to
   * refresh, or vends credentials that expire within the margin again, is not called for every file opened.
   */
  static final Duration REFRESH_INTERVAL = Duration.ofSeconds(10);

  private final String owner;
  private final String impl;
  private final Map<String, String> properties;
  /** Loaded on first use: a plan that is never read opens no FileIO. */
  private volatile @Nullable FileIO uncredentialed;
  private @Nullable Object hadoopConf;
  private boolean hadoopConfLoaded;
  private final @Nullable Supplier<List<StorageCredential>> refresh;
  private final Clock clock;
  /** Every FileIO ever loaded, by credential: closed with the plan. */
  private final Map<StorageCredential, FileIO> loaded = new ConcurrentHashMap<>();
  private volatile Credentials credentials;
  /** Set once, under this object's lock, which every load takes: nothing is loaded after close. */
  private volatile boolean closed;
  /** When the next refresh may be tried while the credentials still hold; 0 before the first. */
  private volatile long nextRefreshMillis;

  /** The credentials in force, and the earliest expiry among them. */
  private record Credentials(List<StorageCredential> all, OptionalLong expiresAtMillis) {

    static Credentials of(List<StorageCredential> credentials) {
      return new Credentials(List.copyOf(credentials), credentials.stream().map(PlanFileIO::expiresAtMillis)
          .filter(OptionalLong::isPresent).mapToLong(OptionalLong::getAsLong).min());
    }

    /** The credential of the longest prefix the location starts with, whatever their order. */
    @Nullable StorageCredential forLocation(String location) {
      return StorageCredential.forLocation(this.all, location);
    }
  }

  /** @param owner what the FileIO reads for, named when it is used after close: "plan 7 of db.events", say */
  PlanFileIO(String owner, Map<String, String> properties, List<StorageCredential> credentials,
      @Nullable Supplier<List<StorageCredential>> refresh, Clock clock) {
    this.owner = owner;
    this.properties = Map.copyOf(properties);
    this.impl = properties.getOrDefault(IcebergScanPlanner.FILE_IO_IMPL, DEFAULT_FILE_IO_IMPL);
    this.refresh = refresh;
    this.clock = clock;
    this.credentials = Credentials.of(credentials);
  }

  /** What a copy of this FileIO is made from: see the class comment. */
  private record Shipped(String owner, Map<String, String> properties, List<StorageCredential> credentials,
      boolean closed) implements Serializable {

    @Serial
    private Object readResolve() {
      PlanFileIO copy = new PlanFileIO(this.owner, this.properties, this.credentials, null, Clock.systemUTC());
      copy.closed = this.closed;
      return copy;
    }
  }

  @Serial
  private Object writeReplace() {
    return new Shipped(this.owner, this.properties, this.credentials.all(), this.closed);
  }

  @Override
  public InputFile newInputFile(String path) {
    return ioFor(path).newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return ioFor(path).newInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return ioFor(path).newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    ioFor(path).deleteFile(path);
  }

  @Override
  public Map<String, String> properties() {
    return this.properties;
  }

  /** The credentials in force now. */
  List<StorageCredential> credentials() {
    return this.credentials.all();
  }

  @Override
  public synchronized void close() {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.loaded.values().forEach(FileIO::close);
    if (this.uncredentialed != null) {
      this.uncredentialed.close();
    }
  }

  /** @throws IllegalStateException once closed */
  void checkOpen() {
    if (this.closed) {
      throw new IllegalStateException("the files of " + this.owner + " cannot be read: it is closed");
    }
  }

  private FileIO ioFor(String location) {
    checkOpen();
    refreshIfExpiring();
    StorageCredential credential = this.credentials.forLocation(location);
    if (credential == null) {
      return uncredentialed();
    }
    FileIO io = this.loaded.get(credential);
    return io != null ? io : loaded(credential);
  }

  /** A credential's FileIO, loaded under the lock {@link #close} takes, so none is loaded after it. */
  private synchronized FileIO loaded(StorageCredential credential) {
    checkOpen();
    return this.loaded.computeIfAbsent(credential, this::load);
  }

  /** Without a lock once loaded: every file of a plan without credentials asks for it, from every reading thread. */
  private FileIO uncredentialed() {
    FileIO io = this.uncredentialed;
    return io != null ? io : loadUncredentialed();
  }

  private synchronized FileIO loadUncredentialed() {
    checkOpen();
    if (this.uncredentialed == null) {
      this.uncredentialed = CatalogUtil.loadFileIO(this.impl, this.properties, hadoopConf(), List.of());
    }
    return this.uncredentialed;
  }

  private synchronized @Nullable Object hadoopConf() {
    if (!this.hadoopConfLoaded) {
      this.hadoopConf = hadoopConfiguration();
      this.hadoopConfLoaded = true;
    }
    return this.hadoopConf;
  }

  private FileIO load(StorageCredential credential) {
    Map<String, String> merged = new LinkedHashMap<>(this.properties);
    merged.putAll(credential.config());
    return CatalogUtil.loadFileIO(this.impl, merged, hadoopConf(),
        List.of(org.apache.iceberg.io.StorageCredential.create(credential.prefix(), credential.config())));
  }

  private void refreshIfExpiring() {
    Credentials current = this.credentials;
    long now = this.clock.millis();
    if (this.refresh == null || current.expiresAtMillis().isEmpty()
        || now + REFRESH_MARGIN.toMillis() < current.expiresAtMillis().getAsLong()
        || now < this.nextRefreshMillis && now < current.expiresAtMillis().getAsLong()) {
      return;
    }
    synchronized (this) {
      if (this.credentials != current) {
        // refreshed by another caller while this one waited
        return;
      }
      this.nextRefreshMillis = now + REFRESH_INTERVAL.toMillis();
      List<StorageCredential> refreshed;
      try {
        refreshed = this.refresh.get();
      }
      catch (RuntimeException failure) {
        // Credentials that have not expired yet still open files: a catalog that fails (or refuses) to refresh
        // them within the margin must not fail reads they can do, as Iceberg's own S3 refresh (the AWS SDK's
        // CachedSupplier) keeps them too. The next file opened tries again; past the expiry the failure is the
        // read's.
        if (this.clock.millis() < current.expiresAtMillis().getAsLong()) {
          return;
        }
        throw failure;
      }
      this.credentials = Credentials.of(refreshed);
    }
  }

  /**
   * The earliest expiry a credential states, in epoch milliseconds: any setting named {@code …expires-at-ms…}
   * (S3, ADLS) or ending in {@code expires-at} (GCS).
   */
  static OptionalLong expiresAtMillis(StorageCredential credential) {
    OptionalLong earliest = OptionalLong.empty();
    for (Map.Entry<String, String> setting : credential.config().entrySet()) {
      String key = setting.getKey();
      if (key.contains("expires-at-ms") || key.endsWith("expires-at")) {
        try {
          long at = Long.parseLong(setting.getValue().trim());
          if (earliest.isEmpty() || at < earliest.getAsLong()) {
            earliest = OptionalLong.of(at);
          }
        }
        catch (NumberFormatException notMillis) {
          // not an expiry this FileIO can read: the credential is used until the catalog refuses it
        }
      }
    }
    return earliest;
  }

  /** Hadoop's Configuration when Hadoop is there (HadoopFileIO and Parquet need one), else none. */
  private static @Nullable Object hadoopConfiguration() {
    try {
      return Class.forName("org.apache.hadoop.conf.Configuration").getConstructor().newInstance();
    }
    catch (ReflectiveOperationException | LinkageError noHadoop) {
      return null;
    }
  }
}
