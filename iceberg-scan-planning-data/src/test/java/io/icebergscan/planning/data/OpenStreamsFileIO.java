package io.icebergscan.planning.data;

import java.io.IOException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO over the embedded catalog's in-memory files that counts the input streams open now, per scope (the FileIO
 * property {@link #SCOPE}): whether a read that ended left a file open. The iceberg module's tests have a fuller one.
 */
public final class OpenStreamsFileIO implements FileIO {

  static final String SCOPE = "open-streams-file-io.scope";

  private static final Map<String, AtomicInteger> OPEN = new ConcurrentHashMap<>();

  private final InMemoryFileIO files = new InMemoryFileIO();
  private Map<String, String> properties = Map.of();
  private AtomicInteger open = new AtomicInteger();

  /** The FileIO properties of a new scope, and its count of open streams. */
  static Map.Entry<Map<String, String>, AtomicInteger> newScope() {
    String scope = UUID.randomUUID().toString();
    AtomicInteger open = OPEN.computeIfAbsent(scope, ignored -> new AtomicInteger());
    return Map.entry(Map.of("io-impl", OpenStreamsFileIO.class.getName(), SCOPE, scope), open);
  }

  @Override
  public void initialize(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
    this.open = OPEN.computeIfAbsent(properties.getOrDefault(SCOPE, ""), ignored -> new AtomicInteger());
    this.files.initialize(properties);
  }

  @Override
  public InputFile newInputFile(String path) {
    return counted(this.files.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return counted(this.files.newInputFile(path, length));
  }

  private InputFile counted(InputFile file) {
    AtomicInteger counter = this.open;
    return new InputFile() {
      @Override
      public long getLength() {
        return file.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        SeekableInputStream stream = file.newStream();
        counter.incrementAndGet();
        return new CountedStream(stream, counter);
      }

      @Override
      public String location() {
        return file.location();
      }

      @Override
      public boolean exists() {
        return file.exists();
      }
    };
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

  /** A stream counted open until its first close. */
  private static final class CountedStream extends SeekableInputStream {

    private final SeekableInputStream stream;
    private final AtomicInteger open;
    private boolean closed;

    CountedStream(SeekableInputStream stream, AtomicInteger open) {
      this.stream = stream;
      this.open = open;
    }

    @Override
    public long getPos() throws IOException {
      return this.stream.getPos();
    }

    @Override
    public void seek(long newPos) throws IOException {
      this.stream.seek(newPos);
    }

    @Override
    public int read() throws IOException {
      return this.stream.read();
    }

    @Override
    public int read(byte[] buffer, int offset, int length) throws IOException {
      return this.stream.read(buffer, offset, length);
    }

    @Override
    public synchronized void close() throws IOException {
      if (!this.closed) {
        this.closed = true;
        this.open.decrementAndGet();
      }
      this.stream.close();
    }
  }
}
