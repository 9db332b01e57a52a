package io.icebergscan.planning.exceptions;

import org.jspecify.annotations.Nullable;

/**
 * No access token could be obtained for the catalog: the token endpoint refused the client's
 * credentials or gave no usable token. Not retried: the same credentials would be refused again.
 */
public class AuthenticationException extends ScanPlanningException {

  public AuthenticationException(String message, @Nullable String planTask, @Nullable Throwable cause) {
    super(message, planTask, cause);
  }
}
