package io.icebergscan.planning.exceptions;

import java.net.SocketTimeoutException;
import java.util.concurrent.TimeoutException;

import org.jspecify.annotations.Nullable;

/** The request did not get an HTTP answer: connection refused or reset, I/O or protocol failure, or a timeout. */
public class TransportException extends ScanPlanningException {

  /** Netty's read and write timeouts, named: this package depends on nothing but the JDK. */
  private static final String NETTY_TIMEOUT = "io.netty.handler.timeout.TimeoutException";

  public TransportException(String message, @Nullable String planTask, @Nullable Throwable cause) {
    super(message, planTask, cause);
  }

  /**
   * Whether the catalog was reached but did not answer in time (the response or the request timeout), rather than not
   * reached or cut off: a refused connection, a reset, a broken body, or a connect timeout.
   */
  public boolean timedOut() {
    for (Throwable cause = getCause(); cause != null; cause = cause.getCause()) {
      if (cause instanceof TimeoutException || cause instanceof SocketTimeoutException) {
        return true;
      }
      for (Class<?> type = cause.getClass(); type != null; type = type.getSuperclass()) {
        if (type.getName().equals(NETTY_TIMEOUT)) {
          return true;
        }
      }
    }
    return false;
  }
}
