package io.icebergscan.planning.iceberg;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.iceberg.inmemory.InMemoryFileIO;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO for tests that counts what is left open: FileIO instances initialized and not closed, and input streams
 * opened and not closed (and the most open at once). Loaded by name ({@code io-impl}) as any FileIO is, over the
 * embedded catalog's files in Iceberg's JVM-wide in-memory FileIO. Iceberg creates the instances, so each test counts
 * in a {@link Scope} of its own, named by the property {@link #SCOPE} its FileIOs are initialized with.
 *
 * <p>A scope can also {@link Scope#hold hold} the opening of a file ({@code newInputFile}) until the test releases
 * it, to order what concurrent reads do without sleeping, and make the closing of a file's streams
 * {@link Scope#failClosing fail}.
 */
public final class CountingFileIO implements FileIO {

  /** The property naming the scope an instance counts in. */
  static final String SCOPE = "counting-file-io.scope";

  private static final Map<String, Scope> SCOPES = new ConcurrentHashMap<>();

  private final InMemoryFileIO files = new InMemoryFileIO();
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile Map<String, String> properties = Map.of();
  private volatile Scope scope = new Scope();

  /** What one test opened and left open. */
  static final class Scope {

    private final String name = UUID.randomUUID().toString();
    private final AtomicInteger openFileIOs = new AtomicInteger();
    private final AtomicInteger openStreams = new AtomicInteger();
    private final AtomicInteger streamsOpened = new AtomicInteger();
    private final AtomicInteger maxOpenStreams = new AtomicInteger();
    private final AtomicInteger fileIOsOpened = new AtomicInteger();
    private final AtomicInteger failedOpens = new AtomicInteger();
    private final Queue<Gate> gates = new ConcurrentLinkedQueue<>();
    /** Fragments of the locations whose streams fail to close. */
    private final Queue<String> failingCloses = new ConcurrentLinkedQueue<>();
    /** The locations of the streams open now, one entry per stream. */
    private final Queue<String> openLocations = new ConcurrentLinkedQueue<>();
    /** The location of every stream opened, one entry per stream. */
    private final Queue<String> openedLocations = new ConcurrentLinkedQueue<>();

    /** The FileIO properties that make instances count here ({@code io-impl} and the scope). */
    Map<String, String> fileIoProperties() {
      return Map.of("io-impl", CountingFileIO.class.getName(), SCOPE, this.name);
    }

    int openFileIOs() {
      return this.openFileIOs.get();
    }

    int openStreams() {
      return this.openStreams.get();
    }

    int streamsOpened() {
      return this.streamsOpened.get();
    }

    /** How many streams were opened of files whose location contains {@code fragment}. */
    long streamsOpened(String fragment) {
      return this.openedLocations.stream().filter(location -> location.contains(fragment)).count();
    }

    /** The most streams that were open at once. */
    int maxOpenStreams() {
      return this.maxOpenStreams.get();
    }

    /** FileIO instances initialized in this scope, closed or not. */
    int fileIOsOpened() {
      return this.fileIOsOpened.get();
    }

    /** Files that could not be opened (a missing file, say). */
    int failedOpens() {
      return this.failedOpens.get();
    }

    /** Holds every opening of a file whose location contains {@code fragment} until the gate is released. */
    Gate hold(String fragment) {
      Gate gate = new Gate(fragment);
      this.gates.add(gate);
      return gate;
    }

    /**
     * Makes every close of a stream of a file whose location contains {@code fragment} fail with an
     * {@link IOException}, the stream closed and counted closed all the same.
     */
    void failClosing(String fragment) {
      this.failingCloses.add(fragment);
    }

    private boolean failsClosing(String location) {
      return this.failingCloses.stream().anyMatch(location::contains);
    }

    private void await(String location) {
      for (Gate gate : this.gates) {
        if (location.contains(gate.fragment)) {
          gate.arrivedOn = Thread.currentThread();
          gate.arrived.countDown();
          try {
            if (!gate.released.await(30, TimeUnit.SECONDS)) {
              throw new IllegalStateException("the test never released " + gate.fragment);
            }
          }
          catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(interrupted);
          }
        }
      }
    }

    /** The locations of the streams open now: a failing assertion names the files left open. */
    List<String> openLocations() {
      return List.copyOf(this.openLocations);
    }

    @Override
    public String toString() {
      return "open FileIOs " + openFileIOs() + ", open streams " + openStreams() + " " + openLocations();
    }
  }

  /** An opening held until released: {@link #arrived} once a read is waiting at it. */
  static final class Gate {

    private final String fragment;
    private final CountDownLatch arrived = new CountDownLatch(1);
    private final CountDownLatch released = new CountDownLatch(1);
    private volatile Thread arrivedOn;

    Gate(String fragment) {
      this.fragment = fragment;
    }

    /** Waits, at most 30 s, for a read to arrive at the gate; whether one did. */
    boolean awaitArrival() throws InterruptedException {
      return this.arrived.await(30, TimeUnit.SECONDS);
    }

    void release() {
      this.released.countDown();
    }

    /** The thread of the read that arrived at the gate; {@code null} before one did. */
    Thread arrivedOn() {
      return this.arrivedOn;
    }
  }

  /** A new scope, for one test. */
  static Scope newScope() {
    Scope scope = new Scope();
    SCOPES.put(scope.name, scope);
    return scope;
  }

  /** As {@code CatalogUtil.loadFileIO} needs: public and without arguments. */
  public CountingFileIO() {
  }

  @Override
  public void initialize(Map<String, String> properties) {
    this.properties = Map.copyOf(properties);
    String name = properties.get(SCOPE);
    this.scope = name == null ? new Scope() : SCOPES.computeIfAbsent(name, ignored -> new Scope());
    this.scope.openFileIOs.incrementAndGet();
    this.scope.fileIOsOpened.incrementAndGet();
    this.files.initialize(properties);
  }

  @Override
  public InputFile newInputFile(String path) {
    return opened(path, () -> this.files.newInputFile(path));
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    return opened(path, () -> this.files.newInputFile(path, length));
  }

  /** Held while a gate of the scope holds the path; Iceberg's in-memory FileIO fails here for a missing file. */
  private InputFile opened(String path, java.util.function.Supplier<InputFile> open) {
    this.scope.await(path);
    try {
      return new CountingInputFile(open.get());
    }
    catch (RuntimeException missing) {
      this.scope.failedOpens.incrementAndGet();
      throw missing;
    }
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
    if (this.closed.compareAndSet(false, true)) {
      this.scope.openFileIOs.decrementAndGet();
      this.files.close();
    }
  }

  private final class CountingInputFile implements InputFile {

    private final InputFile file;

    CountingInputFile(InputFile file) {
      this.file = file;
    }

    @Override
    public long getLength() {
      return this.file.getLength();
    }

    @Override
    public SeekableInputStream newStream() {
      Scope counted = CountingFileIO.this.scope;
      SeekableInputStream stream = this.file.newStream();
      counted.maxOpenStreams.accumulateAndGet(counted.openStreams.incrementAndGet(), Math::max);
      counted.streamsOpened.incrementAndGet();
      counted.openLocations.add(this.file.location());
      counted.openedLocations.add(this.file.location());
      return new CountingStream(stream, counted, this.file.location());
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

  private static final class CountingStream extends SeekableInputStream {

    private final SeekableInputStream stream;
    private final Scope scope;
    private final String location;
    private final AtomicBoolean closed = new AtomicBoolean();

    CountingStream(SeekableInputStream stream, Scope scope, String location) {
      this.stream = stream;
      this.scope = scope;
      this.location = location;
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
    public long skip(long n) throws IOException {
      return this.stream.skip(n);
    }

    @Override
    public int available() throws IOException {
      return this.stream.available();
    }

    @Override
    public void close() throws IOException {
      if (this.closed.compareAndSet(false, true)) {
        this.scope.openStreams.decrementAndGet();
        this.scope.openLocations.remove(this.location);
      }
      this.stream.close();
      if (this.scope.failsClosing(this.location)) {
        throw new IOException("closing " + this.location + " failed, as the test asked");
      }
    }
  }
}
