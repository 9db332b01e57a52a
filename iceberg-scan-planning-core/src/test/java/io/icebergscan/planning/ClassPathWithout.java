package io.icebergscan.planning;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Predicate;

/**
 * Runs a probe as an application without some of a module's optional dependencies runs it: in a class loader of
 * its own over this JVM's class path less the jars left out, with nothing above it but the platform's. Only JDK types
 * cross the loader boundary, so the probe returns one. Shared by the modules' tests through the core's test jar.
 */
public final class ClassPathWithout {

  /**
   * @param leftOut the file names of the class path entries left out
   * @param outcome what the probe returned
   */
  public record Run(List<String> leftOut, Object outcome) {
  }

  private ClassPathWithout() {
  }

  /**
   * @param leaveOut which class path entries (their paths, with {@code /} separators) to leave out
   * @param probe a public class with a public no-argument constructor, run in the new loader
   */
  public static Run run(Predicate<String> leaveOut, Class<? extends Callable<?>> probe) throws Exception {
    List<URL> kept = new ArrayList<>();
    List<String> leftOut = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (leaveOut.test(entry.replace(File.separatorChar, '/'))) {
        leftOut.add(Path.of(entry).getFileName().toString());
      }
      else {
        kept.add(url(entry));
      }
    }
    try (URLClassLoader application = new URLClassLoader(kept.toArray(URL[]::new),
        ClassLoader.getPlatformClassLoader())) {
      Callable<?> loaded = (Callable<?>) application.loadClass(probe.getName()).getConstructor().newInstance();
      // Iceberg finds its format models through the context class loader: the application's, as there.
      Thread thread = Thread.currentThread();
      ClassLoader context = thread.getContextClassLoader();
      thread.setContextClassLoader(application);
      try {
        return new Run(List.copyOf(leftOut), loaded.call());
      }
      finally {
        thread.setContextClassLoader(context);
      }
    }
    catch (IOException closing) {
      throw new UncheckedIOException(closing);
    }
  }

  private static URL url(String classpathEntry) {
    try {
      return Path.of(classpathEntry).toUri().toURL();
    }
    catch (MalformedURLException failure) {
      throw new IllegalArgumentException(classpathEntry, failure);
    }
  }
}
