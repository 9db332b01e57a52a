package io.icebergscan.planning.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * Object storage stood in for: the embedded catalog's in-memory files, each stream opened {@link #latency} late, as a
 * GET's first byte arrives 10 to 50 ms after it was sent. Both clients of {@link PlanAndRead} read through it (their
 * {@code io-impl}), so a file one of them opens more often than the other costs it that much more. The latency is
 * JVM-wide, as Iceberg makes the instances: a benchmark sets it once its setup has read without it. Simulated
 * latency, not synchronisation: the reading thread waits as it would for the store.
 */
public final class StorageLatencyFileIO implements FileIO {

  private static volatile long latencyNanos;

  private final InMemoryFileIO files = new InMemoryFileIO();
  private volatile Map<String, String> properties = Map.of();

  /** As {@code CatalogUtil.loadFileIO} needs: public and without arguments. */
  public StorageLatencyFileIO() {
  }

  /** The FileIO properties that read through it. */
  static Map<String, String> readThrough() {
    return Map.of("io-impl", StorageLatencyFileIO.class.getName());
  }

  /** How long each stream opened from now on waits before its first byte. */
  static void latency(Duration latency) {
    latencyNanos = latency.toNanos();
  }

  @Override
  public void initialize(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
    this.files.initialize(properties);
  }

  @Override
  public InputFile newInputFile(String path) {
    return new Delayed(this.files.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return new Delayed(this.files.newInputFile(path, length));
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
  public void close() {
    this.files.close();
  }

  private final class Delayed implements InputFile {

    private final InputFile file;

    Delayed(InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return this.file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      long wait = latencyNanos;
      long deadline = System.nanoTime() + wait;
      for (long left = wait; left > 0; left = deadline - System.nanoTime()) {
        LockSupport.parkNanos(left);
      }
      return this.file.newStream();
    }

    @Override
    public String location() {
      return this.file.location();
    }

    @Override
    public boolean exists() {
      return this.file.exists();
    }
  }
}
