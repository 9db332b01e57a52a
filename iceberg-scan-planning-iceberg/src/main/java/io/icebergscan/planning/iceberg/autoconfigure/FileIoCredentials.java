package io.icebergscan.planning.iceberg.autoconfigure;

import java.util.Map;

import io.icebergscan.planning.autoconfigure.UnresolvedPlaceholderException;
import org.springframework.util.ClassUtils;

/**
 * The FileIO properties, which hold credentials ({@code s3.secret-access-key}, …), as a planner may be given them:
 * refused, as the planner's own credentials are, when one still holds a {@code ${…}} placeholder that nothing
 * resolved, which would otherwise reach the object store as it is.
 */
final class FileIoCredentials {

  private static final String PROPERTY = "iceberg.rest.scan-planning.iceberg.file-io";

  /**
   * The check and its failure analysis are iceberg-scan-planning-autoconfigure's, which is optional here (an
   * application may build its planner itself): without it, the values are not checked.
   */
  private static final boolean CHECKED = ClassUtils.isPresent(
      "io.icebergscan.planning.autoconfigure.UnresolvedPlaceholderException", FileIoCredentials.class.getClassLoader());

  private FileIoCredentials() {
  }

  static Map<String, String> resolved(Map<String, String> fileIo) {
    if (CHECKED) {
      UnresolvedPlaceholderException.throwIfUnresolvedIn(PROPERTY, fileIo);
    }
    return fileIo;
  }
}
