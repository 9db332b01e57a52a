package io.icebergscan.planning.spark;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serial;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.InputFile;

/**
 * Apache Iceberg's HadoopFileIO (the local-disk warehouse's), recording when it is serialized, as Spark does to ship
 * it to executors, and on which threads files are opened: Spark's executors run tasks on threads named
 * {@code Executor task launch worker …}.
 */
public class ShippingFileIO extends HadoopFileIO {

  @Serial
  private static final long serialVersionUID = 1L;

  static final AtomicInteger SERIALIZED = new AtomicInteger();
  static final Queue<String> OPENED_ON = new ConcurrentLinkedQueue<>();

  public ShippingFileIO() {
  }

  @Override
  public InputFile newInputFile(String path) {
    OPENED_ON.add(Thread.currentThread().getName() + " " + path);
    return super.newInputFile(path);
  }

  @Override
  public InputFile newInputFile(String path, long length) {
    OPENED_ON.add(Thread.currentThread().getName() + " " + path);
    return super.newInputFile(path, length);
  }

  @Serial
  private void writeObject(ObjectOutputStream out) throws IOException {
    SERIALIZED.incrementAndGet();
    out.defaultWriteObject();
  }
}
