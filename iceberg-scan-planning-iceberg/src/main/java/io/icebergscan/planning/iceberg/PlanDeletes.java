package io.icebergscan.planning.iceberg;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;

import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.data.BaseDeleteLoader;
import org.apache.iceberg.data.DeleteLoader;
import org.apache.iceberg.io.InputFile;

/**
 * The delete files of one plan, each read once: a plan's tasks often share delete files (an equality delete file
 * applies to every data file of its partition committed before it, a v2 position delete file to all the data files
 * it names), and Apache Iceberg's generic reader reads a shared file again for every task. The contents are kept for
 * the plan's life, up to {@link #maxBytes} by Iceberg's own estimate of their size (as Iceberg's Spark executor
 * cache bounds them), each loaded by the first task that needs it while the others that need it wait for that one
 * load. A load that fails is not kept: each task that needs the file fails with its own error.
 *
 * <p>Deletes are loaded on the reading thread itself. Iceberg's {@link BaseDeleteLoader} loads them on a worker
 * pool by default and waits for the pool by polling every 10 ms, which a reader that reads many tasks at once
 * needs no more than the sleep.
 */
final class PlanDeletes {

  /** The default bound on what a plan keeps of its delete files. */
  static final long DEFAULT_MAX_BYTES = 64L * 1024 * 1024;

  private final long maxBytes;
  private final Map<String, CompletableFuture<Object>> loaded = new ConcurrentHashMap<>();
  /** What the kept contents weigh, by Iceberg's estimate, loads in progress included. */
  private final AtomicLong weight = new AtomicLong();

  PlanDeletes(long maxBytes) {
    this.maxBytes = maxBytes;
  }

  /** A loader for one task's deletes, opening each file with {@code open}. */
  DeleteLoader loader(Function<DeleteFile, InputFile> open) {
    return new CachingLoader(open);
  }

  /** How many delete files are kept. */
  int kept() {
    return (int) this.loaded.values().stream().filter(load -> load.isDone() && !load.isCompletedExceptionally())
        .count();
  }

  private boolean reserve(long size) {
    long now;
    do {
      now = this.weight.get();
      if (size > this.maxBytes - now) {
        return false;
      }
    }
    while (!this.weight.compareAndSet(now, now + size));
    return true;
  }

  private <V> V getOrLoad(String location, Supplier<V> load, long size) {
    CompletableFuture<Object> existing = this.loaded.get(location);
    if (existing != null) {
      return joined(existing, load);
    }
    if (!reserve(size)) {
      // over the bound: read for this task only
      return load.get();
    }
    CompletableFuture<Object> mine = new CompletableFuture<>();
    existing = this.loaded.putIfAbsent(location, mine);
    if (existing != null) {
      this.weight.addAndGet(-size);
      return joined(existing, load);
    }
    try {
      V value = load.get();
      mine.complete(value);
      return value;
    }
    catch (RuntimeException | Error failure) {
      this.loaded.remove(location, mine);
      this.weight.addAndGet(-size);
      mine.completeExceptionally(failure);
      throw failure;
    }
  }

  /** Another task's load of the file, once it is done; if it failed, this task reads the file and fails its own way. */
  @SuppressWarnings("unchecked")
  private static <V> V joined(CompletableFuture<Object> load, Supplier<V> ownLoad) {
    try {
      return (V) load.join();
    }
    catch (CompletionException failed) {
      return ownLoad.get();
    }
  }

  /**
   * Iceberg's loader, on the calling thread (a {@code null} pool makes its {@code Tasks} run in the caller) and with
   * this plan's cache for the files it deems worth caching: equality deletes, and v2 position delete files.
   */
  private final class CachingLoader extends BaseDeleteLoader {

    CachingLoader(Function<DeleteFile, InputFile> open) {
      super(open, null);
    }

    @Override
    protected boolean canCache(long size) {
      return size <= PlanDeletes.this.maxBytes;
    }

    @Override
    protected <V> V getOrLoad(String key, Supplier<V> valueSupplier, long valueSize) {
      return PlanDeletes.this.getOrLoad(key, valueSupplier, valueSize);
    }
  }
}
