package io.icebergscan.planning.test;

import java.util.List;

/**
 * Which of this module's optional dependencies are on the classpath, asked by a class of each before any of it is
 * touched, so that a missing jar is named in a message rather than met as a {@code NoClassDefFoundError} later.
 */
final class OptionalDependencies {

  private OptionalDependencies() {
  }

  /** Whether the class can be found, without initialising it. */
  static boolean isPresent(String className) {
    try {
      Class.forName(className, false, OptionalDependencies.class.getClassLoader());
      return true;
    }
    catch (ClassNotFoundException | LinkageError absent) {
      return false;
    }
  }

  /** The classes of the list that cannot be found, in its order. */
  static List<String> missing(List<String> classNames) {
    return classNames.stream().filter(name -> !isPresent(name)).toList();
  }
}
