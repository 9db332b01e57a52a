package io.icebergscan.planning.iceberg;

import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.StorageCredential;
import org.apache.iceberg.io.SupportsStorageCredentials;
import org.jspecify.annotations.Nullable;

/**
 * A FileIO for tests, loaded by name ({@code io-impl}) as any FileIO is: it reads the embedded catalog's files
 * from Iceberg's JVM-wide in-memory FileIO and logs every file it opens with the settings it was made with, so a
 * test sees which credential each file of a plan was opened with. The credentials are fakes that only this log
 * reads.
 */
public final class RecordingFileIO implements FileIO, SupportsStorageCredentials {

  /** The fake credential setting a test tells its credentials apart by. */
  static final String ACCESS_KEY = "s3.access-key-id";

  /** JVM-wide, as the files are: Iceberg creates the instances, so a test finds its own by the files' location. */
  private static final Queue<Opened> LOG = new ConcurrentLinkedQueue<>();
  /** Every instance initialized, JVM-wide as well: its properties, and whether it was closed. */
  private static final Queue<RecordingFileIO> INITIALIZED = new ConcurrentLinkedQueue<>();

  private final InMemoryFileIO files = new InMemoryFileIO();
  private volatile Map<String, String> properties = Map.of();
  private volatile List<StorageCredential> credentials = List.of();
  private volatile boolean closed;

  /**
   * One file opened.
   *
   * @param path the file's location
   * @param properties the properties the opening FileIO was initialized with
   * @param credentials the storage credentials it was given ({@link SupportsStorageCredentials})
   */
  record Opened(String path, Map<String, String> properties, List<StorageCredential> credentials) {

    /** The fake access key the opening FileIO had, or {@code null} without one. */
    @Nullable String accessKey() {
      return this.properties.get(ACCESS_KEY);
    }
  }

  /** As {@code CatalogUtil.loadFileIO} needs: public and without arguments. */
  public RecordingFileIO() {
  }

  /** The files opened so far under a location (a test's table), in the order they were opened. */
  static List<Opened> openedUnder(String location) {
    return LOG.stream().filter(opened -> opened.path().startsWith(location)).toList();
  }

  /** How many instances were initialized with the given property. */
  static long initializedWith(String key, String value) {
    return INITIALIZED.stream().filter(io -> value.equals(io.properties.get(key))).count();
  }

  /** How many instances initialized with the given property are not closed. */
  static long openWith(String key, String value) {
    return INITIALIZED.stream().filter(io -> !io.closed && value.equals(io.properties.get(key))).count();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
    this.files.initialize(properties);
    INITIALIZED.add(this);
  }

  @Override
  public InputFile newInputFile(String path) {
    record(path);
    return this.files.newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    record(path);
    return this.files.newInputFile(path, length);
  }

  @Override
  public OutputFile newOutputFile(String path) {
    return this.files.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    this.files.deleteFile(path);
  }

  @Override
  public Map<String, String> properties() {
    return this.properties;
  }

  @Override
  public void setCredentials(List<StorageCredential> credentials) {
    this.credentials = List.copyOf(credentials);
  }

  @Override
  public List<StorageCredential> credentials() {
    return this.credentials;
  }

  @Override
  public void close() {
    this.closed = true;
    this.files.close();
  }

  private void record(String path) {
    LOG.add(new Opened(path, this.properties, this.credentials));
  }
}
